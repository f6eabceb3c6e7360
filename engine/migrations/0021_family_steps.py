"""A game's moves become rows (``FamilyStep``) in place of the list on the attempt.

Each stored move becomes an accepted step. What the old rows did not keep is filled in so
that the totals stay what they were: the attempt's time is shared evenly among its moves
(an unfinished attempt's moves get 0 ms), and the page's reports, which the old rows kept
summed over the game, go on the last move with the earlier moves reported as empty (a
game that had no report keeps none on any move). Refused moves were only counted then;
the count stays on the attempt.
"""

import datetime

import django.db.models.deletion
from django.db import migrations, models


def moves_to_steps(apps, schema_editor):
    FamilyAttempt = apps.get_model("engine", "FamilyAttempt")
    FamilyStep = apps.get_model("engine", "FamilyStep")
    games = FamilyAttempt.objects.exclude(moves=[]).only(
        "pk", "moves", "started_at", "elapsed_ms", "client"
    )
    batch = []
    for attempt in games.iterator(chunk_size=500):
        moves = [str(move) for move in attempt.moves or []]
        if not moves:
            continue
        share = (attempt.elapsed_ms or 0) // len(moves)
        at = attempt.started_at
        for index, move in enumerate(moves):
            at = at + datetime.timedelta(milliseconds=share)
            last = index == len(moves) - 1
            if attempt.client is None:
                client = None
            elif last:
                client = attempt.client
            else:
                client = {name: 0 for name in attempt.client if name != "first_input_ms"}
            batch.append(
                FamilyStep(
                    attempt_id=attempt.pk,
                    index=index,
                    move=move,
                    accepted=True,
                    created_at=at,
                    elapsed_ms=share,
                    client=client,
                )
            )
        if len(batch) >= 2000:
            FamilyStep.objects.bulk_create(batch)
            batch = []
    FamilyStep.objects.bulk_create(batch)
    # The games' reports now live on their steps.
    FamilyAttempt.objects.exclude(moves=[]).update(client=None)


def steps_to_moves(apps, schema_editor):
    FamilyAttempt = apps.get_model("engine", "FamilyAttempt")
    FamilyStep = apps.get_model("engine", "FamilyStep")
    moves: dict[int, list[str]] = {}
    for attempt_id, move in (
        FamilyStep.objects.filter(accepted=True)
        .order_by("attempt_id", "index")
        .values_list("attempt_id", "move")
    ):
        moves.setdefault(attempt_id, []).append(move)
    for attempt_id, played in moves.items():
        FamilyAttempt.objects.filter(pk=attempt_id).update(moves=played)


class Migration(migrations.Migration):
    dependencies = [
        ("engine", "0020_session_watchers"),
    ]

    operations = [
        migrations.CreateModel(
            name="FamilyStep",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("index", models.PositiveIntegerField()),
                ("move", models.TextField()),
                ("accepted", models.BooleanField()),
                ("error", models.CharField(blank=True, max_length=500)),
                ("created_at", models.DateTimeField()),
                ("elapsed_ms", models.PositiveIntegerField()),
                ("client", models.JSONField(blank=True, default=None, null=True)),
                (
                    "attempt",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="steps",
                        to="engine.familyattempt",
                    ),
                ),
            ],
            options={
                "ordering": ["attempt_id", "index"],
                "constraints": [
                    models.UniqueConstraint(
                        fields=("attempt", "index"), name="one_family_step_per_index"
                    )
                ],
            },
        ),
        migrations.RunPython(moves_to_steps, steps_to_moves),
        migrations.RemoveField(model_name="familyattempt", name="moves"),
    ]
