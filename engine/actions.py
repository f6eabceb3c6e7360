"""Every write to engine tables goes through here (check first, then write).

Management commands, admin actions, Celery jobs and tests call these functions, so an
instance is never stored without its oracle values and a checked knowledge book.
"""

from __future__ import annotations

import json
import multiprocessing
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from django.db import IntegrityError, transaction

from engine.core.families.kumo.book import check_book, write_book
from engine.core.families.kumo.domain_io import DomainError, domain_from_json, domain_to_json
from engine.core.families.kumo.generate import check_instance, generate_instance, generate_instances
from engine.core.families.kumo.kumo_release import ReleaseDomain, interpret_instance
from engine.core.families.kumo.search import solve, solve_observed
from engine.core.families.kumo.types import Domain as CoreDomain
from engine.core.families.kumo.types import Instance as CoreInstance
from engine.models import Domain, Instance, KnowledgeBook

SHIPPED_DOMAINS_DIR = Path(__file__).resolve().parent / "domains"


class EngineError(Exception):
    """A request the engine refuses, with a message meant for the user."""


@dataclass
class StoreReport:
    created: list[Instance] = field(default_factory=list)
    unchanged: list[Instance] = field(default_factory=list)

    @property
    def instances(self) -> list[Instance]:
        return sorted(self.created + self.unchanged, key=lambda row: row.seed)


def check_domain_name(name: str) -> str:
    from django.core.exceptions import ValidationError
    from django.core.validators import validate_slug

    try:
        validate_slug(name)
    except ValidationError:
        raise EngineError(
            f"domain name {name!r} must use only letters, digits, hyphens and underscores"
        ) from None
    return name


def do_import_domain(
    core: CoreDomain, *, source: str, name: str | None = None
) -> tuple[Domain, bool]:
    """Store a validated domain; returns ``(row, changed)``.

    Re-importing identical content is a no-op. Changing a domain that already has
    instances is refused: those instances (and every result recorded against them) were
    generated from the old rules, so silently replacing the rules would corrupt them.
    """
    data = domain_to_json(core)
    if name:
        data["name"] = check_domain_name(name)
    else:
        check_domain_name(data["name"])
    # Round-trip through the validator: what we store must load again.
    stored_core = domain_from_json(data)
    with transaction.atomic():
        row = Domain.objects.select_for_update().filter(name=data["name"]).first()
        fields = {
            "title": stored_core.title,
            "description": stored_core.description,
            "truth_noun": stored_core.truth_noun,
            "action_noun": stored_core.action_noun,
            "data": data,
            "truth_count": len(stored_core.truths),
            "action_count": len(stored_core.actions),
        }
        if row is None:
            return Domain.objects.create(name=data["name"], source=source, **fields), True
        if row.data == data:
            return row, False
        count = row.instances.count()
        if count:
            raise EngineError(
                f"domain {row.name!r} already exists with different rules and has {count} "
                "instances generated from them; import the new version under another --name"
            )
        for key, value in fields.items():
            setattr(row, key, value)
        row.source = source
        row.save(update_fields=[*fields, "source", "updated_at"])
        return row, True


def iter_shipped_domains() -> Iterator[tuple[Path, CoreDomain]]:
    for path in sorted(SHIPPED_DOMAINS_DIR.glob("*.json")):
        try:
            yield path, domain_from_json(path.read_text(encoding="utf-8"))
        except DomainError as error:
            raise EngineError(f"shipped domain {path.name} is invalid:\n{error}") from error


def _book_for(core_domain: CoreDomain, core: CoreInstance) -> tuple[str, list[str]]:
    text = write_book(core_domain, core)
    return text, check_book(core_domain, core, text)


def _solved(core_domain: CoreDomain, core: CoreInstance) -> tuple[Any, str, list[str]]:
    """An instance's optimal-search values and its deterministic book with the checker's
    problems: the slow, pure part of storing it (run in worker processes for a batch)."""
    return (solve(core_domain, core), *_book_for(core_domain, core))


def _solve_batch(
    core_domain: CoreDomain, cores: list[CoreInstance], workers: int
) -> list[tuple[Any, str, list[str]]]:
    """``_solved`` for each instance, in up to ``workers`` forked processes when there is
    more than one to do (the optimal search of a Hard instance takes about a second of one
    core). The children compute only: they never touch the database."""
    workers = min(workers, len(cores))
    if workers <= 1 or multiprocessing.current_process().daemon:
        # A daemonic process (a Celery prefork child) may not have children of its own.
        return [_solved(core_domain, core) for core in cores]
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        return list(pool.map(partial(_solved, core_domain), cores))


def do_store_instances(
    domain: Domain, instances: Iterable[CoreInstance], *, source: str, workers: int = 1
) -> StoreReport:
    """Check, solve and store instances with a deterministic knowledge book each.

    1. Every instance is checked against the domain's rules; any problem aborts the whole
       batch before anything is written (nothing half-imported is left behind).
    2. An instance whose (setting, seed) is already stored with the same content is kept
       as it is; the same key with different content is refused.
    3. New instances get their optimal-search values and a book that passes the checker
       (computed in up to ``workers`` processes).
    """
    core_domain = domain.to_core()
    batch = list(instances)
    problems: list[str] = []
    seen: set[tuple[int, int, int, int]] = set()
    for position, core in enumerate(batch, start=1):
        for problem in check_instance(core_domain, core):
            problems.append(f"instance {position} (seed {core.seed}): {problem}")
        key = (len(core.truths), len(core.actions), len(core.valid_truths), core.seed)
        if key in seen:
            problems.append(
                f"instance {position}: seed {core.seed} appears twice for the same setting"
            )
        seen.add(key)
    if problems:
        raise EngineError("\n".join(problems))

    report = StoreReport()
    with transaction.atomic():
        existing = {
            (row.n_truths, row.n_actions, row.n_valid, row.seed): row
            for row in Instance.objects.filter(domain=domain, seed__in=[c.seed for c in batch])
        }
        fresh: list[CoreInstance] = []
        for core in batch:
            key = (len(core.truths), len(core.actions), len(core.valid_truths), core.seed)
            row = existing.get(key)
            if row is None:
                fresh.append(core)
            elif _same_content(row, core):
                report.unchanged.append(row)
            else:
                raise EngineError(
                    f"seed {core.seed} for {key[0]} truths / {key[1]} actions is already "
                    f"stored in domain {domain.name!r} with different content"
                )
        new_rows: list[Instance] = []
        books: list[tuple[Instance, str, list[str]]] = []
        for core, (result, text, book_problems) in zip(
            fresh, _solve_batch(core_domain, fresh, workers), strict=True
        ):
            if book_problems:
                # The deterministic writer must always pass its own checker; if it does
                # not, that is a bug to surface, not a book to show players.
                raise EngineError(
                    f"the knowledge book for seed {core.seed} failed its check: "
                    + "; ".join(book_problems)
                )
            row = Instance(
                domain=domain,
                n_truths=len(core.truths),
                n_actions=len(core.actions),
                n_valid=len(core.valid_truths),
                seed=core.seed,
                truths=list(core.truths),
                actions=list(core.actions),
                observations=dict(core.observations),
                valid_truths=list(core.valid_truths),
                source=source,
                expected_actions=result.expected_actions,
                oracle_actions=result.oracle_actions,
            )
            new_rows.append(row)
            books.append((row, text, book_problems))
        _store_with_books(new_rows, books)
        report.created.extend(new_rows)
    return report


def do_generate_secret_instance(
    domain: Domain, n_truths: int, n_actions: int, *, source: str, seed: int | None = None
) -> Instance:
    """Generate, solve and store one instance whose seed stays on the server: ``seed`` if
    given (derived from a server secret, ``engine.seeds.secret_seed``), else one from the
    operating system's secure random source (``engine.seeds.fresh_seed``). If the seed is
    taken (2^-62 odds, or a secret seed used before), a fresh one is drawn, up to five tries.

    One function for every instance whose answer must stay hidden: a ranked game's, a
    practice game's and a study task set's (``source`` says which). Raises
    ``GenerationError`` when the domain cannot make such an instance, ``EngineError`` when
    none could be stored.
    """
    from engine.core.families.kumo.generate import generate_instance
    from engine.seeds import fresh_seed

    core_domain = domain.to_core()
    for attempt in range(5):
        drawn = seed if seed is not None and attempt == 0 else fresh_seed()
        core = generate_instance(core_domain, n_truths, n_actions, drawn)
        try:
            report = do_store_instances(domain, [core], source=source)
        except (EngineError, IntegrityError):
            continue
        if report.created:
            return report.created[0]
    raise EngineError("no fresh instance could be stored; try again")


def _store_with_books(rows: list[Instance], books: list[tuple[Instance, str, list[str]]]) -> None:
    """Insert new instances and their deterministic books ((row, text, problems) each)."""
    Instance.objects.bulk_create(rows)
    KnowledgeBook.objects.bulk_create(
        KnowledgeBook(
            instance=row,
            text=text,
            author=KnowledgeBook.Author.DETERMINISTIC,
            passed_check=not problems,
            problems=problems,
        )
        for row, text, problems in books
    )


def _same_content(row: Instance, core: CoreInstance) -> bool:
    # Compare through JSON so that 1 and 1.0, tuples and lists compare as stored.
    return json.dumps(row.to_core().to_kumo(), sort_keys=True) == json.dumps(
        core.to_kumo(), sort_keys=True
    )


def do_generate_instances(
    domain: Domain,
    *,
    n_truths: int,
    n_actions: int,
    count: int = 0,
    seed: int = 0,
    n_valid: int = 1,
    seeds: Sequence[int] | None = None,
    workers: int = 1,
) -> tuple[list[CoreInstance], StoreReport]:
    """Generate ``count`` instances (seeds ``seed`` … ``seed + count - 1``), or one per seed
    of ``seeds`` (a round's secret seeds, ``engine.seeds``), and store them (solved in up to
    ``workers`` processes)."""
    core_domain = domain.to_core()
    if seeds is not None:
        if not seeds:
            raise EngineError("give at least one seed")
        cores: list[CoreInstance] = []
        for each in seeds:
            # Each differs from the earlier ones of the batch, as generate_instances does.
            cores.append(
                generate_instance(core_domain, n_truths, n_actions, each, n_valid, existing=cores)
            )
    else:
        if count < 1:
            raise EngineError("--count must be at least 1")
        cores = generate_instances(
            core_domain, n_truths, n_actions, count=count, seed=seed, n_valid=n_valid
        )
    return cores, do_store_instances(
        domain, cores, source=Instance.Source.GENERATED, workers=workers
    )


def parse_instances_jsonl(lines: Iterable[str]) -> list[CoreInstance]:
    """Parse a KUMO-compatible JSONL task file; every bad line is reported by number."""
    instances: list[CoreInstance] = []
    problems: list[str] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as error:
            problems.append(f"line {number}: not valid JSON ({error.msg})")
            continue
        if not isinstance(data, dict):
            problems.append(f"line {number}: expected a JSON object")
            continue
        try:
            instances.append(CoreInstance.from_kumo(data))
        except ValueError as error:
            problems.append(f"line {number}: {error}")
    if problems:
        raise EngineError("\n".join(problems))
    if not instances:
        raise EngineError("the file holds no instances")
    return instances


def instances_to_jsonl(instances: Iterable[CoreInstance]) -> str:
    return "".join(json.dumps(core.to_kumo()) + "\n" for core in instances)


# --------------------------------------------------------------------------------------
# The original KUMO release (import_kumo_release)


def do_import_release_domain(release: ReleaseDomain) -> tuple[Domain, bool]:
    """Store a domain of the original KUMO release; returns ``(row, changed)``.

    An ordinary domain goes through :func:`do_import_domain` (strict, as today). One that
    needs the KUMO-compatible mode is stored as read, marked ``kumo_compatible``, with its
    quirks as ``warnings``; only its structure is checked, since our validity rules are
    exactly what it breaks. Re-importing identical content changes nothing.
    """
    if not release.compatible:
        row, changed = do_import_domain(release.domain, source=Domain.Source.KUMO)
        if row.warnings != release.warnings:
            row.warnings = release.warnings
            row.save(update_fields=["warnings"])
        return row, changed
    data = domain_to_json(release.domain)
    check_domain_name(data["name"])
    stored_core = domain_from_json(data, validate=False)
    fields = {
        "data": data,
        "truth_count": len(stored_core.truths),
        "action_count": len(stored_core.actions),
        "kumo_compatible": True,
        "warnings": release.warnings,
        "source": Domain.Source.KUMO,
    }
    with transaction.atomic():
        row = Domain.objects.select_for_update().filter(name=data["name"]).first()
        if row is None:
            return Domain.objects.create(name=data["name"], **fields), True
        if all(getattr(row, key) == value for key, value in fields.items()):
            return row, False
        if row.data != data and row.instances.exists():
            raise EngineError(
                f"domain {row.name!r} already exists with different rules and has instances"
            )
        for key, value in fields.items():
            setattr(row, key, value)
        row.save(update_fields=[*fields, "updated_at"])
        return row, True


@dataclass
class ReleaseStoreReport:
    created: int = 0
    unchanged: int = 0
    skipped: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def do_store_release_instances(
    domain: Domain, release: ReleaseDomain, lines: Iterable[str], *, source_name: str = ""
) -> ReleaseStoreReport:
    """Store the instances of one release instance file, as the original code read them.

    1. Each line is interpreted with the original semantics
       (:func:`engine.core.families.kumo.kumo_release.interpret_instance`); a line that cannot be
       read
       is skipped and reported, the others are still stored.
    2. An instance already stored with the same content is left as it is (the command is
       idempotent); the same seed with other content is skipped and reported.
    3. New instances get their oracle values (the original oracle's transitions) and the
       deterministic knowledge book; a book that fails its checker is stored unpassed and
       noted, instead of blocking the import as it would for a generated instance.
    Notes say, per seed, where the original code gives an instance no consistent meaning.
    """
    report = ReleaseStoreReport()
    core_domain = domain.to_core()
    where = source_name or domain.name
    items = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            if not isinstance(data, dict):
                raise ValueError("expected a JSON object")
            interpreted = interpret_instance(release, data)
        except (ValueError, TypeError) as error:
            report.skipped.append(f"{where} line {number}: {error}")
            continue
        items.append((number, interpreted))
    with transaction.atomic():
        existing = {
            (row.n_truths, row.n_actions, row.n_valid, row.seed): row
            for row in Instance.objects.filter(
                domain=domain, seed__in=[item.instance.seed for _, item in items]
            )
        }
        new_rows: list[Instance] = []
        books: list[tuple[Instance, str, list[str]]] = []
        for number, item in items:
            core = item.instance
            key = (len(core.truths), len(core.actions), len(core.valid_truths), core.seed)
            row = existing.get(key)
            if row is not None:
                if _same_content(row, core):
                    report.unchanged += 1
                else:
                    report.skipped.append(
                        f"{where} line {number}: seed {core.seed} is already stored with "
                        "different content"
                    )
                continue
            try:
                result = solve_observed(core_domain, core, core.extra["observed_states"])
            except KeyError as error:
                report.skipped.append(f"{where} line {number}: {error}")
                continue
            kumo = dict(core.extra)
            row = Instance(
                domain=domain,
                n_truths=key[0],
                n_actions=key[1],
                n_valid=key[2],
                seed=core.seed,
                truths=list(core.truths),
                actions=list(core.actions),
                observations=dict(core.observations),
                valid_truths=list(core.valid_truths),
                source=Instance.Source.IMPORTED,
                expected_actions=result.expected_actions,
                oracle_actions=result.oracle_actions,
                kumo=kumo,
            )
            existing[key] = row
            try:
                text, book_problems = _book_for(core_domain, core)
            except Exception as error:  # noqa: BLE001 - a release quirk the writer cannot phrase
                text, book_problems = "", [f"the book writer failed: {error}"]
            if book_problems:
                kumo["notes"] = [*kumo["notes"], "knowledge book: " + "; ".join(book_problems)]
            for note in kumo["notes"]:
                report.notes.append(f"{where} seed {core.seed}: {note}")
            new_rows.append(row)
            if text:
                books.append((row, text, book_problems))
        _store_with_books(new_rows, books)
        report.created += len(new_rows)
    return report
