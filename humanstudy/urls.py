from django.urls import path

from humanstudy import views

app_name = "humanstudy"
urlpatterns = [
    path("", views.progress, name="progress"),
    path("join/<str:key>/", views.join, name="join"),
    path("p/<str:key>/", views.personal_link, name="personal-link"),
    path("consent/", views.consent, name="consent"),
    path("declined/", views.declined, name="declined"),
    path("logged-out/", views.logged_out, name="logged-out"),
    path("instructions/", views.instructions, name="instructions"),
    path("practice/", views.practice, name="practice"),
    path("tasks/", views.tasks, name="tasks"),
    path("tasks/<int:position>/", views.open_task, name="open-task"),
    path("questionnaire/", views.questionnaire, name="questionnaire"),
    path("complete/", views.complete, name="complete"),
    path("overview/", views.overview, name="overview"),
    path("monitor/", views.monitor, name="monitor"),
    path("monitor.json", views.monitor_data, name="monitor-data"),
    path("export/steps.<str:fmt>", views.export_steps, name="export-steps"),
    path("export/participants.csv", views.export_participants, name="export-participants"),
]
