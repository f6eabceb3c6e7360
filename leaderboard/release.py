"""Import a whole KUMO release in one process: domains, instances and every results file.

``import_release`` is what ``python manage.py import_kumo_release`` runs; the steps are:

1. Find the files (``engine.core.families.kumo.kumo_release.find_release_files``).
2. Domains: each ``*_data.py`` module, strict where our validator accepts it, in the marked
   KUMO-compatible mode where not (``engine.actions.do_import_release_domain``).
3. Instances: each instance file, read as the original code read it
   (``engine.actions.do_store_release_instances``).
4. Results: each file goes through the ordinary upload path (``submit_results``, scored at
   once), as the release's account; with ``repair`` the published files are repaired
   instead of refused. The published oracle's files (``results/search_results``) also give
   each instance its published oracle action count.
5. One board recompute at the end.

Running it again changes nothing: domains, instances and files (by content hash) already
stored are recognised and counted as unchanged.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from django.contrib.auth.models import User
from django.db import transaction

from engine.actions import (
    EngineError,
    do_import_release_domain,
    do_store_release_instances,
)
from engine.core.families.kumo.domain_io import DomainError
from engine.core.families.kumo.kumo_release import (
    ReleaseDomain,
    ReleaseFile,
    find_release_files,
    json_lines,
    model_name,
    read_release_domain,
)
from engine.core.families.kumo.metrics import kumo_record_to_information_actions
from engine.models import Domain, Instance
from leaderboard.actions import SubmissionError, deferred_recompute, submit_results
from leaderboard.models import ModelNameAllowance, Submission

RELEASE_ACCOUNT = "kumo-release"
# Model names the release account may own (one per published model and agent).
RELEASE_NAMES = 1000


@dataclass
class ReleaseReport:
    """What an import did, per kind of file, and every file skipped or refused with why."""

    counts: Counter = field(default_factory=Counter)
    skipped: list[str] = field(default_factory=list)
    warnings: dict[str, list[str]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    repaired: dict[str, list[dict]] = field(default_factory=dict)
    refused: dict[str, list[str]] = field(default_factory=dict)

    def lines(self, *, verbose: bool = False) -> list[str]:
        out = ["counts:"]
        out += [f"  {key}: {value}" for key, value in sorted(self.counts.items())]
        out.append(f"KUMO-compatible domains ({len(self.warnings)}):")
        for name, warnings in sorted(self.warnings.items()):
            out.append(f"  {name}: {len(warnings)} warning(s)")
            out += [f"    - {w}" for w in warnings[: None if verbose else 3]]
            if not verbose and len(warnings) > 3:
                out.append(f"    … {len(warnings) - 3} more")
        out.append(f"instance notes: {len(self.notes)}")
        out += [f"  {note}" for note in self.notes[: None if verbose else 20]]
        if not verbose and len(self.notes) > 20:
            out.append(f"  … {len(self.notes) - 20} more (--verbose lists all)")
        out.append(f"repaired files ({len(self.repaired)}):")
        for path, repairs in sorted(self.repaired.items()):
            out.append(f"  {path}")
            out += [f"    line {r['line']}: {r['what']}" for r in repairs]
        out.append(f"refused files ({len(self.refused)}):")
        for path, problems in sorted(self.refused.items()):
            out.append(f"  {path}: " + "; ".join(problems[:3]))
        out.append(f"skipped ({len(self.skipped)}):")
        out += [f"  {line}" for line in self.skipped]
        return out


def release_account() -> User:
    """The account a release's results are filed under. It owns one model name per
    published model and agent, more than an account's default cap (leaderboard.names), so
    it gets an allowance of names, visible and editable in the admin like any other."""
    user, created = User.objects.get_or_create(username=RELEASE_ACCOUNT)
    if created:
        user.set_unusable_password()
        user.save(update_fields=["password"])
    ModelNameAllowance.objects.get_or_create(
        user=user,
        defaults={"names": RELEASE_NAMES, "note": "the KUMO release's published models"},
    )
    return user


def import_release(
    root: Path,
    *,
    repair: bool = False,
    progress: Callable[[Iterable[ReleaseFile]], Iterable[ReleaseFile]] = lambda files: files,
) -> ReleaseReport:
    """Import everything under ``root``; see the module docstring for the steps."""
    report = ReleaseReport()
    files, skipped = find_release_files(Path(root))
    report.skipped.extend(skipped)
    releases: dict[str, ReleaseDomain] = {}
    rows: dict[str, Domain] = {}
    user = release_account()
    published_oracle: list[ReleaseFile] = []
    with deferred_recompute():
        for item in progress(files):
            relative = str(item.path.relative_to(root))
            if item.kind == "domain":
                _import_domain(item, relative, report, releases, rows)
            elif item.kind == "instances":
                _import_instances(item, relative, report, releases, rows)
            else:
                if item.model == "kumo-oracle-search":
                    published_oracle.append(item)
                _import_results(item, relative, report, rows, user, repair)
        for item in published_oracle:
            _record_published_oracle(item, report, rows)
    return report


def _import_domain(item, relative, report, releases, rows) -> None:
    try:
        release = read_release_domain(item.path.read_text(encoding="utf-8"), item.domain)
        row, changed = do_import_release_domain(release)
    except (DomainError, EngineError) as error:
        report.refused[relative] = [str(error)]
        report.counts["domains refused"] += 1
        return
    releases[item.domain] = release
    rows[item.domain] = row
    mode = "KUMO-compatible" if release.compatible else "strict"
    report.counts[f"domains {mode} {'imported' if changed else 'unchanged'}"] += 1
    if release.compatible:
        report.warnings[item.domain] = release.warnings


def _import_instances(item, relative, report, releases, rows) -> None:
    release = releases.get(item.domain)
    if release is None:
        report.skipped.append(f"{relative}: no domain file for {item.domain}")
        report.counts["instance files skipped"] += 1
        return
    text = item.path.read_text(encoding="utf-8")
    stored = do_store_release_instances(
        rows[item.domain], release, json_lines(text), source_name=relative
    )
    report.counts["instance files"] += 1
    report.counts["instances imported"] += stored.created
    report.counts["instances unchanged"] += stored.unchanged
    report.counts["instances skipped"] += len(stored.skipped)
    report.skipped.extend(stored.skipped)
    report.notes.extend(stored.notes)


def _import_results(item, relative, report, rows, user, repair) -> None:
    row = rows.get(item.domain)
    if row is None:
        report.skipped.append(f"{relative}: no domain {item.domain}")
        report.counts["results files skipped"] += 1
        return
    content = item.path.read_bytes()
    try:
        accepted = submit_results(
            user,
            model=model_name(item.model, item.agent),
            domain=row.name,
            n_truths=item.n_truths,
            n_actions=item.n_actions,
            fmt=Submission.Format.KUMO,
            content=content,
            metadata={"release_path": relative},
            background=False,
            repair=repair,
        )
    except SubmissionError as error:
        report.refused[relative] = [str(error)]
        report.counts["results files refused"] += 1
        return
    submission = accepted.submission
    if submission.status != Submission.Status.DONE:
        report.refused[relative] = list(submission.errors)
        report.counts["results files refused"] += 1
        return
    report.counts[f"results files {'imported' if accepted.created else 'unchanged'}"] += 1
    report.counts["trajectories"] += submission.trajectory_count
    if submission.repairs:
        report.repaired[relative] = submission.repairs


def _record_published_oracle(item, report, rows) -> None:
    """Store, per instance, the information actions the published oracle took."""
    row = rows.get(item.domain)
    if row is None:
        return
    counts: dict[int, int] = {}
    for line in json_lines(item.path.read_text(encoding="utf-8")):
        try:
            data = json.loads(line)
            runs = data["trajectories"]
            counts.setdefault(
                int(data["seed"]), kumo_record_to_information_actions(len(runs[0]["actions"]))
            )
        except (ValueError, KeyError, TypeError, IndexError):
            continue
    with transaction.atomic():
        instances = Instance.objects.select_for_update().filter(
            domain=row, n_truths=item.n_truths, n_actions=item.n_actions, seed__in=list(counts)
        )
        changed = []
        for instance in instances:
            kumo = dict(instance.kumo or {})
            if kumo.get("published_oracle_actions") != counts[instance.seed]:
                kumo["published_oracle_actions"] = counts[instance.seed]
                instance.kumo = kumo
                changed.append(instance)
        Instance.objects.bulk_update(changed, ["kumo"])
    report.counts["published oracle counts recorded"] += len(changed)
