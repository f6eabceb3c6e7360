"""The study bots rehearse a study against a live server (Daphne: HTTP and websockets):
20 simulated participants walk the whole path; careless and paste-happy ones are flagged for
the right reasons, careful ones pass, and the exports hold every recorded event."""

from __future__ import annotations

import csv
import json
from io import StringIO

import pytest
from channels.testing import ChannelsLiveServerTestCase
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import Client, override_settings

from engine.models import PlayStep
from humanstudy.bots import BOT_PREFIX, bot_kind
from humanstudy.models import Participant, StudySettings
from tests.browser.test_play_page import DaphneOnTestDatabase
from tests.humanstudy.conftest import build_study


@pytest.mark.browser  # a live server, as the browser tests (no browser is started)
# All twenty join from one address: the per-address limit is raised for the rehearsal.
@override_settings(STUDY_JOINS_PER_HOUR_PER_IP=50)
class StudyBotsTests(ChannelsLiveServerTestCase):
    ProtocolServerProcess = DaphneOnTestDatabase

    def setUp(self):
        super().setUp()
        build_study(participants=0)
        config = StudySettings.current()
        # The bots think 0.3 s per move: the speed rule is scaled to match.
        config.min_median_seconds_per_move = 0.2
        config.save()

    def test_twenty_bots_walk_the_study_and_the_filter_tells_them_apart(self):
        out, err = StringIO(), StringIO()
        call_command(
            "study_bots",
            "--url",
            self.live_server_url,
            "--count",
            "20",
            "--mix",
            "careful=12,careless=4,paste=4",
            "--think",
            "0.3",
            "--seed",
            "5",
            "--check",
            stdout=out,
            stderr=err,
        )
        report = out.getvalue()
        assert "20 bots, 8 flagged, 0 problem(s)" in report, report + err.getvalue()

        bots = Participant.objects.filter(label__startswith=BOT_PREFIX)
        assert bots.count() == 20
        assert all(p.stage == "complete" and p.completion_code for p in bots)
        by_kind = {
            kind: [p for p in bots if bot_kind(p.label) == kind]
            for kind in ("careful", "careless", "paste")
        }
        assert not any(p.flagged for p in by_kind["careful"])
        for p in by_kind["careless"]:
            reasons = " ".join(p.flag_reasons)
            assert "answered before any action" in reasons and "attention check" in reasons
        for p in by_kind["paste"]:
            reasons = " ".join(p.flag_reasons)
            assert "pasted" in reasons and "hidden or out of focus" in reasons

        # The exports hold every recorded event: each step (practice included) with the
        # page's report, and each participant's path.
        admin = Client()
        admin.force_login(User.objects.create_superuser("boss", "b@example.org", "pw-boss-1"))
        steps = json.loads(admin.get("/study/export/steps.json").content)
        stored = PlayStep.objects.filter(session__player__participant__in=bots)
        assert len(steps) == stored.count() > 20 * 11
        pasted = [
            s for s in steps if s["participant"] in {p.user.username for p in by_kind["paste"]}
        ]
        assert pasted and all(s["client_pastes"] == 1 for s in pasted)
        assert all(s["client_hidden_ms"] >= 30_000 for s in pasted)
        rows = list(
            csv.DictReader(StringIO(admin.get("/study/export/participants.csv").content.decode()))
        )
        mine = {row["label"]: row for row in rows if bot_kind(row["label"])}
        assert len(mine) == 20
        assert all(row["completion_code"] and row["questionnaire"] for row in mine.values())
        assert {
            row["attention_failed"] for label, row in mine.items() if bot_kind(label) == "careless"
        } == {"2"}


@pytest.mark.browser  # a live server, as the browser tests (no browser is started)
@override_settings(STUDY_JOINS_PER_HOUR_PER_IP=50)
class StudyBotsWithFamilyTasksTests(ChannelsLiveServerTestCase):
    ProtocolServerProcess = DaphneOnTestDatabase

    def setUp(self):
        super().setUp()
        from humanstudy.models import TaskSet

        build_study(participants=0)
        TaskSet.objects.all().delete()
        call_command(
            "build_task_sets", "--count", "1", "--seed", "3",
            "--family-task", "puzzles/sudoku/easy", "--family-task", "simple/logic/easy",
            "--family-task", "games/hanoi/easy", stdout=StringIO(),
        )  # fmt: skip
        call_command(
            "generate_tasks", "chemical", "--truths", "4", "--actions", "6", "--count", "4",
            stdout=StringIO(),
        )  # fmt: skip
        config = StudySettings.current()
        config.min_median_seconds_per_move = 0.05
        config.save()

    def test_bots_rehearse_a_set_with_family_tasks_through_its_pages(self):
        out, err = StringIO(), StringIO()
        call_command(
            "study_bots", "--url", self.live_server_url, "--count", "3",
            "--mix", "careful=1,careless=1,paste=1", "--think", "0.1", "--seed", "2",
            "--check", stdout=out, stderr=err,
        )  # fmt: skip
        report = out.getvalue()
        assert "3 bots, 2 flagged, 0 problem(s)" in report, report + err.getvalue()
        bots = Participant.objects.filter(label__startswith=BOT_PREFIX)
        assert all(p.stage == "complete" and p.completion_code for p in bots)
        from engine.models import FamilyAttempt

        attempts = FamilyAttempt.objects.filter(player__participant__in=bots)
        assert attempts.count() == 3 * 3 and all(a.finished_at for a in attempts)
        careful = next(p for p in bots if bot_kind(p.label) == "careful")
        assert all(a.correct for a in attempts.filter(player=careful.user))
        from engine.families import interactive_families

        for attempt in attempts:  # every answer and every move sent with the page's report
            if attempt.task.family in interactive_families():
                steps = list(attempt.steps.all())
                assert steps and all(step.client is not None for step in steps)
            else:
                assert attempt.client is not None
