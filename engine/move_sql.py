"""The SQL of one KUMO move, compiled once per process (``engine.sessions`` uses it).

A move runs four statements inside its transaction: lock the session (with its instance and
domain), read its steps, insert the new step, update the session's counters. A play page
reads the first two (unlocked) for the state it shows. Built with
the ORM, each statement was compiled afresh on every move, and compiling them (select
masks, joins, ordering, converters) cost more CPU than everything else in the move did
(profiled on the 2-core machine of the production benchmark: the move service took 10 ms
of CPU per move, 4-5 ms without the compiling). Here they are written once per process
(``benchmark.compiled_sql``).

Rows come back as ordinary model instances (``Model.from_db``): a field not read here is
deferred and loads on first access, as with ``QuerySet.defer``.
"""

from __future__ import annotations

from django.db import connection as default_connection

from benchmark.compiled_sql import Columns, per_vendor
from engine.models import Domain, Instance, PlaySession, PlayStep

# The domain's JSON (tens of kB) is never read on a move: Domain.to_core() parses it once
# per process and version and fetches it only then.
_DOMAIN_SKIPPED = {"data"}


class _Statements:
    """The move's statements for one kind of connection (PostgreSQL, SQLite)."""

    def __init__(self, connection) -> None:
        quote = connection.ops.quote_name
        pk = quote("id")
        self.session = Columns(PlaySession, "s", connection)
        self.instance = Columns(Instance, "i", connection)
        self.domain = Columns(Domain, "d", connection, skip=_DOMAIN_SKIPPED)
        # Lock the session's row only (OF s): locking the instance and its domain too
        # would serialise every move on a domain and deadlock with inserts that reference
        # the domain. SQLite has no FOR UPDATE: its IMMEDIATE transactions (settings) take
        # the write lock at BEGIN.
        lock = " FOR UPDATE OF s" if connection.features.has_select_for_update_of else ""
        self.read = (
            f"SELECT {self.session.sql}, {self.instance.sql}, {self.domain.sql} "
            f"FROM {quote(PlaySession._meta.db_table)} s "
            f"JOIN {quote(Instance._meta.db_table)} i ON i.{pk} = s.{quote('instance_id')} "
            f"JOIN {quote(Domain._meta.db_table)} d ON d.{pk} = i.{quote('domain_id')} "
            f"WHERE s.{pk} = %s"
        )
        self.lock = f"{self.read} AND s.{quote('player_id')} = %s{lock}"
        self.step = Columns(PlayStep, "t", connection)
        self.steps = (
            f"SELECT {self.step.sql} FROM {quote(PlayStep._meta.db_table)} t "
            f"WHERE t.{quote('session_id')} = %s ORDER BY t.{quote('index')}"
        )
        self.insert_fields = [f for f in PlayStep._meta.concrete_fields if not f.primary_key]
        returning = (
            f" RETURNING {quote('id')}"
            if connection.features.can_return_columns_from_insert
            else ""
        )
        self.insert = (
            f"INSERT INTO {quote(PlayStep._meta.db_table)} "
            f"({', '.join(quote(f.column) for f in self.insert_fields)}) "
            f"VALUES ({', '.join(['%s'] * len(self.insert_fields))}){returning}"
        )
        self.returning = bool(returning)
        self.quote = quote


_statements = per_vendor(_Statements)


def locked_session(session_id: int, player_id: int, connection=default_connection):
    """The player's session with its instance and domain (the domain's data deferred),
    its row locked for the rest of the transaction; None if there is no such session."""
    statements = _statements(connection)
    return _session(statements, statements.lock, [session_id, player_id], connection)


def session(session_id: int, connection=default_connection):
    """The session with its instance and domain (the domain's data deferred), not locked;
    None if there is no such session (a page reading its state)."""
    statements = _statements(connection)
    return _session(statements, statements.read, [session_id], connection)


def _session(statements, sql: str, params: list, connection):
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        row = cursor.fetchone()
    if row is None:
        return None
    first = len(statements.session)
    second = first + len(statements.instance)
    session = statements.session.build(row[:first], connection)
    instance = statements.instance.build(row[first:second], connection)
    instance.domain = statements.domain.build(row[second:], connection)
    session.instance = instance
    return session


def steps(session: PlaySession, connection=default_connection) -> list[PlayStep]:
    statements = _statements(connection)
    with connection.cursor() as cursor:
        cursor.execute(statements.steps, [session.pk])
        rows = cursor.fetchall()
    built = [statements.step.build(row, connection) for row in rows]
    for step in built:
        step.session = session
    return built


def insert_step(step: PlayStep, connection=default_connection) -> None:
    """Store a new step (as ``step.save()`` would, without compiling the INSERT)."""
    statements = _statements(connection)
    values = [
        field.get_db_prep_save(field.pre_save(step, True), connection)
        for field in statements.insert_fields
    ]
    with connection.cursor() as cursor:
        cursor.execute(statements.insert, values)
        step.pk = cursor.fetchone()[0] if statements.returning else cursor.lastrowid
    step._state.adding = False
    step._state.db = connection.alias


def update_session(session: PlaySession, names: list[str], connection=default_connection):
    """``session.save(update_fields=names)`` without compiling the UPDATE."""
    quote = _statements(connection).quote
    fields = [PlaySession._meta.get_field(name) for name in names]
    assignments = ", ".join(f"{quote(field.column)} = %s" for field in fields)
    values = [
        field.get_db_prep_save(field.pre_save(session, False), connection) for field in fields
    ]
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {quote(PlaySession._meta.db_table)} SET {assignments} "
            f"WHERE {quote('id')} = %s",
            [*values, session.pk],
        )
