from django.urls import path

from leaderboard import views

app_name = "leaderboard"
urlpatterns = [
    path("", views.board, name="board"),
    path("board.csv", views.board_download, {"fmt": "csv"}, name="board-csv"),
    path("board.json", views.board_download, {"fmt": "json"}, name="board-json"),
    path("models/<int:model_id>/", views.model_detail, name="model"),
    path("profile/", views.family_profile, name="profile"),
    path("heatmap/", views.heatmap, name="heatmap"),
    path("paper/", views.paper_tables, name="paper"),
    path("correlations/", views.correlations, name="correlations"),
    path("optimal-actions/", views.optimal_actions, name="optimal-actions"),
    path("rounds/", views.rounds, name="rounds"),
    path("families/", views.family_board, name="families"),
    path("rounds/<slug:name>/instances.jsonl", views.round_instances, name="round-instances"),
    path("assets/plotly-<str:version>.min.js", views.plotly_js, name="plotly-js"),
]
