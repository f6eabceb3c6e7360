"""The API schema's view of the error answers (see benchmark/api_conventions.py).

Kept apart from api_conventions: drf-spectacular's AutoSchema imports DRF's generic views,
which import the pagination class set in settings (a circular import).
"""

from __future__ import annotations

from drf_spectacular.authentication import SessionScheme
from drf_spectacular.openapi import AutoSchema as SpectacularAutoSchema

from benchmark.permissions import PublicButNotParticipant


class VisitorAwareSessionScheme(SessionScheme):
    """The site's session authentication (a visitor's guest session counts as anonymous)
    is documented as the cookie login it is."""

    target_class = "benchmark.authentication.SessionAuthentication"


class AutoSchema(SpectacularAutoSchema):
    """drf-spectacular's schema, plus the error answers every operation can give."""

    def get_auth(self):
        auths = super().get_auth()
        public = any(isinstance(p, PublicButNotParticipant) for p in self.view.get_permissions())
        if public and {} not in auths:
            auths.append({})  # signing in is optional
        return auths

    def _get_response_bodies(self, direction="response"):
        responses = super()._get_response_bodies(direction)
        if direction != "response":
            return responses
        from engine.serializers import ErrorSerializer

        public = any(isinstance(p, PublicButNotParticipant) for p in self.view.get_permissions())
        codes = {
            # Invalid body or query (every operation here takes one or the other).
            "400": "invalid input; `fields` says which field and why",
            # A study participant's login never opens the API (benchmark/permissions.py).
            "403": "not allowed for this account (study participants cannot use the API)",
            "405": "method not allowed",
        }
        if not public:
            codes["401"] = "not signed in: send `Authorization: Token <key>`"
        if "{" in self.path:
            codes["404"] = "no such object, or not yours (the two are not told apart)"
        for code, description in codes.items():
            if code not in responses:
                response = self._get_response_for_code(ErrorSerializer, code, direction=direction)
                response["description"] = description
                responses[code] = response
        return responses
