"""The SQL of one KUMO move, compiled once per process (``engine.sessions`` uses it).

A move runs three statements inside its transaction: lock the session (with its instance
and domain, and on PostgreSQL the transaction's id), read its steps, and store the new step
with the session's counters (on PostgreSQL one statement; on SQLite an insert and an
update). A play page reads the first two (unlocked) for the state it shows. Built with
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
from benchmark.retry import note_transaction_id
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
        columns = f"{self.session.sql}, {self.instance.sql}, {self.domain.sql}"
        rows = (
            f"FROM {quote(PlaySession._meta.db_table)} s "
            f"JOIN {quote(Instance._meta.db_table)} i ON i.{pk} = s.{quote('instance_id')} "
            f"JOIN {quote(Domain._meta.db_table)} d ON d.{pk} = i.{quote('domain_id')} "
            f"WHERE s.{pk} = %s"
        )
        self.read = f"SELECT {columns} {rows}"
        # On PostgreSQL the lock also reads the transaction's id (locking a row gives the
        # transaction one), which the retry of a dropped connection needs before the
        # move's first write (benchmark.retry): one round trip fewer per move.
        self.postgresql = connection.vendor == "postgresql"
        xid = ", txid_current()" if self.postgresql else ""
        self.lock = f"SELECT {columns}{xid} {rows} AND s.{quote('player_id')} = %s{lock}"
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
    return _session(
        statements, statements.lock, [session_id, player_id], connection, statements.postgresql
    )


def session(session_id: int, connection=default_connection):
    """The session with its instance and domain (the domain's data deferred), not locked;
    None if there is no such session (a page reading its state)."""
    statements = _statements(connection)
    return _session(statements, statements.read, [session_id], connection)


def _session(statements, sql: str, params: list, connection, with_xid: bool = False):
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        row = cursor.fetchone()
    if row is None:
        return None
    if with_xid:
        note_transaction_id(connection, row[-1])
        row = row[:-1]
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


def store_move(
    step: PlayStep, session: PlaySession, names: list[str], connection=default_connection
) -> None:
    """Store a new step and the session's changed fields (as ``step.save()`` and
    ``session.save(update_fields=names)`` would, without compiling either). On PostgreSQL
    both go in one statement (the update as a data-modifying ``WITH``): one round trip."""
    statements = _statements(connection)
    quote = statements.quote
    fields = [PlaySession._meta.get_field(name) for name in names]
    update = (
        f"UPDATE {quote(PlaySession._meta.db_table)} SET "
        f"{', '.join(f'{quote(field.column)} = %s' for field in fields)} "
        f"WHERE {quote('id')} = %s"
    )
    update_values = [
        *(field.get_db_prep_save(field.pre_save(session, False), connection) for field in fields),
        session.pk,
    ]
    step_values = [
        field.get_db_prep_save(field.pre_save(step, True), connection)
        for field in statements.insert_fields
    ]
    with connection.cursor() as cursor:
        if statements.postgresql:
            cursor.execute(
                f"WITH changed AS ({update}) {statements.insert}",
                [*update_values, *step_values],
            )
            step.pk = cursor.fetchone()[0]
        else:
            cursor.execute(statements.insert, step_values)
            step.pk = cursor.fetchone()[0] if statements.returning else cursor.lastrowid
            cursor.execute(update, update_values)
    step._state.adding = False
    step._state.db = connection.alias
