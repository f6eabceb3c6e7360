"""Stored tasks of the task families and the one write path for answering them.

The family's rules live in ``engine.core.families`` (plain Python); this module stores what
they generate (``FamilyTask``) and the players' attempts (``FamilyAttempt``). The HTTP API,
the browser page and tests all go through ``do_generate_family_tasks``, ``start_attempt``
and ``answer_attempt`` here. Until an attempt has ended, only the task's public view leaves
the server; the reference answer and the score come with the answer.
"""

from __future__ import annotations

import json
import logging
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from engine import limits
from engine.core.families.base import FamilyError, all_families, get_family
from engine.core.families.display import check_display
from engine.core.families.kumo.types import FAMILY_NAME as KUMO_NAME
from engine.models import FamilyAttempt, FamilyStep, FamilyTask

logger = logging.getLogger(__name__)

ANSWER_MAX = 20000  # a 16×16 Sudoku or a 15×15 crossword written out fits
# A move: a KORGym path naming every node of a 40-node drawing fits, as the runner plays it.
MOVE_MAX = 2000


class AttemptError(limits.PlayError):
    """A request refused; ``str()`` is a message for the player."""


class AttemptNotFound(AttemptError, limits.PlayNotFound):
    pass


class AttemptFinished(AttemptError, limits.PlayFinished):
    pass


class AttemptTimeUp(AttemptFinished, limits.PlayTimeUp):
    """The attempt's time limit passed: it has ended (a game scored on its moves)."""


class MoveRefused(AttemptError, limits.PlayRefused):
    """A move the game refused (stored and counted); ``ended`` when it was the game's last
    allowed refusal (``engine.limits``) and the game has ended, scored on the moves it
    accepted."""


def canonical_level(family: str, kind: str, level: str) -> str:
    """A level as it is stored and counted: the level a former name (an alias, e.g. a
    puzzle's ``easy`` for ``4x4``) stands for, any other name as given, "" for none. Every
    place that takes a level from outside (generation, rounds, ranked play, practice, the
    lists) keeps it so, so one level never splits into two rows of the board."""
    if not level:
        return ""
    try:
        return get_family(family).kind(kind).canonical_level(level)
    except FamilyError:
        return level


# KUMO's games, as every entry point that takes a family names them (the family's own name).
KUMO = KUMO_NAME


@dataclass(frozen=True)
class TaskSpec:
    """Tasks of one family, kind and level, as the operator's entry points name them
    (``FAMILY/KIND/LEVEL``: a round's tasks, the study's task sets): KUMO's games included,
    as the family ``kumo`` whose kind is a domain and whose level is easy or hard."""

    family: str
    kind: str
    level: str

    def __str__(self) -> str:
        return f"{self.family}/{self.kind}/{self.level}"

    @property
    def is_kumo(self) -> bool:
        return self.family == KUMO


def parse_task_spec(text: str) -> TaskSpec:
    """``"puzzles/sudoku/easy"`` or ``"kumo/medical/hard"``, checked (``check_task_spec``);
    raises ``FamilyError`` with the reason."""
    parts = text.strip().split("/")
    if len(parts) != 3 or not all(part.strip() for part in parts):
        raise FamilyError(f"{text[:100]!r}: write FAMILY/KIND/LEVEL, e.g. puzzles/sudoku/easy")
    return check_task_spec(*(part.strip() for part in parts))


def check_task_spec(family: str, kind: str, level: str) -> TaskSpec:
    """A family's kind and one of its declared levels; for ``kumo``, a stored domain big
    enough for the level (``kumo_task_setting``). Raises ``FamilyError`` naming what is
    known."""
    if family == KUMO:
        kumo_task_setting(TaskSpec(family, kind, level))
        return TaskSpec(family, kind, level)
    levels = get_family(family).kind(kind).levels
    if level not in levels:
        raise FamilyError(
            f"kind {kind} has no level {level[:40]!r}; use one of {', '.join(levels)}"
        )
    return TaskSpec(family, kind, level)


def kumo_task_setting(spec: TaskSpec):
    """The domain row and (truths, actions) of a ``kumo`` spec: its kind a stored domain,
    its level KUMO's (``engine.practice.kumo_setting``) and within the domain's size."""
    from engine.models import Domain
    from engine.practice import PracticeError, kumo_setting

    try:
        n_truths, n_actions = kumo_setting(spec.level)
    except PracticeError as error:
        raise FamilyError(f"KUMO's games: {error}") from None
    row = Domain.objects.defer("data").filter(name=spec.kind).first()
    if row is None:
        known = ", ".join(Domain.objects.order_by("name").values_list("name", flat=True))
        raise FamilyError(
            f"KUMO's games have no domain {spec.kind[:100]!r} (known domains: {known or 'none'})"
        )
    if n_truths > row.truth_count or n_actions > row.action_count:
        raise FamilyError(
            f"domain {row.name} is too small for level {spec.level} ({n_truths} truths and "
            f"{n_actions} actions; it has {row.truth_count} and {row.action_count})"
        )
    return row, (n_truths, n_actions)


def params_key(params: dict) -> str:
    return json.dumps(params, sort_keys=True, separators=(",", ":"))


@dataclass(frozen=True)
class GenerationReport:
    tasks: list[FamilyTask]
    created: int


def do_generate_family_tasks(
    family: str,
    kind: str,
    *,
    count: int = 1,
    seed: int = 0,
    level: str | None = None,
    params: dict | None = None,
    for_round: bool = False,
    origin: str = FamilyTask.Origin.PUBLIC,
    seeds: Sequence[int] | None = None,
) -> GenerationReport:
    """Generate and store ``count`` tasks (seeds ``seed`` … ``seed + count - 1``), or one
    per seed of ``seeds`` (secret seeds, ``engine.seeds``: ``count`` and ``seed`` are then
    ignored); a task already stored with the same family, kind, parameters and seed is
    reused, so running it again changes nothing. Raises ``FamilyError`` for a bad request,
    and (unless preparing a round, ``for_round``) for seeds whose tasks belong to a round
    not published yet. ``origin`` (``FamilyTask.Origin``) is stored with a new task:
    whether its seed may be shown, and who may list it."""
    if seeds is None:
        if count < 1 or count > 10_000:
            raise FamilyError(f"count must be between 1 and 10000, got {count}")
        seeds = range(seed, seed + count)
    elif not 1 <= len(seeds) <= 10_000:
        raise FamilyError(f"give between 1 and 10000 seeds, got {len(seeds)}")
    source = get_family(family)
    tasks, created = [], 0
    from engine.word_clues import written_clues

    with transaction.atomic(), source.generation_context(kind, params, written_clues):
        for each in seeds:
            instance = source.generate(kind, each, params, level=level)
            task, new = FamilyTask.objects.get_or_create(
                family=family,
                kind=kind,
                params_key=params_key(dict(instance.params)),
                seed=instance.seed,
                defaults={
                    "level": canonical_level(family, kind, level or ""),
                    "origin": origin,
                    "params": dict(instance.params),
                    "public": dict(instance.public),
                    "hidden": dict(instance.hidden),
                },
            )
            tasks.append(task)
            created += new
        if not for_round:
            from leaderboard.models import RoundFamilyTask

            pinned = (
                RoundFamilyTask.objects.filter(task__in=tasks)
                .filter(~Q(round__status="closed") | Q(round__published_at__isnull=True))
                .select_related("round", "task")
                .first()
            )
            if pinned is not None:
                # Never echo the seed: a round's seeds are secret until it is published.
                raise FamilyError(
                    f"a seed asked for gives a {family}/{kind} task of a round whose tasks "
                    "are not published: choose another seed"
                )
    return GenerationReport(tasks, created)


def group_name(attempt_id: int) -> str:
    """The websocket group of the pages open on an attempt (``engine.consumers``)."""
    return f"family-attempt-{attempt_id}"


def notify(attempt_id: int, steps: int | None = None) -> None:
    """Tell the pages open on the attempt that it changed (after commit). ``steps``, its
    step count after a move, lets a page that already shows that state drop the event;
    None (the attempt ended) makes every page read it afresh."""
    from engine.live import tell_group

    event: dict = {"type": "attempt.changed", "attempt": attempt_id}
    if steps is not None:
        event["steps"] = steps
    tell_group(group_name(attempt_id), event)


def _notify_on_commit(attempt: FamilyAttempt, steps: int | None = None) -> None:
    transaction.on_commit(lambda: notify(attempt.pk, steps), robust=True)


def start_attempt(player: User, task: FamilyTask) -> tuple[FamilyAttempt, bool]:
    """The player's attempt at a task (made on first call; the same one afterwards)."""
    return FamilyAttempt.objects.get_or_create(player=player, task=task, model_name="")


def answer_text(family_name: str, answer: object) -> str:
    """The answer as stored: text as given, or a structured answer (a JSON list or object,
    for families that take one) as JSON; ``AttemptError`` says what is wrong with it."""
    if isinstance(answer, (list, dict)):
        if family_name and not get_family(family_name).structured_answers:
            raise AttemptError("this task takes a text answer")
        try:
            answer = json.dumps(answer)  # ASCII escapes: no NUL or lone surrogate is stored
        except (ValueError, TypeError, RecursionError):
            raise AttemptError("the answer is not a JSON list or object") from None
        if len(answer) > ANSWER_MAX:
            raise AttemptError(f"an answer may be at most {ANSWER_MAX} characters")
        return answer
    if not isinstance(answer, str) or not answer.strip():
        raise AttemptError("write an answer first")
    if len(answer) > ANSWER_MAX:
        raise AttemptError(f"an answer may be at most {ANSWER_MAX} characters")
    if "\x00" in answer:
        raise AttemptError("an answer cannot hold a NUL character")
    try:
        answer.encode("utf-8")
    except UnicodeEncodeError:
        raise AttemptError("an answer must be valid Unicode (it holds a lone surrogate)") from None
    return answer


def answer_attempt(
    attempt_id: int, player: User, answer: object, client: object = None
) -> FamilyAttempt:
    """Score the player's one answer and end the attempt (under a row lock, so two tabs
    or a repeated request count it once). ``answer`` is text, or for families that take
    structured answers (the constraint puzzles) a JSON list or object; ``client`` is what
    the page reported about writing it (``engine.sessions.clean_client_signals``). Past
    the attempt's deadline (a study task's time limit) the attempt ends unsolved and
    ``AttemptTimeUp`` is raised."""
    if not isinstance(answer, (str, list, dict)):
        raise AttemptError("write an answer first")
    if isinstance(answer, str):
        answer_text("", answer)  # text is checked before the attempt is looked up
    with transaction.atomic():
        attempt = _locked_attempt(attempt_id, player, "this task has ended; its result is shown")
        now = timezone.now()
        if attempt.deadline_at is not None and now > attempt.deadline_at:
            _end_at_deadline(attempt)
            timed_out = True
        else:
            timed_out = False
            _score_answer(attempt, answer, client, now)
        _notify_on_commit(attempt)
    if timed_out:  # raised after the commit: the ended attempt is kept
        raise AttemptTimeUp("time is up for this task: it has ended, unsolved")
    return attempt


def _locked_attempt(attempt_id: int, player: User, finished_message: str) -> FamilyAttempt:
    """The player's own unfinished attempt, locked for this transaction: a person's own, or
    a ranked attempt of a model that this account opened (``leaderboard.ranked_families``).
    Other model attempts (the runner's) are played by the runner only."""
    attempt = (
        FamilyAttempt.objects.select_for_update(of=("self",))
        .select_related("task")
        .filter(Q(model_name="") | Q(ranked__isnull=False), pk=attempt_id, player=player)
        .first()
    )
    if attempt is None:
        raise AttemptNotFound("no such attempt")
    if attempt.finished:
        raise AttemptFinished(finished_message)
    return attempt


def _end_at_deadline(attempt: FamilyAttempt) -> None:
    """End an attempt whose time ran out, at its deadline: a game scores the moves made
    before it (as a game that reached its move limit would), any other task ends unsolved."""
    family = get_family(attempt.task.family)
    if family.interactive:
        _end_game(attempt, family, attempt.deadline_at)
    else:
        _end_unsolved(attempt)


def _score_answer(attempt: FamilyAttempt, answer: object, client: object, now) -> None:
    from engine.sessions import clean_client_signals

    task = attempt.task
    if get_family(task.family).interactive:
        raise AttemptError("this game is played move by move: send moves, not an answer")
    stored = answer_text(task.family, answer)  # structured: allowed for this family?
    score = get_family(task.family).score(task.to_core(), answer)
    attempt.answer = stored
    attempt.correct = score.correct
    attempt.value = score.value
    attempt.details = dict(score.details)
    attempt.finished_at = now
    attempt.elapsed_ms = int((now - attempt.started_at).total_seconds() * 1000)
    attempt.client = clean_client_signals(client)  # None: no report came
    attempt.save(
        update_fields=[
            "answer", "correct", "value", "details", "finished_at", "elapsed_ms", "client"
        ]
    )  # fmt: skip
    _board_changed(task)


def _board_changed(task: FamilyTask) -> None:
    """An attempt at ``task`` finished: mark its board group stale, in the attempt's own
    transaction (the mark commits with it). The scheduled recompute rebuilds the group: a
    visitor's answer changes only the unverified practice row, so it queues no job of its
    own, and a live round's attempt changes nothing public until the round closes."""
    from leaderboard.family_recompute import mark_task_stale

    mark_task_stale(task)


def _end_unsolved(attempt: FamilyAttempt) -> None:
    """End an attempt whose time ran out: no answer, not correct, at its deadline."""
    attempt.answer = ""
    attempt.correct = False
    attempt.value = 0.0
    attempt.details = {"error": "time ran out before an answer"}
    attempt.finished_at = attempt.deadline_at
    attempt.elapsed_ms = int((attempt.deadline_at - attempt.started_at).total_seconds() * 1000)
    attempt.save(
        update_fields=["answer", "correct", "value", "details", "finished_at", "elapsed_ms"]
    )
    _board_changed(attempt.task)


def expire_overdue_attempts(player: User) -> int:
    """End the player's unfinished attempts whose deadline has passed; how many ended."""
    overdue = FamilyAttempt.objects.filter(
        player=player, model_name="", finished_at__isnull=True, deadline_at__lt=timezone.now()
    ).values_list("pk", flat=True)
    ended = 0
    for pk in overdue:
        with transaction.atomic():
            attempt = (
                FamilyAttempt.objects.select_for_update(of=("self",))
                .select_related("task")
                .filter(pk=pk, finished_at__isnull=True)
                .first()
            )
            if attempt is not None:
                _end_at_deadline(attempt)
                _notify_on_commit(attempt)
                ended += 1
    return ended


def attempt_state(attempt: FamilyAttempt) -> dict:
    """What the player may see now: the public view; after the end, the result too."""
    task = attempt.task
    state = {
        "id": attempt.pk,
        "task": task.pk,
        "family": task.family,
        "kind": task.kind,
        "level": task.level,
        "public": task.public,
        "finished": attempt.finished,
        # Answers written as grids or lists (the page shows them preformatted).
        "structured": get_family(task.family).structured_answers,
        # The answer form the page draws (a grid, a letter map…), or None for a text box.
        "form": get_family(task.family).answer_form(task.kind),
    }
    if get_family(task.family).interactive:
        state["interactive"] = True
        sent = list(attempt.steps.order_by("index").values_list("move", "accepted"))
        played = [move for move, accepted in sent if accepted]
        # Every move sent so far, refused ones too: a page shows the state of the most.
        state["steps"] = len(sent)
        state["moves"] = game_log(attempt, played)
        state["invalid_moves"] = attempt.invalid_moves
        shown = [m["observation"] for m in state["moves"] if isinstance(m["observation"], dict)]
        view = next((o["view"] for o in reversed(shown) if "view" in o), task.public.get("view"))
        if view is not None:
            state["view"] = view
        state["keys"] = dict(get_family(task.family).keys(task.kind))
        board = board_display(task, played)
        if board is not None:
            state["display"] = board
    if attempt.finished:
        from leaderboard.access import family_answer_is_secret, ranked_family_result_is_secret

        if family_answer_is_secret(task.pk):
            # A round's task: the answer is recorded, its score and the reference stay on
            # the server until the round closes and its tasks are published.
            state["result"] = {"answer": attempt.answer, "secret": True}
            return state
        if ranked_family_result_is_secret(task.pk):
            # A ranked attempt of a live round: right or wrong and the score at once; the
            # reference, and the details that could show it, once the round closes.
            state["result"] = {
                "answer": attempt.answer,
                "correct": attempt.correct,
                "value": attempt.value,
                "reference_secret": True,
            }
            return state
        family = get_family(task.family)
        core = task.to_core()
        state["result"] = {
            "answer": attempt.answer,
            "correct": attempt.correct,
            "value": attempt.value,
            "details": attempt.details,
            "reference_answer": family.reference_answer(core),
            # The right answer as a player expects it (Wordle's word, not its guesses).
            "solution": family.solution_text(core),
        }
        if state.get("interactive"):
            # The answer is shown now: the final board may show what was hidden (the mines).
            final = board_display(task, played, finished=True)
            if final is not None:
                state["display"] = final
        else:
            shown = checked_display(
                task, lambda: family.answer_display(core, attempt.answer, marked=True)
            )
            if shown is not None:
                state["result"]["display"] = shown
            solution = checked_display(task, lambda: family.solution_display(core))
            if solution is not None:
                state["result"]["solution_display"] = solution
    return state


def checked_display(task: FamilyTask, draw) -> dict | None:
    """``draw()`` checked with ``check_display``, or None (the page shows text instead).
    A family's bug in drawing must never break the page: it is logged, and the text view
    stays."""
    try:
        shown = draw()
        if shown is None:
            return None
        check_display(shown)
    except Exception:
        logger.exception(
            "task %s (%s/%s): its board could not be drawn", task.pk, task.family, task.kind
        )
        return None
    return dict(shown)


def board_display(task: FamilyTask, moves: Sequence[str], *, finished: bool = False):
    """A game's board after ``moves`` as the family draws it (``Family.display``), checked;
    None when the family draws none (or fails to: the text view is shown)."""
    family = get_family(task.family)
    return checked_display(
        task, lambda: family.display(task.to_core(), list(moves), finished=finished)
    )


def interactive_families() -> list[str]:
    """The names of the families played move by move (their attempts have steps)."""
    return sorted(name for name, family in all_families().items() if family.interactive)


def families_catalogue(*, with_kumo: bool = True) -> list[dict]:
    """Every family with its kinds, parameters, levels and answer formats (public), and the
    API endpoint that starts an attempt (``play``). KUMO's games are one family among them
    (``with_kumo``): a kind per domain a practice game may use, at the levels the domain is
    big enough for, played through ``/api/v1/sessions/`` (and, in the browser, started
    with every family's form at ``/families/play/``)."""
    listed = [
        _catalogue_entry(family, family.kinds.values(), "/api/v1/family-attempts/")
        for family in all_families().values()
    ]
    if with_kumo:
        listed.append(_kumo_entry())
    return sorted(listed, key=lambda entry: entry["name"])


def _kumo_entry() -> dict:
    from engine.core.families.kumo.family import KumoFamily, kumo_kind
    from engine.practice import LEVELS, candidate_domains

    playable = {
        level: set(candidate_domains(*setting).values_list("name", flat=True))
        for level, setting in LEVELS.items()
    }
    kinds = [
        kumo_kind(
            name,
            {
                level: {"truths": LEVELS[level][0], "actions": LEVELS[level][1]}
                for level in LEVELS
                if name in playable[level]
            },
        )
        for name in sorted(set().union(*playable.values()))
    ]
    return _catalogue_entry(KumoFamily({}), kinds, "/api/v1/sessions/")


def _catalogue_entry(family, kinds, play: str) -> dict:
    return {
        "name": family.name,
        "title": family.title,
        "play": play,
        "kinds": [
            {
                "name": kind.name,
                "title": kind.title,
                "answer_format": kind.answer_format,
                "parameters": [
                    {
                        "name": p.name,
                        "default": p.default,
                        "min": p.low,
                        "max": p.high,
                        "description": p.description,
                    }
                    for p in kind.parameters
                ],
                "levels": {name: dict(values) for name, values in kind.levels.items()},
                "metrics": list(family.metrics),
            }
            for kind in kinds
        ],
    }


def store_imported_task(
    family: str, kind: str, *, level: str, params: dict, seed: int, public: dict, hidden: dict
) -> str:
    """Store one item of a family's published data as a fixed task (origin imported),
    keyed by (family, kind, parameters, seed): importing it again changes nothing, a
    corrected item updates its own task only. Returns ``"created"``, ``"updated"`` or
    ``"unchanged"``. Each family reads its own published files (in its package); storing
    what it read is written once here."""
    task, new = FamilyTask.objects.get_or_create(
        family=family,
        kind=kind,
        params_key=params_key(params),
        seed=seed,
        defaults={
            "level": level,
            "params": params,
            "public": public,
            "hidden": hidden,
            "origin": FamilyTask.Origin.IMPORTED,
        },
    )
    if new:
        return "created"
    if task.public != public or task.hidden != hidden:
        FamilyTask.objects.filter(pk=task.pk).update(public=public, hidden=hidden)
        return "updated"
    return "unchanged"


@dataclass(frozen=True)
class ImportReport:
    """What importing one Unpuzzles file did: its key, its items, the tasks it created,
    updated or left as they were (per reading), and what it left out."""

    file: str
    items: int
    created: int
    updated: int
    unchanged: int
    open_ended: int
    problems: list[str]
    variants: dict[str, int]


def do_import_unpuzzles(
    files: Mapping[str, str], readings: tuple[str, ...] = ("deepmind",)
) -> list[ImportReport]:
    """Store the tasks of published Unpuzzles files, ``{file key: its text}``, under each
    reading (``engine.core.families.unpuzzles``), all in one transaction. A task is keyed
    by (variant, file, item, reading), so files never overwrite each other; importing the
    same file again changes nothing, a corrected one updates its tasks. Every file is read
    before anything is written: a bad file stores nothing."""
    from engine.core.families.unpuzzles import READINGS, check_file_key, read_unpuzzles

    for reading in readings:
        if reading not in READINGS:
            raise FamilyError(f"no reading {reading!r}; use one of {', '.join(READINGS)}")
    read = {}
    for key, text in files.items():
        try:
            read[check_file_key(key)] = read_unpuzzles(text)
        except FamilyError as error:
            raise FamilyError(f"{key}: {error}") from None
    reports = []
    with transaction.atomic():
        for key, content in read.items():
            outcomes = Counter()
            variants: dict[str, int] = {}
            for variant, index, public, hidden in content.tasks:
                variants[variant] = variants.get(variant, 0) + 1
                for reading in readings:
                    outcome = store_imported_task(
                        "unpuzzles",
                        variant,
                        level=reading,
                        params={"file": key, "item": index, "reading": reading},
                        seed=index,
                        public=public,
                        hidden=hidden,
                    )
                    outcomes[outcome] += 1
            reports.append(
                ImportReport(
                    key,
                    content.items,
                    outcomes["created"],
                    outcomes["updated"],
                    outcomes["unchanged"],
                    content.open_ended,
                    content.problems,
                    variants,
                )
            )
    return reports


@dataclass
class LevelImport:
    """What an LR²Bench import did to one type and level."""

    created: int = 0
    updated: int = 0
    unchanged: int = 0


@dataclass(frozen=True)
class LR2ImportReport:
    levels: dict[tuple[str, str], LevelImport]
    problems: list[str]

    @property
    def items(self) -> int:
        return sum(n.created + n.updated + n.unchanged for n in self.levels.values())


def do_import_lr2bench(path: str) -> LR2ImportReport:
    """Store every published LR²Bench item of a checkout (``engine.core.families.lr2bench``)
    as a fixed task of the family ``lr2bench`` (origin imported; kind its type, level its
    level, ``params`` ``{"item": tag, "level": level}``). Importing again changes nothing;
    a corrected item updates its own task only. Raises ``FamilyError`` when ``path`` is no
    checkout; items it cannot use are named in ``problems``."""
    from engine.core.families.lr2bench.release import read_release
    from engine.core.families.lr2bench.scoring import LEVELS

    release = read_release(path)
    levels = {(t, level): LevelImport() for t, names in LEVELS.items() for level in names}
    with transaction.atomic():
        for item in release.items:
            outcome = store_imported_task(
                "lr2bench",
                item.task_type,
                level=item.level,
                params={"item": item.tag, "level": item.level},
                seed=0,
                public=item.public,
                hidden=item.hidden,
            )
            tally = levels[(item.task_type, item.level)]
            setattr(tally, outcome, getattr(tally, outcome) + 1)
    return LR2ImportReport(levels, release.problems)


@dataclass(frozen=True)
class UnpuzzleComparison:
    """One player's accuracy per variant on one file under one reading, and over the
    file's items it answered in both the original and the unpuzzle form, how often it
    solved the famous puzzle but not its trivial version (the sign of an answer recalled
    rather than reasoned)."""

    player: str
    file: str
    reading: str
    accuracy: dict[str, tuple[int, int]]
    pairs: int
    original_only: int
    unpuzzle_only: int
    both: int


def unpuzzles_comparison() -> list[UnpuzzleComparison]:
    """Per player, file and reading: items are paired by (file, item), never across files
    (the two published files number their items independently)."""
    attempts = FamilyAttempt.objects.filter(
        task__family="unpuzzles", finished_at__isnull=False
    ).values_list("model_name", "task__kind", "task__params", "task__seed", "correct")
    groups: dict[tuple[str, str, str], dict[tuple[str, int], list[bool]]] = {}
    for model, variant, params, seed, correct in attempts:
        params = params or {}
        key = (model or "People", str(params.get("file", "")), params.get("reading", "deepmind"))
        item = params.get("item", seed)
        groups.setdefault(key, {}).setdefault((variant, item), []).append(bool(correct))
    rows = []
    for (player, file, reading), results in sorted(groups.items()):
        accuracy = {}
        for variant in ("original", "unpuzzle", "shifted"):
            marks = [m for (v, _), ms in results.items() if v == variant for m in ms]
            if marks:
                accuracy[variant] = (sum(marks), len(marks))
        solved = {key: sum(ms) / len(ms) >= 0.5 for key, ms in results.items()}
        items = {i for (v, i) in solved if v == "original"} & {
            i for (v, i) in solved if v == "unpuzzle"
        }
        original_only = sum(solved[("original", i)] and not solved[("unpuzzle", i)] for i in items)
        unpuzzle_only = sum(solved[("unpuzzle", i)] and not solved[("original", i)] for i in items)
        both = sum(solved[("original", i)] and solved[("unpuzzle", i)] for i in items)
        rows.append(
            UnpuzzleComparison(
                player,
                file,
                reading,
                accuracy,
                len(items),
                original_only,
                unpuzzle_only,
                both,
            )
        )
    return rows


# -- interactive families (the multi-turn games): one move at a time ----------------------


def move_attempt(
    attempt_id: int, player: User, move: object, client: object = None
) -> FamilyAttempt:
    """Play one move of an interactive family's task (under a row lock, so a repeated
    request cannot play a move twice). Every move sent is stored as a step
    (``FamilyStep``) with its time and the page's report (``client``, cleaned by
    ``engine.sessions.clean_client_signals``; None when none came); a move the game
    refuses is stored as refused, counted (``invalid_moves``) and raises ``AttemptError``
    with the reason after that is saved. The game's state never leaves the server: it is
    rebuilt from the accepted moves. Returns the attempt as the move left it
    (``attempt_state`` shows what each move showed)."""
    from engine.sessions import clean_client_signals

    if not isinstance(move, str) or not move.strip():
        raise AttemptError("write a move first")
    if len(move) > MOVE_MAX or "\x00" in move:
        raise AttemptError(f"a move is at most {MOVE_MAX} characters of text")
    move = move.strip()
    refused = ""
    with transaction.atomic():
        attempt = _locked_attempt(attempt_id, player, "this game has ended; its result is shown")
        family = get_family(attempt.task.family)
        if not family.interactive:
            raise AttemptError("this task takes one answer, not moves")
        now = timezone.now()
        if attempt.deadline_at is not None and now > attempt.deadline_at:
            _end_at_deadline(attempt)
            timed_out = True
        else:
            timed_out = False
            sent = list(
                attempt.steps.order_by("index").values_list("move", "accepted", "created_at")
            )
            played = [each for each, accepted, _ in sent if accepted]
            previous = sent[-1][2] if sent else attempt.started_at
            step = FamilyStep(
                attempt=attempt,
                index=len(sent),
                move=move,
                created_at=now,
                elapsed_ms=max(0, int((now - previous).total_seconds() * 1000)),
                client=clean_client_signals(client),
            )
            try:
                result = family.step(attempt.task.to_core(), played, move)
            except FamilyError as error:
                refused = str(error)
                attempt.invalid_moves += 1
                # Too many refused moves end the game, scored on the moves it accepted, as
                # when its time runs out (engine.limits: one rule for every family's games).
                ended = limits.ends_the_game(attempt.invalid_moves)
                if ended:
                    refused = limits.ending_reason(refused[:300])
                step.accepted, step.error = False, refused[:500]
                step.save()
                attempt.save(update_fields=["invalid_moves"])
                if ended:
                    _end_game(attempt, family, now, played)
            else:
                step.accepted = True
                step.save()
                if result["over"]:
                    _end_game(attempt, family, now, [*played, move])
        # Accepted or refused, the pages open on the game show it changed.
        _notify_on_commit(attempt, None if attempt.finished else step.index + 1)
    if timed_out:
        raise AttemptTimeUp("time is up for this game: it has ended with the moves made")
    if refused:
        raise MoveRefused(refused, ended=attempt.finished)
    return attempt


def _end_game(attempt: FamilyAttempt, family, at, played: list[str] | None = None) -> None:
    """Score a game on its accepted moves (``played``, read from its steps when not given)
    and end it at ``at``."""
    if played is None:
        played = attempt.played_moves()
    score = family.finish(attempt.task.to_core(), played)
    attempt.answer = "\n".join(played)
    attempt.correct = score.correct
    attempt.value = score.value
    attempt.details = {**score.details, "invalid_moves": attempt.invalid_moves}
    attempt.finished_at = at
    attempt.elapsed_ms = int((at - attempt.started_at).total_seconds() * 1000)
    attempt.save(
        update_fields=["answer", "correct", "value", "details", "finished_at", "elapsed_ms"]
    )
    _board_changed(attempt.task)


def game_log(attempt: FamilyAttempt, played: Sequence[str] | None = None) -> list[dict]:
    """The accepted moves (``played``, read from the attempt's steps when not given) with
    what each showed, rebuilt by replaying them."""
    if played is None:
        played = attempt.played_moves()
    family = get_family(attempt.task.family)
    observations = family.observations(attempt.task.to_core(), list(played))
    return [
        {"move": move, "observation": observation}
        for move, observation in zip(played, observations, strict=True)
    ]
