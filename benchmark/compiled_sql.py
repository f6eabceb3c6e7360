"""Statements of the hottest paths written once per process instead of compiled per call.

Django compiles a queryset's SQL afresh every time it runs; for a small query on a hot path
(a move, the API token's check) the compiling costs several times the query itself. The
modules that need it (``engine.move_sql``, ``benchmark.authentication``) write those few
statements once per kind of connection from the models' own field definitions, and read
and write every value through those fields, so what is stored and read is exactly what the
ORM stores and reads.
"""

from __future__ import annotations

from django.db.models import Model
from django.db.models.base import ModelState
from django.db.models.signals import post_init, pre_init


class Columns:
    """Some concrete fields of a model, read under a table alias, with the converters
    Django's compiler would apply to them on this kind of connection."""

    def __init__(self, model: type[Model], alias: str, connection, skip=frozenset()) -> None:
        self.model = model
        self.fields = [f for f in model._meta.concrete_fields if f.name not in skip]
        self.names = [f.attname for f in self.fields]
        quote = connection.ops.quote_name
        self.sql = ", ".join(f"{alias}.{quote(f.column)}" for f in self.fields)
        self.converters = []
        for field in self.fields:
            column = field.get_col(alias)
            found = connection.ops.get_db_converters(column) + column.get_db_converters(connection)
            self.converters.append((found, column))

    def __len__(self) -> int:
        return len(self.fields)

    def build(self, values, connection) -> Model:
        """A model instance from this row's values (other fields deferred)."""
        converted = []
        for value, (converters, column) in zip(values, self.converters, strict=True):
            for converter in converters:
                value = converter(value, column, connection)
            converted.append(value)
        model = self.model
        if pre_init.has_listeners(model) or post_init.has_listeners(model):
            return model.from_db(connection.alias, self.names, converted)
        # What ``Model.from_db`` makes, without its per-field lookups: the read fields set,
        # the others left out of the instance's ``__dict__`` (deferred: Django loads such a
        # field on first access). Only when no signal receiver would see the difference.
        built = model.__new__(model)
        state = built._state = ModelState()
        state.adding = False
        state.db = connection.alias
        built.__dict__.update(zip(self.names, converted, strict=True))
        return built


def per_vendor(build):
    """``build(connection)`` made once per kind of connection (postgresql, sqlite)."""
    made: dict[str, object] = {}

    def get(connection):
        found = made.get(connection.vendor)
        if found is None:
            found = made[connection.vendor] = build(connection)
        return found

    return get


# Stand-ins for a prepared query's values while it is compiled: integers no real row has.
_MARKERS = tuple(-(2**62) - number for number in range(8))


class Prepared:
    """A query written with the ORM, compiled once per kind of connection and then run with
    new values in place of its markers.

    ``build(*markers)`` returns the queryset (a ``values_list``), with each of its integer
    parameters given as the marker passed in its place. The query keeps living in the one
    function that states its rule (``leaderboard.access.playable_instances``, say); only
    its compiling, which cost a hot path several times the query, happens once. Values are
    read through the compiler's own converters, as the ORM reads them.
    """

    def __init__(self, build, markers: int = 1) -> None:
        self.build = build
        self.markers = _MARKERS[:markers]
        self.made = per_vendor(self._compile)

    def _compile(self, connection):
        compiler = self.build(*self.markers).query.get_compiler(connection=connection)
        sql, params = compiler.as_sql()
        params = list(params)
        slots = [
            (index, self.markers.index(value))
            for index, value in enumerate(params)
            if type(value) is int and value in self.markers
        ]
        if {marker for _, marker in slots} != set(range(len(self.markers))):
            raise ValueError("every marker must be one of the query's parameters")
        converters = compiler.get_converters([s[0] for s in compiler.select[: compiler.col_count]])
        return sql, params, slots, compiler, converters

    def rows(self, connection, *values) -> list:
        sql, params, slots, compiler, converters = self.made(connection)
        params = list(params)
        for index, marker in slots:
            params[index] = values[marker]
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            rows = cursor.fetchall()
        if converters:
            rows = [tuple(row) for row in compiler.apply_converters(rows, converters)]
        return rows
