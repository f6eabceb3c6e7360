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


def _aliases():
    """(family, kind, old name, current name) for every renamed level."""
    from engine.core.families.base import all_families

    found = []
    for family in all_families().values():
        for kind in family.kinds.values():
            for old, current in getattr(kind.levels, "aliases", {}).items():
                found.append((family.name, kind.name, old, current))
    return found


def rename(apps, schema_editor):
    FamilyTask = apps.get_model("engine", "FamilyTask")
    FamilyPracticeRequest = apps.get_model("engine", "FamilyPracticeRequest")
    RankedFamilyAttempt = apps.get_model("leaderboard", "RankedFamilyAttempt")
    FamilyReply = apps.get_model("leaderboard", "FamilyReply")
    FamilyBoardRow = apps.get_model("leaderboard", "FamilyBoardRow")
    FamilyStaleGroup = apps.get_model("leaderboard", "FamilyStaleGroup")
    aliases = _aliases()
    for family, kind, old, new in aliases:
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
