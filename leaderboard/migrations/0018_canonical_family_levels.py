"""Store every family level under its current name.

A puzzle kind's levels were renamed (e.g. a sudoku's ``easy`` is now ``4x4``) and the old
names kept as aliases, so a round, a study set or a ranked request naming a level the old
way still worked, but stored its tasks and attempts under the old name: the board then
counted one level as two rows. From now on every level is stored under its current name
(``engine.families.canonical_level``); this migration renames what was stored before —
tasks, practice requests, ranked attempts and uploaded replies — and has the board's rows
of the old names rebuilt under the new ones. A round's declared family tasks keep the name
they were given: its secret seeds derive from it.

Undoing it keeps the current names: an old name still resolves to its level.
"""

from django.db import migrations
from django.utils import timezone


# (family, kind, former name, current name) of every renamed level when this migration was
# written, frozen here: a migration must do the same whatever the code becomes later.
ALIASES = [
    ("puzzles", "sudoku", "easy", "4x4"),
    ("puzzles", "sudoku", "4x4_hard", "4x4-hard"),
    ("puzzles", "sudoku", "medium", "9x9"),
    ("puzzles", "sudoku", "hard", "9x9-minimal"),
    ("puzzles", "sudoku", "expert", "16x16"),
    ("puzzles", "logic_grid", "easy", "3x3"),
    ("puzzles", "logic_grid", "medium", "4x4"),
    ("puzzles", "logic_grid", "hard", "4x6"),
    ("puzzles", "logic_grid", "expert", "6x7"),
    ("puzzles", "cryptogram", "easy", "120-chars-3-hints"),
    ("puzzles", "cryptogram", "medium", "80-chars-3-hints"),
    ("puzzles", "cryptogram", "hard", "60-chars-0-hints"),
    ("puzzles", "cryptogram", "expert", "60-chars-0-hints"),
    ("puzzles", "dropquote", "easy", "15-columns"),
    ("puzzles", "dropquote", "medium", "15-columns"),
    ("puzzles", "dropquote", "hard", "20-columns"),
    ("puzzles", "dropquote", "expert", "24-columns"),
    ("puzzles", "crossword", "easy", "5x5"),
    ("puzzles", "crossword", "medium", "10x10"),
    ("puzzles", "crossword", "hard", "15x15"),
    ("puzzles", "acrostic", "easy", "72-162-letters"),
    ("puzzles", "acrostic", "medium", "72-162-letters"),
    ("puzzles", "acrostic", "hard", "172-258-letters"),
]


def rename(apps, schema_editor):
    FamilyTask = apps.get_model("engine", "FamilyTask")
    FamilyPracticeRequest = apps.get_model("engine", "FamilyPracticeRequest")
    RankedFamilyAttempt = apps.get_model("leaderboard", "RankedFamilyAttempt")
    FamilyReply = apps.get_model("leaderboard", "FamilyReply")
    FamilyBoardRow = apps.get_model("leaderboard", "FamilyBoardRow")
    FamilyStaleGroup = apps.get_model("leaderboard", "FamilyStaleGroup")
    for family, kind, old, new in ALIASES:
        group = {"family": family, "kind": kind}
        FamilyTask.objects.filter(level=old, **group).update(level=new)
        FamilyReply.objects.filter(level=old, **group).update(level=new)
        in_flight = ("pending", "running")
        FamilyPracticeRequest.objects.filter(level=old, **group).exclude(
            status__in=in_flight
        ).update(level=new)
        for request in FamilyPracticeRequest.objects.filter(
            level=old, status__in=in_flight, **group
        ):
            taken = FamilyPracticeRequest.objects.filter(
                player_id=request.player_id, level=new, status__in=in_flight, **group
            )
            if not taken.exists():
                FamilyPracticeRequest.objects.filter(pk=request.pk).update(level=new)
        for ranked in RankedFamilyAttempt.objects.filter(level=old, **group):
            taken = RankedFamilyAttempt.objects.filter(
                round_id=ranked.round_id, model_id=ranked.model_id, level=new,
                number=ranked.number, **group,
            )  # fmt: skip
            if not taken.exists():  # a round that declared both names keeps the old one
                RankedFamilyAttempt.objects.filter(pk=ranked.pk).update(level=new)
        stale = FamilyBoardRow.objects.filter(level=old, **group).exists()
        stale |= FamilyStaleGroup.objects.filter(level=old, **group).exists()
        FamilyBoardRow.objects.filter(level=old, **group).delete()
        FamilyStaleGroup.objects.filter(level=old, **group).delete()
        if stale:
            FamilyStaleGroup.objects.update_or_create(
                level=new, defaults={"marked_at": timezone.now()}, **group
            )


class Migration(migrations.Migration):
    dependencies = [
        ("leaderboard", "0017_family_results_files"),
        ("engine", "0022_attempt_turns"),
    ]

    operations = [migrations.RunPython(rename, migrations.RunPython.noop)]
