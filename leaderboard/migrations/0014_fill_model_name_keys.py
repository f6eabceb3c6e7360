"""Model names unique after normalisation (step 2 of 3): fill every entry's key.

Entries whose names are one name after normalisation (``ALPHA`` and ``alpha``) cannot all
keep it: the oldest keeps its name, each other one is renamed "<name> (renamed <id>)".
Built-in names (oracle, random, greedy, reference, blank, Humans (study), People) are kept
only by the platform's entry of that kind with no owner; any other entry holding one (an
account's claim of "oracle") is renamed the same way, so the platform's baseline and human
rows can never be written into it. Every rename is printed. Nothing is deleted.

The key function and the reserved names are frozen copies (of ``leaderboard.models``'
``model_name_key`` and ``leaderboard.names``): a migration must not change with the code.
"""

import unicodedata
from collections import defaultdict

from django.db import migrations

NAME_MAX = 100  # leaderboard.models.MODEL_NAME_MAX
RESERVED = {
    "oracle": "baseline",
    "random": "baseline",
    "greedy": "baseline",
    "reference": "baseline",
    "blank": "baseline",
    "humans (study)": "human",
    "people": "human",
}


def name_key(name):
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name or "").casefold())
    return " ".join(folded.split())


def free_name(name, pk, taken):
    """A name for entry ``pk`` whose key no other entry has (and then taken)."""
    base = (name or "").strip() or f"model {pk}"
    for attempt in range(1000):
        suffix = f" (renamed {pk})" if attempt == 0 else f" (renamed {pk}-{attempt})"
        candidate = base[: NAME_MAX - len(suffix)].rstrip() + suffix
        if name_key(candidate) not in taken:
            taken.add(name_key(candidate))
            return candidate
    raise RuntimeError(f"no free name for model entry {pk}")  # pragma: no cover


def fill_keys(apps, schema_editor):
    ModelEntry = apps.get_model("leaderboard", "ModelEntry")
    groups = defaultdict(list)
    for entry in ModelEntry.objects.order_by("created_at", "pk"):
        groups[name_key(entry.name)].append(entry)
    taken = set(groups)
    for key, entries in groups.items():
        platform_kind = RESERVED.get(key)
        if platform_kind is None:
            keeper = entries[0]  # the oldest
            why = f"the same name as entry {keeper.pk} {keeper.name!r} (the oldest), ignoring case"
        else:
            keeper = next(
                (e for e in entries if e.kind == platform_kind and e.owner_id is None), None
            )
            why = f"a name reserved for the platform's {platform_kind} row"
        for entry in entries:
            if entry is keeper:
                entry.name_key = key
                entry.save(update_fields=["name_key"])
                continue
            old = entry.name
            entry.name = free_name(old, entry.pk, taken)
            entry.name_key = name_key(entry.name)
            entry.save(update_fields=["name", "name_key"])
            print(
                f"\n  leaderboard: model entry {entry.pk} renamed from {old!r} to "
                f"{entry.name!r} ({why})"
            )


class Migration(migrations.Migration):
    dependencies = [
        ('leaderboard', '0013_model_name_key_and_allowance'),
    ]

    operations = [migrations.RunPython(fill_keys, migrations.RunPython.noop)]
