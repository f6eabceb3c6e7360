"""Rows of the compiled statements (benchmark.compiled_sql) become the instances the ORM
would make: the same values, the same deferred fields, loaded on first access."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.db.models.signals import post_init

from engine import move_sql, sessions
from engine.models import Domain, Instance, PlaySession

pytestmark = pytest.mark.django_db


def _a_session(orchard) -> PlaySession:
    player = User.objects.create_user("reader")
    instance = Instance.objects.order_by("seed").first()
    session, _ = sessions.start_session(player, instance)
    sessions.take_action(session.pk, player, instance.actions[0])
    return session


def _fields(model_instance) -> dict:
    loaded = model_instance.get_deferred_fields()
    return {
        f.attname: getattr(model_instance, f.attname)
        for f in type(model_instance)._meta.concrete_fields
        if f.attname not in loaded
    }


def test_a_compiled_row_is_the_instance_the_orm_makes(orchard):
    session = _a_session(orchard)
    read = move_sql.session(session.pk)
    orm = (
        PlaySession.objects.select_related("instance__domain")
        .defer("instance__domain__data")
        .get(pk=session.pk)
    )
    for ours, theirs in (
        (read, orm),
        (read.instance, orm.instance),
        (read.instance.domain, orm.instance.domain),
    ):
        assert type(ours) is type(theirs)
        assert ours.get_deferred_fields() == theirs.get_deferred_fields()
        assert _fields(ours) == _fields(theirs)
        assert (ours._state.adding, ours._state.db) == (False, connection.alias)
    assert read.instance.domain.get_deferred_fields() == {"data"}
    # A deferred field loads on first access, as the ORM's does.
    assert read.instance.domain.data == Domain.objects.get(pk=read.instance.domain_id).data
    steps = move_sql.steps(read)
    assert [s.sent for s in steps] == [session.instance.actions[0]]
    assert steps[0].session is read and not steps[0].get_deferred_fields()


def test_a_model_with_an_init_receiver_is_built_through_the_orm(orchard):
    session = _a_session(orchard)
    seen = []

    def receiver(sender, instance, **kwargs):
        seen.append(instance)

    post_init.connect(receiver, sender=PlaySession)
    try:
        read = move_sql.session(session.pk)
    finally:
        post_init.disconnect(receiver, sender=PlaySession)
    assert seen == [read]
