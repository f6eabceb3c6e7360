"""API token authentication that loads the user's study role with the token.

Every API request asks whether its user is a study participant (``benchmark.permissions``);
DRF's own token authentication loads the user, and the participant check would then cost a
second query on every request, moves included. Loading both in one query keeps a move at
the queries it needs.
"""

from __future__ import annotations

from rest_framework import authentication, exceptions


class TokenAuthentication(authentication.TokenAuthentication):
    def authenticate_credentials(self, key):
        model = self.get_model()
        token = model.objects.select_related("user", "user__participant").filter(key=key).first()
        if token is None:
            raise exceptions.AuthenticationFailed("Invalid token.")
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed("User inactive or deleted.")
        return (token.user, token)
