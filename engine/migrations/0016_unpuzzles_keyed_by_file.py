"""Unpuzzles tasks are keyed by file, item and reading (issue 24).

Tasks imported before were keyed by the item's index alone, so importing unpuzzles.json and
shifted_unpuzzles.json made their items overwrite each other. This migration gives every
such task its new key, in place (same row, so its attempts stay attached and nothing is
lost):

1. its file: a ``shifted`` task is from ``shifted_unpuzzles``; an ``original`` or
   ``unpuzzle`` task is from ``shifted_unpuzzles`` when a ``shifted`` task of the same item
   tells the same puzzle (same name), otherwise from ``unpuzzles``. This is what the last
   import left in the row, whichever file came last;
2. its reading: ``deepmind`` (the default reading, which is also its level now);
3. the board groups of both the old level ("") and the new one are marked stale, so the
   board job rebuilds them.

Attempts keep the result they were given when they were scored.
"""

from __future__ import annotations

import json

from django.db import migrations


def key(params: dict) -> str:
    return json.dumps(params, sort_keys=True, separators=(",", ":"))


def rekey(apps, schema_editor):
    task_model = apps.get_model("engine", "FamilyTask")
    stale = apps.get_model("leaderboard", "FamilyStaleGroup")
    old = [t for t in task_model.objects.filter(family="unpuzzles") if "file" not in t.params]
    if not old:
        return
    shifted_names = {t.seed: t.hidden.get("name") for t in old if t.kind == "shifted"}
    kinds = set()
    for task in old:
        item = task.params.get("item", task.seed)
        same_puzzle = shifted_names.get(task.seed) == task.hidden.get("name")
        if task.kind == "shifted" or (task.seed in shifted_names and same_puzzle):
            file = "shifted_unpuzzles"
        else:
            file = "unpuzzles"
        params = {"file": file, "item": item, "reading": "deepmind"}
        task_model.objects.filter(pk=task.pk).update(
            params=params, params_key=key(params), level="deepmind"
        )
        kinds.add(task.kind)
    for kind in kinds:
        for level in ("", "deepmind"):
            stale.objects.get_or_create(family="unpuzzles", kind=kind, level=level)


class Migration(migrations.Migration):
    dependencies = [
        ("engine", "0015_merge_practice_requests_and_study"),
        ("leaderboard", "0016_merge_board_rows_and_names"),
    ]

    operations = [migrations.RunPython(rekey, migrations.RunPython.noop)]
