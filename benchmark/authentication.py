"""API token authentication that loads the user's study role with the token.

Every API request asks whether its user is a study participant (``benchmark.permissions``);
DRF's own token authentication loads the user, and the participant check would then cost a
second query on every request, moves included. Loading both in one query keeps a move at
the queries it needs; the query is written once per process (``benchmark.compiled_sql``):
compiled by the ORM on every request, it cost more CPU than the rest of a move's request
did.
"""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import connection
from rest_framework import authentication, exceptions
from rest_framework.authtoken.models import Token

from benchmark.compiled_sql import Columns, per_vendor
from benchmark.permissions import is_visitor


class _TokenQuery:
    """The token, its user, and whether the user is a study participant or a visitor."""

    def __init__(self, connection) -> None:
        from engine.models import Visitor
        from humanstudy.models import Participant

        quote = connection.ops.quote_name
        pk, user_id = quote("id"), quote("user_id")
        self.token = Columns(Token, "t", connection)
        self.user = Columns(User, "u", connection)
        self.sql = (
            f"SELECT {self.token.sql}, {self.user.sql}, p.{pk}, v.{pk} "
            f"FROM {quote(Token._meta.db_table)} t "
            f"JOIN {quote(User._meta.db_table)} u ON u.{pk} = t.{user_id} "
            f"LEFT JOIN {quote(Participant._meta.db_table)} p ON p.{user_id} = u.{pk} "
            f"LEFT JOIN {quote(Visitor._meta.db_table)} v ON v.{user_id} = u.{pk} "
            f"WHERE t.{quote('key')} = %s"
        )


_token_query = per_vendor(_TokenQuery)


def _token(key: str) -> Token | None:
    """The token with its user, read in one query; for a participant or a visitor (refused
    below, never on a hot path) the user's role is read by the ORM."""
    query = _token_query(connection)
    with connection.cursor() as cursor:
        cursor.execute(query.sql, [key])
        row = cursor.fetchone()
    if row is None:
        return None
    *values, participant, visitor = row
    if participant is not None or visitor is not None:
        return (
            Token.objects.select_related("user", "user__participant", "user__visitor")
            .filter(key=key)
            .first()
        )
    token = query.token.build(values[: len(query.token)], connection)
    user = query.user.build(values[len(query.token) :], connection)
    # Neither a participant nor a visitor: known now, so asking costs no query.
    for role in ("participant", "visitor"):
        User._meta.get_field(role).set_cached_value(user, None)
    token.user = user
    return token


class TokenAuthentication(authentication.TokenAuthentication):
    def authenticate_credentials(self, key):
        token = _token(key)
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
