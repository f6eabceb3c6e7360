"""API token authentication that loads the user's study role with the token.

Every API request asks whether its user is a study participant (``benchmark.permissions``);
DRF's own token authentication loads the user, and the participant check would then cost a
second query on every request, moves included. Loading both in one query keeps a move at
the queries it needs.
"""

from __future__ import annotations

from rest_framework import authentication, exceptions

from benchmark.permissions import is_visitor


class TokenAuthentication(authentication.TokenAuthentication):
    def authenticate_credentials(self, key):
        model = self.get_model()
        token = (
            model.objects.select_related("user", "user__participant", "user__visitor")
            .filter(key=key)
            .first()
        )
        if token is None:
            raise exceptions.AuthenticationFailed("Invalid token.")
        if is_visitor(token.user):
            raise exceptions.AuthenticationFailed("A visitor's guest account cannot use the API.")
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed("User inactive or deleted.")
        return (token.user, token)


class SessionAuthentication(authentication.SessionAuthentication):
    """Django's session login, except a visitor's guest account (``engine.practice``).

    A guest account exists to play practice games in the browser; to the API it is
    anonymous, so it can read what anyone may read and start nothing (it cannot open an
    instance or a ranked game the Play entry would not give it).
    """

    def authenticate(self, request):
        result = super().authenticate(request)
        if result is not None and is_visitor(result[0]):
            return None
        return result
