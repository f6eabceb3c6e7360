from django.urls import path

from engine import api, family_api

urlpatterns = [
    path("instances/", api.InstanceList.as_view(), name="api-instances"),
    path("sessions/", api.SessionList.as_view(), name="api-sessions"),
    path("sessions/<int:session_id>/", api.SessionDetail.as_view(), name="api-session"),
    path(
        "sessions/<int:session_id>/actions/",
        api.SessionActions.as_view(),
        name="api-session-actions",
    ),
    path(
        "sessions/<int:session_id>/answer/", api.SessionAnswer.as_view(), name="api-session-answer"
    ),
    path("families/", family_api.FamilyList.as_view(), name="api-families"),
    path("family-tasks/", family_api.FamilyTaskList.as_view(), name="api-family-tasks"),
    path("family-attempts/", family_api.AttemptList.as_view(), name="api-family-attempts"),
    path(
        "family-attempts/<int:attempt_id>/",
        family_api.AttemptDetail.as_view(),
        name="api-family-attempt",
    ),
    path(
        "family-attempts/<int:attempt_id>/moves/",
        family_api.AttemptMove.as_view(),
        name="api-family-attempt-move",
    ),
    path(
        "family-attempts/<int:attempt_id>/answer/",
        family_api.AttemptAnswer.as_view(),
        name="api-family-attempt-answer",
    ),
]
