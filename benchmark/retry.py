"""One more try, on a fresh database connection, for work that lost its connection before it
committed anything.

PostgreSQL ends a connection under a request when the server restarts, fails over, or an
administrator terminates its backend (``pg_terminate_backend``). The pool replaces a
connection that was dropped while it sat idle (benchmark/postgresql/base.py), but one that
drops while a request holds it fails that request: before this, terminating the backends
under 100 players gave about ten HTTP 500s and closed websockets each time.

Such work is safe to run again exactly when nothing it did has been committed: PostgreSQL
rolls back the open transaction of a connection that ends. ``CommitWatch`` follows every
statement of one unit of work (an HTTP request, a websocket move) and answers whether that
is so:

1. a write that succeeds outside a transaction (autocommit) is committed at once;
2. a transaction with writes is committed once its ``on_commit`` hook runs, and lost (rolled
   back by the server) when one of its own statements fails with the connection;
3. a transaction whose ``COMMIT`` itself failed may or may not have been applied (the
   server can die between writing the commit and answering it). On PostgreSQL the watch
   noted the transaction's id with its first write (``txid_current()``: one round trip per
   writing transaction) and asks a fresh connection what became of it (``txid_status``);
   elsewhere, or if that cannot be answered, the work is not run again: a move is never
   doubled;
4. the work is run again only for an ``OperationalError`` or ``InterfaceError`` (a lost
   connection, and also a deadlock or serialization failure, which roll back too), never
   for a full pool (that wait would only be repeated), and at most once.

``RetryDroppedConnectionMiddleware`` does this for HTTP requests; ``retried`` for the
websocket consumer's database work (engine/consumers.py). Side effects outside the
database are sent after commit (``transaction.on_commit``, house style), so work that
committed nothing has told nobody anything.
"""

from __future__ import annotations

import functools
import logging
import time
from contextlib import ExitStack
from io import BytesIO

from django.db import InterfaceError, OperationalError, connections, transaction
from django.http import HttpResponseServerError
from psycopg_pool import PoolTimeout

logger = logging.getLogger(__name__)

RETRYABLE = (OperationalError, InterfaceError)
# Statements that change nothing that outlives their transaction.
_READS = ("SELECT", "SAVEPOINT", "RELEASE", "ROLLBACK", "SET", "SHOW", "BEGIN")
# Request bodies up to this size are read before the view so that a retry can read them
# again (a move is a few hundred bytes); a larger body is replayed only if its spooled file
# can be rewound.
BUFFERED_BODY_BYTES = 64 * 1024


def _writes(sql) -> bool:
    if not isinstance(sql, str):
        return True  # a composed statement: assume the worst
    return not sql.lstrip()[:9].upper().startswith(_READS)


class CommitWatch:
    """Follows the statements of one unit of work on every database connection (as an
    ``execute_wrapper``) and tells whether the work may be run again (see the module)."""

    def __init__(self) -> None:
        self.committed = False
        # Writing transactions not known to be committed or lost: for each, the connection's
        # list of commit hooks (Django makes a new one for every transaction, so it names
        # the transaction), the connection's alias and (PostgreSQL) the transaction's id.
        self.unsettled: list[tuple[list, str, int | None]] = []

    def __call__(self, execute, sql, params, many, context):
        connection = context["connection"]
        key = connection.run_on_commit if connection.in_atomic_block else None
        if key is not None and _writes(sql) and not self._open(key):
            self.unsettled.append((key, connection.alias, _transaction_id(context)))
            transaction.on_commit(
                functools.partial(self._settle, key, committed=True), using=connection.alias
            )
        try:
            result = execute(sql, params, many, context)
        except RETRYABLE:
            if key is not None:
                # The connection's transaction is lost with it: rolled back by the server.
                self._settle(key, committed=False)
            raise
        if key is None and _writes(sql):
            self.committed = True
        return result

    def _open(self, key: list) -> bool:
        return any(entry[0] is key for entry in self.unsettled)

    def _settle(self, key: list, *, committed: bool) -> None:
        self.unsettled = [entry for entry in self.unsettled if entry[0] is not key]
        self.committed = self.committed or committed

    def watching(self) -> ExitStack:
        stack = ExitStack()
        for connection in connections.all():
            stack.enter_context(connection.execute_wrapper(self))
        return stack

    def may_retry(self, error: BaseException) -> bool:
        if not isinstance(error, RETRYABLE) or isinstance(error.__cause__, PoolTimeout):
            return False
        if self.committed:
            return False
        # Each unsettled transaction either rolled back (an application error caught, or a
        # failed COMMIT the server never applied) or committed with its answer lost.
        return all(_rolled_back(alias, xid) for _, alias, xid in self.unsettled)


def note_transaction_id(connection, xid: int) -> None:
    """Tell the watch the id of the connection's open transaction, read with a statement the
    work ran anyway (``SELECT ..., txid_current() ... FOR UPDATE``: locking a row gives the
    transaction its id), so its first write needs no round trip of its own to learn it."""
    connection.noted_transaction_id = (connection.run_on_commit, xid)


def _transaction_id(context) -> int | None:
    """The PostgreSQL id of the transaction about to write (None elsewhere)."""
    connection = context["connection"]
    if connection.vendor != "postgresql":
        return None
    noted = getattr(connection, "noted_transaction_id", None)
    # Django makes a new list of commit hooks for every transaction: it names this one.
    if noted is not None and noted[0] is connection.run_on_commit:
        return noted[1]
    raw = context["cursor"].cursor  # psycopg's own cursor: no wrappers, no Django overhead
    # Its errors as Django's (a lost connection here is an OperationalError like any other;
    # the transaction has written nothing yet, so the work may run again).
    with context["connection"].wrap_database_errors:
        raw.execute("SELECT txid_current()")
        return raw.fetchone()[0]


def _rolled_back(alias: str, xid: int | None) -> bool:
    """Whether the transaction ``xid`` surely did not commit, asked on a fresh connection
    (the one it ran on is gone). A terminated backend takes a moment to finish aborting."""
    if xid is None:
        return False
    connection = connections.create_connection(alias)
    try:
        for _ in range(20):
            with connection.cursor() as cursor:
                cursor.execute("SELECT txid_status(%s)", [xid])
                status = cursor.fetchone()[0]
            if status != "in progress":
                return status == "aborted"
            time.sleep(0.05)
        return False
    except Exception:
        return False
    finally:
        connection.close()


def drop_connections() -> None:
    """Let go of this thread's database connections (a broken one is discarded by the pool),
    so the next query gets a fresh, checked one."""
    from benchmark.postgresql.base import check_every_connection_next

    for connection in connections.all(initialized_only=True):
        try:
            connection.close()
        except Exception:  # already broken: nothing more to release
            connection.connection = None
    # The pooled connections idle beside the broken one may have been dropped with it.
    check_every_connection_next()


def retried(function):
    """``function`` run once more, on fresh connections, when it lost its database
    connection before committing anything (see the module)."""

    @functools.wraps(function)
    def call(*args, **kwargs):
        watch = CommitWatch()
        try:
            with watch.watching():
                return function(*args, **kwargs)
        except RETRYABLE as error:
            if not watch.may_retry(error):
                raise
            logger.warning(
                "%s lost its database connection; trying once more: %s",
                function.__qualname__,
                error,
            )
        drop_connections()
        return function(*args, **kwargs)

    return call


class RetryDroppedConnectionMiddleware:
    """Runs a request once more when its view lost the database connection before anything
    was committed, instead of answering 500 (see the module). First in ``MIDDLEWARE``, so
    the retry goes through the whole chain again (session, user, CSRF)."""

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request):
        watch = CommitWatch()
        request._commit_watch = watch
        _buffer_small_body(request)
        with watch.watching():
            response = self.get_response(request)
        if not getattr(response, "retry_request", False):
            return response
        logger.warning(
            "%s %s lost its database connection before committing; trying once more",
            request.method,
            request.path,
        )
        request._commit_watch = None  # once only
        drop_connections()
        return self.get_response(request)

    def process_exception(self, request, exception):
        watch = getattr(request, "_commit_watch", None)
        if watch is None or not watch.may_retry(exception) or not _rewind(request):
            return None  # Django's own 500
        # Not the answer: ``__call__`` runs the request again. A 500 status keeps the inner
        # middleware from saving anything (the session) on the way out.
        response = HttpResponseServerError()
        response.retry_request = True
        return response


def _buffer_small_body(request) -> None:
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return
    if 0 < length <= BUFFERED_BODY_BYTES:
        try:
            request.body  # noqa: B018 (read and kept for a replay)
        except Exception:  # an unreadable body: the view answers it as before
            pass


def _rewind(request) -> bool:
    """Make the request's body readable again from the start; False if it cannot be."""
    if hasattr(request, "_body"):
        request._stream = BytesIO(request._body)
    elif request._read_started:
        stream = getattr(request, "_stream", None)
        if stream is None or getattr(stream, "closed", True) or not stream.seekable():
            return False
        stream.seek(0)
    request._read_started = False
    for parsed in ("_post", "_files"):
        if hasattr(request, parsed):
            delattr(request, parsed)
    return True
