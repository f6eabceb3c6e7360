"""LR²Bench's figures through the upload path: a model's replies uploaded as LR²Bench's own
``response.jsonl``, scored by the job, rebuilt into board rows by the recompute, read from
the self-reported rows a user sees; pinned to the figures LR²Bench's own evaluation code
gave on the same replies (``tests/families/lr2bench_reference.json``, written by
``benchmarks/lr2bench_fidelity.py`` on the synthetic items of ``tests/families/lr2bench_data``)."""

from __future__ import annotations

import json
from collections import defaultdict
from io import StringIO
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from rest_framework.test import APIClient

from engine.families import do_import_lr2bench
from leaderboard.models import FamilyBoardRow, FamilyReply, Submission

pytestmark = pytest.mark.django_db(transaction=True)

FAMILIES = Path(__file__).resolve().parent.parent / "families"
DATA = FAMILIES / "lr2bench_data"
REFERENCE = json.loads((FAMILIES / "lr2bench_reference.json").read_text(encoding="utf-8"))
FIGURES = {"CR": "cr", "S-Acc": "s_acc", "EM": "em", "PM-0.5": "pm05"}
VARIANTS = sorted({row["variant"] for row in REFERENCE})


def token_client(username: str) -> APIClient:
    out = StringIO()
    call_command("create_api_token", username, stdout=out, stderr=StringIO())
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {out.getvalue().strip()}")
    return client


def response_jsonl(replies: dict[str, str]) -> bytes:
    """The replies as LR²Bench's generation script writes them: a tag and a response a line."""
    return "".join(
        json.dumps({"tag": tag, "response": reply}) + "\n" for tag, reply in replies.items()
    ).encode("utf-8")


def test_the_board_rows_of_uploaded_replies_are_lr2benchs_own_figures(rebuild_board):
    report = do_import_lr2bench(str(DATA))
    assert report.problems == [] and report.items == sum(len(r["replies"]) for r in REFERENCE) / 5
    client = token_client("lr2-uploader")
    for row in REFERENCE:
        response = client.post(
            "/api/v1/family-submissions/",
            {
                "model": f"lr2-{row['variant']}",
                "family": "lr2bench",
                "format": "lr2bench",
                "kind": row["type"],
                "level": row["level"],
                "file": SimpleUploadedFile("response.jsonl", response_jsonl(row["replies"])),
            },
            format="multipart",
        )
        assert response.status_code == 201, response.content
        assert response.json()["status"] == Submission.Status.DONE
        assert response.json()["trajectory_count"] == len(row["replies"])
    assert FamilyReply.objects.count() == sum(len(row["replies"]) for row in REFERENCE)

    rebuild_board(full=True)

    board = {
        (r.player.removeprefix("lr2-"), r.kind, r.level): r
        for r in FamilyBoardRow.objects.filter(family="lr2bench", round__isnull=True)
    }
    assert set(board) == {(r["variant"], r["type"], r["level"]) for r in REFERENCE}
    for row in REFERENCE:
        board_row = board[(row["variant"], row["type"], row["level"])]
        assert board_row.player_kind == FamilyBoardRow.PlayerKind.SELF_REPORTED
        assert board_row.attempts == len(row["replies"])
        where = f"{row['type']} {row['level']} {row['variant']}"
        for theirs, ours in FIGURES.items():
            figure = getattr(board_row, ours)
            assert figure is not None, f"{where}: no {theirs}"
            assert round(figure, 3) == round(row["lr2bench"][theirs], 3), f"{where}: {theirs}"


def test_every_reply_variant_differs_somewhere_so_the_comparison_can_fail():
    """The fixture's variants are not all the published answer: a board that showed the same
    figures whatever was uploaded would fail the test above."""
    figures = defaultdict(set)
    for row in REFERENCE:
        figures[row["variant"]].add(tuple(row["lr2bench"][f] for f in FIGURES))
    assert len(VARIANTS) == 5
    assert len({frozenset(f) for f in figures.values()}) == 5
