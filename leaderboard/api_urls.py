from django.urls import path

from leaderboard import api

urlpatterns = [
    path("submissions/", api.SubmissionList.as_view(), name="api-submissions"),
    path("submissions/<int:submission_id>/", api.SubmissionDetail.as_view(), name="api-submission"),
    path(
        "submissions/<int:submission_id>/withdraw/",
        api.SubmissionWithdraw.as_view(),
        name="api-submission-withdraw",
    ),
    path(
        "submissions/<int:submission_id>/retry/",
        api.SubmissionRetry.as_view(),
        name="api-submission-retry",
    ),
    path("family-submissions/", api.FamilySubmissionList.as_view(), name="api-family-submissions"),
    path("ranked-games/", api.RankedGameList.as_view(), name="api-ranked-games"),
    path(
        "ranked-family-attempts/",
        api.RankedFamilyAttemptList.as_view(),
        name="api-ranked-family-attempts",
    ),
    path("leaderboard/", api.LeaderboardList.as_view(), name="api-leaderboard"),
    path(
        "family-leaderboard/",
        api.FamilyLeaderboardList.as_view(),
        name="api-family-leaderboard",
    ),
]
