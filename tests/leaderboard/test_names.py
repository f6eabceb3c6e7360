"""Model names (leaderboard.names): reserved built-in names, one name whatever its case, a
platform write never landing in an account's entry, a cap per account, the owner shown.

Each test plays the attack of issue 23 through the public interfaces (the API, the
management commands, the pages) and checks what the database holds afterwards.
"""

from __future__ import annotations

from io import StringIO

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client

from benchmark.models import EvaluationRun
from engine.models import FamilyAttempt, Instance
from leaderboard.models import (
    BoardRow,
    ModelEntry,
    ModelNameAllowance,
    RankedGame,
    Round,
    Submission,
    Trajectory,
)
from leaderboard.names import HUMANS
from leaderboard.recompute import recompute
from tests.leaderboard.test_trust import RANKED, perfect_lines, token_client, upload
from tests.rounds.helpers import prepare, run

pytestmark = pytest.mark.django_db(transaction=True)

RESERVED_TO_ACCOUNTS = ["oracle", "random", "greedy", HUMANS, "ORACLE", "Reference", "people"]


@pytest.fixture
def live(orchard):
    """A live round on orchard 5x4 with three ranked games per model."""
    prepare("live", "orchard", "5x4", 3, 100, "--ranked-games", "3")
    run("rotate_round")
    return Round.objects.get(name="live", status=Round.Status.ACTIVE)


@pytest.fixture
def seeds(orchard) -> list[int]:
    return sorted(Instance.objects.filter(domain__name="orchard").values_list("seed", flat=True))


def evaluate(*args: str) -> str:
    out = StringIO()
    call_command(
        "evaluate", "--domains", "orchard", "--truths", "5", "--actions", "4", *args,
        stdout=out, stderr=StringIO(),
    )  # fmt: skip
    return out.getvalue()


def start_ranked(client, model: str):
    return client.post("/api/v1/ranked-games/", {"model": model, **RANKED})


# 1. Reserved names ---------------------------------------------------------------------


@pytest.mark.parametrize("name", RESERVED_TO_ACCOUNTS)
def test_an_account_cannot_play_ranked_games_under_a_reserved_name(live, researcher, name):
    response = start_ranked(researcher, name)
    assert response.status_code == 403
    assert "reserved for the platform" in response.json()["error"]
    assert not ModelEntry.objects.exists() and not RankedGame.objects.exists()
    assert not Instance.objects.filter(source=Instance.Source.RANKED).exists()


@pytest.mark.parametrize("name", RESERVED_TO_ACCOUNTS)
def test_an_account_cannot_upload_under_a_reserved_name(researcher, seeds, name):
    response = upload(researcher, name, perfect_lines(seeds))
    assert response.status_code == 403
    assert "reserved for the platform" in response.json()["error"]
    assert not ModelEntry.objects.exists() and not Submission.objects.exists()


def test_staff_cannot_upload_under_a_reserved_name_either(researcher, seeds):
    User.objects.create_superuser("boss", "boss@example.org", "a long admin password")
    response = upload(token_client("boss"), "random", perfect_lines(seeds))
    assert response.status_code == 403 and "reserved" in response.json()["error"]
    assert not ModelEntry.objects.exists()


def test_the_platforms_baselines_create_their_own_ownerless_entries(orchard, admin_user):
    evaluate("--model", "oracle", "--runs", "1")
    entry = ModelEntry.objects.get(name="oracle")
    assert (entry.kind, entry.owner) == (ModelEntry.Kind.BASELINE, None)
    call_command(
        "run_family_tasks", "--model", "reference", "--kind", "math", "--count", "2",
        stdout=StringIO(),
    )  # fmt: skip
    reference = ModelEntry.objects.get(name="reference")
    assert (reference.kind, reference.owner) == (ModelEntry.Kind.BASELINE, None)
    assert FamilyAttempt.objects.filter(model_name="reference").count() == 2


# 2. A baseline or human write never lands in an account's entry -------------------------


@pytest.mark.parametrize(
    ("stored_name", "kind", "owned"),
    [
        ("oracle", ModelEntry.Kind.MODEL, True),
        ("Oracle", ModelEntry.Kind.MODEL, True),
        ("oracle", ModelEntry.Kind.BASELINE, True),
        ("oracle", ModelEntry.Kind.MODEL, False),
    ],
)
def test_evaluate_oracle_refuses_to_write_into_an_entry_of_another_owner_or_kind(
    orchard, admin_user, make_user, stored_name, kind, owned
):
    # An account's claim from before the names were reserved, put straight in the database.
    squatter = make_user("squatter") if owned else None
    entry = ModelEntry.objects.create(name=stored_name, kind=kind, owner=squatter)

    with pytest.raises(CommandError) as refused:
        evaluate("--model", "oracle", "--runs", "1")
    assert "nothing was written to it" in str(refused.value)
    assert not EvaluationRun.objects.exists() and not Submission.objects.exists()
    assert not Trajectory.objects.exists() and not BoardRow.objects.exists()
    entry.refresh_from_db()
    assert (entry.name, entry.kind, entry.owner) == (stored_name, kind, squatter)


def test_a_ranked_oracle_run_refuses_an_accounts_oracle_entry(live, admin_user, make_user):
    ModelEntry.objects.create(name="oracle", owner=make_user("squatter"))
    with pytest.raises(CommandError, match="nothing was written to it"):
        evaluate("--model", "oracle", "--ranked")
    assert not RankedGame.objects.exists() and not EvaluationRun.objects.exists()
    assert not Instance.objects.filter(source=Instance.Source.RANKED).exists()


def test_a_family_baseline_refuses_an_accounts_entry_of_its_name(orchard, make_user):
    ModelEntry.objects.create(name="Reference", owner=make_user("squatter"))
    with pytest.raises(CommandError, match="nothing was written to it"):
        call_command(
            "run_family_tasks", "--model", "reference", "--kind", "math", "--count", "2",
            stdout=StringIO(),
        )  # fmt: skip
    assert not FamilyAttempt.objects.filter(model_name__iexact="reference").exists()


def test_the_study_never_writes_the_human_row_into_an_accounts_entry(researcher, seeds):
    upload(researcher, "alpha", perfect_lines(seeds))
    alpha = ModelEntry.objects.get(name="alpha")
    # An account's entry holding the human row's name (from before it was reserved).
    ModelEntry.objects.filter(pk=alpha.pk).update(name=HUMANS, name_key=HUMANS.casefold())
    before = list(Trajectory.objects.filter(model=alpha).values_list("pk", flat=True))
    assert before

    recompute(full=True)  # rebuilds the human baseline first

    squatted = ModelEntry.objects.get(pk=alpha.pk)
    assert (squatted.kind, squatted.owner.username) == ("model", "researcher")
    assert list(Trajectory.objects.filter(model=alpha).values_list("pk", flat=True)) == before
    assert ModelEntry.objects.count() == 1


# 3. Unique after normalisation ----------------------------------------------------------


@pytest.mark.parametrize("variant", ["ALPHA", "Alpha", "ａｌｐｈａ"])
def test_another_account_cannot_take_a_name_in_another_case(live, researcher, seeds, variant):
    assert upload(researcher, "alpha", perfect_lines(seeds)).status_code == 201
    rival = token_client("rival")
    taken = upload(rival, variant, perfect_lines(seeds))
    if variant.isascii():
        assert taken.status_code == 403
        assert "belongs to another account (as 'alpha'" in taken.json()["error"]
        ranked = start_ranked(rival, variant)
        assert ranked.status_code == 403 and "belongs to another account" in ranked.json()["error"]
    else:  # not even a valid name: ASCII only
        assert taken.status_code == 400
    assert list(ModelEntry.objects.values_list("name", "owner__username")) == [
        ("alpha", "researcher")
    ]
    assert not RankedGame.objects.exists()


def test_the_owner_using_its_name_in_another_case_gets_its_own_entry(live, researcher, seeds):
    assert upload(researcher, "alpha", perfect_lines(seeds[:1])).status_code == 201
    again = upload(researcher, "ALPHA", perfect_lines(seeds[1:]))
    assert again.status_code == 201 and again.json()["model"] == "alpha"
    ranked = start_ranked(researcher, "Alpha")
    assert ranked.status_code == 201 and ranked.json()["model"] == "alpha"
    assert ModelEntry.objects.count() == 1
    listed = researcher.get("/api/v1/ranked-games/", {"model": "ALPHA"}).json()
    assert [game["model"] for game in listed] == ["alpha"]


def test_the_admin_refuses_a_name_taken_in_another_case(orchard, make_user):
    ModelEntry.objects.create(name="alpha", owner=make_user("first"))
    User.objects.create_superuser("boss", "boss@example.org", "a long admin password")
    staff = Client()
    staff.force_login(User.objects.get(username="boss"))
    page = staff.post(
        "/admin/leaderboard/modelentry/add/", {"name": "ALPHA", "kind": "model", "provider": ""}
    )
    assert page.status_code == 200 and "names ignore case" in page.content.decode()
    reserved = staff.post(
        "/admin/leaderboard/modelentry/add/", {"name": "Greedy", "kind": "model", "provider": ""}
    )
    assert "reserved for the platform" in reserved.content.decode()
    assert list(ModelEntry.objects.values_list("name", flat=True)) == ["alpha"]


# 4. A cap on names per account ----------------------------------------------------------


def test_an_account_may_own_only_its_cap_of_names_unless_staff_raise_it(
    live, researcher, seeds, settings
):
    settings.MODEL_NAMES_PER_ACCOUNT = 2
    for name in ("m1", "m2"):
        assert upload(researcher, name, perfect_lines(seeds)).status_code == 201
    refused = upload(researcher, "m3", perfect_lines(seeds))
    assert refused.status_code == 403
    error = refused.json()["error"]
    assert "already owns 2 model name(s), its cap" in error and "MODEL_NAMES_PER_ACCOUNT" in error
    ranked = start_ranked(researcher, "m3")
    assert ranked.status_code == 403 and "its cap" in ranked.json()["error"]
    assert not Instance.objects.filter(source=Instance.Source.RANKED).exists()
    # Its own names stay usable.
    assert start_ranked(researcher, "M1").status_code == 201

    # Staff raise the cap for this account in the admin.
    User.objects.create_superuser("boss", "boss@example.org", "a long admin password")
    staff = Client()
    staff.force_login(User.objects.get(username="boss"))
    researcher_pk = User.objects.get(username="researcher").pk
    added = staff.post(
        "/admin/leaderboard/modelnameallowance/add/",
        {"user": researcher_pk, "names": 3, "note": "a lab with three models"},
    )
    assert added.status_code == 302
    assert ModelNameAllowance.objects.get(user_id=researcher_pk).names == 3
    assert upload(researcher, "m3", perfect_lines(seeds)).status_code == 201
    assert upload(researcher, "m4", perfect_lines(seeds)).status_code == 403
    assert ModelEntry.objects.filter(owner_id=researcher_pk).count() == 3

    # Staff accounts have no cap.
    boss = token_client("boss")
    for name in ("s1", "s2", "s3"):
        assert upload(boss, name, perfect_lines(seeds)).status_code == 201


def test_the_family_runner_claims_its_name_under_the_same_cap(orchard, make_user, settings):
    settings.MODEL_NAMES_PER_ACCOUNT = 0
    make_user("runner")
    with pytest.raises(CommandError, match="its cap"):
        call_command(
            "run_family_tasks", "--model", "gpt-9", "--base-url", "http://127.0.0.1:9/v1",
            "--kind", "math", "--count", "1", stdout=StringIO(),
        )  # fmt: skip
    assert not ModelEntry.objects.exists() and not FamilyAttempt.objects.exists()


# 5. The owner on the board and the model page -------------------------------------------


def test_the_board_the_api_and_the_model_page_show_the_owner(
    orchard, researcher, seeds, admin_user
):
    upload(researcher, "alpha", perfect_lines(seeds))
    evaluate("--model", "oracle", "--runs", "1")
    sly = User.objects.create_user("<i>sly</i>")
    ModelEntry.objects.filter(name="alpha").update(owner=sly)

    html = Client().get("/leaderboard/", {"setting": "5x4", "round": "all"}).content.decode()
    assert '<td class="owner" data-value="platform">platform</td>' in html
    assert "&lt;i&gt;sly&lt;/i&gt;" in html and "<i>sly</i>" not in html

    rows = Client().get("/api/v1/leaderboard/", {"truths": 5, "actions": 4, "round": "all"})
    assert {(row["model"], row["owner"]) for row in rows.json()} == {
        ("alpha", "<i>sly</i>"),
        ("oracle", "platform"),
    }

    alpha = ModelEntry.objects.get(name="alpha")
    page = Client().get(f"/leaderboard/models/{alpha.pk}/").content.decode()
    assert '<dd class="owner">&lt;i&gt;sly&lt;/i&gt;</dd>' in page


def test_the_families_board_shows_the_owner(orchard, make_user):
    call_command(
        "run_family_tasks", "--model", "reference", "--kind", "math", "--count", "2",
        stdout=StringIO(),
    )  # fmt: skip
    html = Client().get("/leaderboard/families/").content.decode()
    assert '<td>reference</td><td class="owner">platform</td>' in html


# The data migration: names that collide after normalisation, reserved names held by accounts


def test_the_key_migration_keeps_the_oldest_name_and_renames_the_rest(transactional_db):
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    before = [("leaderboard", "0013_model_name_key_and_allowance")]
    executor = MigrationExecutor(connection)
    executor.migrate(before)
    old_apps = executor.loader.project_state(before).apps
    OldEntry = old_apps.get_model("leaderboard", "ModelEntry")
    bob = old_apps.get_model("auth", "User").objects.create(username="bob")
    made = {}
    for name, kind, owner in [
        ("alpha", "model", bob),
        ("ALPHA", "model", None),
        ("Alpha", "model", bob),
        ("oracle", "model", bob),  # an account's claim of a built-in's name
        ("Oracle", "baseline", None),  # the platform's own
        ("Humans (study)", "model", bob),
        ("beta", "model", bob),
    ]:
        made[name] = OldEntry.objects.create(name=name, kind=kind, owner=owner).pk

    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())

    names = dict(ModelEntry.objects.values_list("pk", "name"))
    assert names[made["alpha"]] == "alpha" and names[made["beta"]] == "beta"
    assert names[made["ALPHA"]] == f"ALPHA (renamed {made['ALPHA']})"
    assert names[made["Alpha"]] == f"Alpha (renamed {made['Alpha']})"
    assert names[made["Oracle"]] == "Oracle"
    assert names[made["oracle"]] == f"oracle (renamed {made['oracle']})"
    assert names[made["Humans (study)"]] == f"Humans (study) (renamed {made['Humans (study)']})"
    keys = list(ModelEntry.objects.values_list("name_key", flat=True))
    assert len(set(keys)) == len(keys) == 7 and "alpha" in keys and "oracle" in keys
