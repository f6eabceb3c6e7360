"""Who may use the HTTP API: researchers, never study participants.

A study participant plays only their own task set, only in the study's pages. Their login
(a session cookie, or a token if one was ever made for them) must open no ``/api/v1/``
endpoint, public ones included: otherwise a participant could list and play any instance,
learn answers, and finish their study tasks over the API.
"""

from __future__ import annotations

from rest_framework.permissions import BasePermission


def is_study_participant(user) -> bool:
    return bool(user and user.is_authenticated and hasattr(user, "participant"))


def is_visitor(user) -> bool:
    """A guest account made for an anonymous visitor's practice games (engine.practice)."""
    return bool(user and user.is_authenticated and hasattr(user, "visitor"))


class NotStudyParticipant(BasePermission):
    """Refuses a request authenticated as a study participant (by cookie or token).

    The API's default together with ``IsAuthenticated`` (REST_FRAMEWORK in settings); a view
    that sets its own ``permission_classes`` must list it too (or ``PublicButNotParticipant``).
    """

    message = "study participants cannot use the API; play your tasks on the study pages"

    def has_permission(self, request, view) -> bool:
        return not is_study_participant(request.user)


class PublicButNotParticipant(NotStudyParticipant):
    """Anyone, signed in or not, except a study participant: for public endpoints, in place
    of ``AllowAny``."""
