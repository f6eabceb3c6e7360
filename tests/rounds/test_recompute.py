"""The cached board per round: incremental and full recomputes agree, and a round's rows
cover only the round's pinned instances (so only its domains and settings)."""

from __future__ import annotations

import pytest

from leaderboard.models import BoardRow, Round, StaleGroup
from leaderboard.recompute import recompute
from tests.rounds.helpers import prepare, run, submit

pytestmark = pytest.mark.django_db(transaction=True)

METRICS = (
    "trajectories",
    "instances",
    "success_rate",
    "success_ci_low",
    "success_ci_high",
    "relative_action_count",
    "relative_ci_low",
    "relative_ci_high",
    "relative_action_count_successful",
    "parse_error_rate",
    "mean_tokens",
    "disagreements",
)


def board() -> dict[tuple, tuple]:
    return {
        (row[0], row[1], row[2], row[3], row[4]): row[5:]
        for row in BoardRow.objects.values_list(
            "round__name", "model__name", "domain__name", "n_truths", "n_actions", *METRICS
        )
    }


@pytest.fixture
def two_rounds(clock, grove, researcher):
    """Round old (orchard 4x6, seeds 100-102) closed; round new (orchard + grove 4x6, seeds
    200-202) active. alpha played both rounds' orchard instances and the fixture's orchard
    5x4 instances, which belong to no round."""
    prepare("old", "orchard", "4x6", 3, 100)
    run("rotate_round")
    prepare("new", "orchard,grove", "4x6", 3, 200)
    run("rotate_round")
    submit(
        researcher,
        "alpha",
        "orchard",
        (4, 6),
        {100: True, 101: False, 102: True, 200: False, 201: False, 202: True},
    )
    submit(researcher, "alpha", "orchard", (5, 4), {0: True, 1: True, 2: False})
    submit(researcher, "beta", "grove", (4, 6), {200: True, 201: True, 202: True})
    return researcher


def test_each_round_counts_only_its_own_instances(two_rounds):
    rows = board()
    old, new = Round.objects.get(name="old"), Round.objects.get(name="new")
    assert old.status == Round.Status.CLOSED and new.status == Round.Status.ACTIVE
    # alpha on orchard 4x6: 2/3 in the old round, 1/3 in the new, 3/6 across rounds.
    assert rows[("old", "alpha", "orchard", 4, 6)][:3] == (3, 3, pytest.approx(2 / 3))
    assert rows[("new", "alpha", "orchard", 4, 6)][:3] == (3, 3, pytest.approx(1 / 3))
    assert rows[(None, "alpha", "orchard", 4, 6)][:3] == (6, 6, 0.5)
    # The 5x4 games belong to no round: they appear only across rounds.
    assert (None, "alpha", None, 5, 4) in rows
    assert not [key for key in rows if key[0] is not None and key[3:] == (5, 4)]
    # A round's aggregate covers the round's domains only: beta's grove games are not in
    # the old round (orchard only).
    assert ("new", "beta", None, 4, 6) in rows and ("old", "beta", None, 4, 6) not in rows
    assert set(rows) == {
        ("old", "alpha", "orchard", 4, 6),
        ("old", "alpha", None, 4, 6),
        ("new", "alpha", "orchard", 4, 6),
        ("new", "alpha", None, 4, 6),
        ("new", "beta", "grove", 4, 6),
        ("new", "beta", None, 4, 6),
        (None, "alpha", "orchard", 4, 6),
        (None, "alpha", None, 4, 6),
        (None, "alpha", "orchard", 5, 4),
        (None, "alpha", None, 5, 4),
        (None, "beta", "grove", 4, 6),
        (None, "beta", None, 4, 6),
    }


def test_incremental_and_full_recomputes_agree(two_rounds):
    # Every row so far was built incrementally (after each submission and the rotations).
    incremental = board()
    recompute(full=True)
    assert board() == incremental
    # A newer file for one group is picked up incrementally, in every round it touches.
    submit(two_rounds, "alpha", "orchard", (4, 6), dict.fromkeys((100, 101, 102, 200), True))
    assert not StaleGroup.objects.exists()
    incremental = board()
    assert incremental[("old", "alpha", "orchard", 4, 6)][:3] == (3, 3, 1.0)
    assert incremental[("new", "alpha", "orchard", 4, 6)][:3] == (1, 1, 1.0)
    recompute(full=True)
    assert board() == incremental
    # Running again with nothing stale changes nothing.
    assert recompute().board_rows == 0 and board() == incremental


def test_a_prepared_rounds_instances_count_only_once_it_is_live(clock, grove, researcher):
    prepare("first", "orchard", "4x6", 2, 100)
    # Invisible before it goes live: a file naming its seeds names no instance.
    submit(researcher, "alpha", "orchard", (4, 6), {100: True, 101: False}, expect=422)
    assert not BoardRow.objects.filter(round__isnull=False).exists()
    run("rotate_round")
    submit(researcher, "alpha", "orchard", (4, 6), {100: True, 101: False})
    row = BoardRow.objects.get(round__name="first", model__name="alpha", domain=None)
    assert (row.trajectories, row.success_rate) == (2, 0.5)


def test_a_recompute_that_dies_midway_loses_no_stale_group(two_rounds, monkeypatch, staff):
    from leaderboard import recompute as module
    from leaderboard.models import ModelEntry

    before = board()
    alpha = ModelEntry.objects.get(name="alpha")
    marked = {(m.domain_id, m.n_truths, m.n_actions) for m in StaleGroup.objects.all()}
    assert not marked  # everything was recomputed after each submission
    # A new result arrives; the job recomputing it dies before it commits (the worker is
    # killed in its last step). Its claim on the stale groups and its rows go together.
    monkeypatch.setattr(module, "_board_rows", lambda *a, **k: [])  # rows are not the point

    def die():
        raise SystemExit("worker killed")

    monkeypatch.setattr(module, "recompute_correlations", die)
    from leaderboard.actions import mark_stale

    row = BoardRow.objects.filter(model=alpha, domain__isnull=False).first()
    mark_stale(alpha.pk, row.domain_id, row.n_truths, row.n_actions)
    with pytest.raises(SystemExit):
        recompute()
    assert StaleGroup.objects.filter(model=alpha).count() == 1  # still queued
    assert board() == before  # nothing half-written
    # Staff see the job's queue, with the group and since when it waits.
    queue = staff.get("/admin/leaderboard/stalegroup/").content.decode()
    assert "alpha" in queue and f"{row.n_truths}/{row.n_actions}" in queue
    # The next run (beat's, every ten minutes) picks it up.
    monkeypatch.undo()
    assert recompute().groups == 1 and not StaleGroup.objects.exists()
    assert board() == before
    assert "0 stale groups" in staff.get("/admin/leaderboard/stalegroup/").content.decode()
