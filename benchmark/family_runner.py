"""Plays a model through family tasks (docs/task-families.md) and records every attempt.

A *player* answers a task's prompt: a chat model behind an OpenAI-compatible API, or a
built-in baseline (``reference`` gives the family's reference answer, ``random`` a random
answer in the task's format, ``blank`` nothing). Each reply is parsed as the family says
(its last "Answer: …" line); a reply with no answer is a parse error, stored with the
attempt and scored 0, as KUMO's runner counts them. Attempts are stored through the same
``FamilyAttempt`` rows as people's, marked with the model's name and the run's index, so the
family board (``engine.family_board``) puts models and people side by side. The name is
claimed first through the board's one naming rule (``leaderboard.names``): a chat model's
name is an entry owned by the account the run is filed under, a built-in's the platform's
baseline entry, so a family row's name is always an owned board entry.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from django.contrib.auth.models import User
from django.db import connection, transaction
from django.utils import timezone

from benchmark.llm import ChatClient, LLMError
from engine.core.families.base import FamilyError, FamilyInstance, get_family
from engine.families import ANSWER_MAX
from engine.models import FamilyAttempt, FamilyStep, FamilyTask
from leaderboard.actions import queue_recompute
from leaderboard.family_board import BUILT_IN_PLAYERS
from leaderboard.family_recompute import mark_task_stale
from leaderboard.models import ModelEntry
from leaderboard.names import claim_model_name, clean_model_name

BUILT_IN = BUILT_IN_PLAYERS


@dataclass(frozen=True)
class FamilyRunReport:
    attempts: int
    correct: int
    parse_errors: int
    failed: int
    skipped: int
    # Every stored attempt of the run's tasks and runs, those kept from an earlier run too
    # (the ids, for ``attempt_record``).
    stored: tuple[int, ...] = ()


def turn(reply, content: str, read: str | None = None, error: str = "") -> dict:
    """One reply of a model as the runner records it (``FamilyAttempt.turns``, the shape of
    a turn in KUMO's results records): ``reply`` a ``ChatReply``, or None for a built-in
    player's."""
    return {
        "reply": content,
        "reasoning": getattr(reply, "reasoning", None) or "",
        "tokens": {
            "prompt": getattr(reply, "prompt_tokens", 0),
            "completion": getattr(reply, "completion_tokens", 0),
        },
        "read": read,
        "error": error,
    }


def attempt_record(attempt: FamilyAttempt) -> dict:
    """One line of a run's results file (``run_family_tasks --out``): the family replies
    JSONL that ``/api/v1/family-submissions/`` takes (``task``, ``model``, ``run``,
    ``reply``, ``tokens``; a game has no one reply and is not uploaded), with the server's
    verdict, the game's moves and every turn beside it."""
    task = attempt.task
    turns = attempt.turns or []
    record = {
        "task": task.pk,
        "family": task.family,
        "kind": task.kind,
        "level": task.level,
        "model": attempt.model_name,
        "run": attempt.run,
    }
    if not get_family(task.family).interactive and turns:
        record["reply"] = turns[-1]["reply"]
    record["tokens"] = {
        "prompt": sum(t["tokens"]["prompt"] for t in turns),
        "completion": sum(t["tokens"]["completion"] for t in turns),
    }
    # The verdict as the attempt's owner may see it now (``engine.families.attempt_state``):
    # none for a task of a round not yet published, no details for a ranked attempt of a
    # live round; ``secret`` says what is held back.
    from engine.families import attempt_state

    result = attempt_state(attempt).get("result", {})
    record["answer"] = attempt.answer
    record.update({key: result[key] for key in ("correct", "value", "details") if key in result})
    if result.get("secret") or result.get("reference_secret"):
        record["secret"] = True
    record.update(
        parse_error=attempt.parse_error,
        invalid_moves=attempt.invalid_moves,
        elapsed_ms=attempt.elapsed_ms,
    )
    if get_family(task.family).interactive:
        record["moves"] = [
            {"move": step.move, "accepted": step.accepted, "error": step.error}
            for step in attempt.steps.order_by("index")
        ]
    record["turns"] = turns
    return record


def random_answer(instance: FamilyInstance, rng: random.Random) -> str:
    own = get_family(instance.family).random_answer(instance, rng)
    if own is not None:
        return own
    if instance.public["answer_format"] == "true or false":
        return rng.choice(("true", "false"))
    return str(rng.randint(0, 100))


def play_family_tasks(
    tasks: Iterable[FamilyTask],
    *,
    model: str,
    started_by: User,
    client: ChatClient | None = None,
    runs: int = 1,
    concurrency: int = 4,
    seed: int = 0,
) -> FamilyRunReport:
    """Play every task ``runs`` times; attempts already stored for (model, task, run) are
    kept, so a run interrupted half-way resumes where it stopped.

    Raises ``leaderboard.names.ModelNameError`` when the name is refused (malformed,
    reserved, another account's, past the account's cap, or a built-in's name held by an
    entry that is not the platform's baseline), before anything is played.
    """
    model = clean_model_name(model)
    if client is None and model not in BUILT_IN:
        raise ValueError(
            f"{model!r} is not a built-in player ({', '.join(BUILT_IN)}): give a base URL"
        )
    kind = ModelEntry.Kind.BASELINE if client is None else ModelEntry.Kind.MODEL
    # The entry's own spelling: the same model in another case adds to the same rows.
    model = claim_model_name(model, user=started_by, kind=kind).name
    tasks = list(tasks)
    jobs, total = [], 0
    for task in tasks:
        done = set(
            FamilyAttempt.objects.filter(model_name=model, task=task).values_list("run", flat=True)
        )
        total += runs
        jobs += [(task, run) for run in range(runs) if run not in done]

    def play(job: tuple[FamilyTask, int]) -> FamilyAttempt | None:
        task, run = job
        try:
            return _play_one(task, run, model=model, player=started_by, client=client, seed=seed)
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
        results = list(pool.map(play, jobs))
    attempts = [attempt for attempt in results if attempt is not None]
    if attempts:
        # One recompute for the whole run (its attempts marked their groups stale).
        queue_recompute()
    stored = FamilyAttempt.objects.filter(model_name=model, task__in=tasks, run__lt=runs)
    return FamilyRunReport(
        attempts=len(attempts),
        correct=sum(bool(a.correct) for a in attempts),
        parse_errors=sum(bool(a.parse_error) for a in attempts),
        failed=len(results) - len(attempts),
        skipped=total - len(jobs),
        stored=tuple(stored.order_by("task_id", "run").values_list("pk", flat=True)),
    )


MOVE_LINE = re.compile(r"^\s*\**\s*move\s*\**\s*[:：]\s*\**\s*(.+?)\s*\**\s*$", re.I | re.M)
MAX_PARSE_ERRORS = 3


def _shown(observation) -> str:
    """What a move showed, for the model: the facts as JSON, a board as its lines."""
    if isinstance(observation, dict) and isinstance(observation.get("view"), str):
        facts = {key: value for key, value in observation.items() if key != "view"}
        return f"Result: {json.dumps(facts)}\nBoard now:\n{observation['view']}"
    return f"Result: {json.dumps(observation)}"


def _play_game(task, run, *, model, player, client, seed) -> FamilyAttempt | None:
    """One multi-turn game, move by move: the model is sent the rules and the start, replies
    with one "Move: …" line a turn and is told what each move showed (or why it was
    refused); the game ends when it is over, at its turn limit, or after three replies with
    no readable move. The server keeps the state: the model sees only the observations."""
    family = get_family(task.family)
    instance = task.to_core()
    started = timezone.now()
    limit = int(instance.public.get("turn_limit", 50))
    history: list[str] = []
    turns: list[dict] = []  # a chat model's replies (``turn``)
    sent: list[FamilyStep] = []  # every move sent, accepted or refused, as the game's steps
    invalid = parse_errors = tokens = 0

    def record(move: str, error: str = "") -> None:
        now = timezone.now()
        previous = sent[-1].created_at if sent else started
        sent.append(
            FamilyStep(
                index=len(sent),
                move=move,
                accepted=not error,
                error=error[:500],
                created_at=now,
                elapsed_ms=max(0, int((now - previous).total_seconds() * 1000)),
            )
        )

    if client is None:
        if model != "reference":
            raise ValueError(f"the built-in player {model!r} does not play games; use reference")
        moves = family.reference_answer(instance).splitlines()
        for move in moves:
            history.append(move)
            record(move)
            if family.step(instance, history[:-1], move)["over"]:
                break
    else:

        def play(move: str) -> tuple[object, bool]:
            try:
                result = family.step(instance, history, move)
            except FamilyError as error:
                record(move, str(error) or "refused")
                raise MoveRefused(str(error)) from None
            history.append(move)
            record(move)
            return result["observation"], result["over"] or len(history) >= limit

        try:
            talk = _converse(client, instance, limit + MAX_PARSE_ERRORS * 2, play)
        except LLMError:
            return None
        invalid, parse_errors, tokens = talk.refused, talk.parse_errors, talk.tokens
        turns = talk.turns
    score = family.finish(instance, history)
    return _store(
        task, run, model, player, started,
        answer="\n".join(history),
        steps=sent,
        turns=turns,
        invalid_moves=invalid,
        correct=score.correct,
        value=score.value,
        details={**score.details, "invalid_moves": invalid, "parse_errors": parse_errors},
        tokens=tokens,
        parse_error=f"{parse_errors} repl(y/ies) without a move" if parse_errors else "",
    )  # fmt: skip


class MoveRefused(Exception):
    """A move the game refused; its message is the reason the model is told."""


@dataclass
class Conversation:
    tokens: int = 0
    parse_errors: int = 0
    refused: int = 0
    turns: list[dict] = field(default_factory=list)  # every reply (``turn``)


def _converse(client: ChatClient, instance: FamilyInstance, turns: int, play) -> Conversation:
    """The one game loop of every runner: ``play(move)`` makes a move and returns what it
    showed and whether the game is over (``MoveRefused`` for a move not allowed, which the
    model is told). Ends when the game is over or after ``turns`` replies. ``LLMError``
    propagates.

    Two ways to talk, as the family says (``Family.stand_alone_turns``): one conversation in
    which the model is sent the rules and the start and replies with one "Move: …" line a
    turn (three replies with no readable move end it); or, as KORGym plays, every turn a
    new conversation holding the current board alone, the move read by the family's
    ``parse_reply`` and played even when nothing was read (KORGym verifies an empty action),
    counted as a parse error."""
    family = get_family(instance.family)
    if getattr(family, "stand_alone_turns", False):
        return _stand_alone_turns(client, family, instance, turns, play)
    talk = Conversation()
    messages = [
        {
            "role": "user",
            "content": f"{instance.public['text']}\n\nPlay one move per reply, ending the reply "
            "with one line: Move: <your move>",
        }
    ]
    for _ in range(turns):
        answer = client.chat(messages)
        talk.tokens += answer.total_tokens
        reply = answer.content or ""
        messages.append({"role": "assistant", "content": reply})
        found = MOVE_LINE.findall(reply)
        talk.turns.append(turn(answer, reply, found[-1] if found else None))
        if not found:
            talk.parse_errors += 1
            talk.turns[-1]["error"] = 'parse error: no line "Move: <move>" in the reply'
            if talk.parse_errors >= MAX_PARSE_ERRORS:
                break
            messages.append({"role": "user", "content": 'End your reply with "Move: <move>".'})
            continue
        try:
            observation, over = play(found[-1])
        except MoveRefused as error:
            talk.refused += 1
            talk.turns[-1]["error"] = f"refused: {error}"
            messages.append({"role": "user", "content": f"Not allowed: {error}. Try again."})
            continue
        if over:
            break
        messages.append({"role": "user", "content": _shown(observation)})
    return talk


def _stand_alone_turns(client, family, instance: FamilyInstance, turns: int, play):
    talk = Conversation()
    board = family.prompt(instance)
    for _ in range(turns):
        answer = client.chat([{"role": "user", "content": board}])
        talk.tokens += answer.total_tokens
        parsed = family.parse_reply(instance, answer.content or "")
        talk.parse_errors += bool(parsed.error)
        talk.turns.append(turn(answer, answer.content or "", parsed.answer, parsed.error))
        try:
            observation, over = play(parsed.answer or "")
        except MoveRefused as error:
            talk.refused += 1
            refused = f"refused: {error}"
            talk.turns[-1]["error"] = "; ".join(filter(None, (parsed.error, refused)))
            continue
        if over:
            break
        board = observation["view"] if isinstance(observation, dict) else str(observation)
    return talk


def _store(
    task, run, model, player, started, *, answer: str, steps: Sequence[FamilyStep] = (), **fields
) -> FamilyAttempt:
    """The model's attempt (one per task, model and run), written or replaced with its
    game's ``steps`` (none for a task answered once), and its board group marked stale
    with it."""
    finished = timezone.now()
    with transaction.atomic():
        attempt, _ = FamilyAttempt.objects.update_or_create(
            model_name=model,
            task=task,
            run=run,
            defaults={
                "player": player,
                "answer": answer[:ANSWER_MAX],
                "finished_at": finished,
                "elapsed_ms": int((finished - started).total_seconds() * 1000),
                **fields,
            },
        )
        attempt.steps.all().delete()  # a replaced attempt's moves are the new play's
        for step in steps:
            step.attempt = attempt
        FamilyStep.objects.bulk_create(steps)
        mark_task_stale(task)
    return attempt


def _play_one(task, run, *, model, player, client, seed) -> FamilyAttempt | None:
    """One attempt, stored; None when the API failed for good (nothing is stored, and the
    next run of the command plays it again)."""
    family = get_family(task.family)
    if family.interactive:
        return _play_game(task, run, model=model, player=player, client=client, seed=seed)
    instance = task.to_core()
    started = timezone.now()
    tokens, answer = 0, None
    if client is None:
        rng = random.Random(f"{seed}/{task.pk}/{run}")
        reply = {
            "reference": family.reply_with(instance, family.reference_answer(instance)),
            "random": family.reply_with(instance, random_answer(instance, rng)),
            "blank": "",
        }[model]
    else:
        try:
            answer = client.chat([{"role": "user", "content": family.prompt(instance)}])
            reply, tokens = answer.content, answer.total_tokens
        except LLMError:
            return None
    parsed = family.parse_reply(instance, reply)
    turns = [turn(answer, reply, parsed.answer, parsed.error)]
    if parsed.answer is None:
        correct, value, details = False, 0.0, {"reply": reply[-500:]}
    else:
        score = family.score(instance, parsed.answer)
        correct, value, details = score.correct, score.value, dict(score.details)
    return _store(
        task, run, model, player, started,
        answer=parsed.answer or "",
        correct=correct,
        value=value,
        details=details,
        tokens=tokens,
        parse_error=parsed.error[:500],
        turns=turns,
    )  # fmt: skip


# -- ranked attempts of a live round (leaderboard.ranked_families) -------------------------


def play_ranked_attempts(
    *, model: str, family: str, kind: str, level: str, player: User, client: ChatClient
) -> FamilyRunReport:
    """Play the model's remaining ranked attempts of (family, kind, level) in the live
    round, one after the other, through the same service as the API: each is started by
    ``do_start_ranked_family_attempt`` (a fresh task with a secret seed) and answered, or
    played move by move, through ``engine.families``. The model sees the task's public view
    and what its moves showed, nothing else; the reply tells right or wrong and the score,
    the reference only after the round closes. Stops when the quota is used up (or the
    round has too many open attempts); an API failure leaves the attempt open, and an
    attempt still open when the round closes counts as failed."""
    from leaderboard.ranked import NoMoreGames, TooManyOpenGames
    from leaderboard.ranked_families import do_start_ranked_family_attempt

    played = correct = parse_errors = failed = 0
    stored: list[int] = []
    while True:
        try:
            ranked = do_start_ranked_family_attempt(
                player, model=model, family=family, kind=kind, level=level
            )
        except (NoMoreGames, TooManyOpenGames):
            break  # all played (or too many left open by earlier runs)
        attempt = ranked.attempt
        stored.append(attempt.pk)
        public = FamilyInstance(family, kind, dict(attempt.task.params), 0, attempt.task.public, {})
        try:
            if get_family(family).interactive:
                errors = _play_ranked_game(attempt, public, player, client)
            else:
                errors = _answer_ranked(attempt, public, player, client)
        except LLMError:
            failed += 1
            break  # the API is down: the attempt stays open, do not open more
        attempt.refresh_from_db()
        played += 1
        correct += bool(attempt.correct)
        parse_errors += bool(errors)
    return FamilyRunReport(played, correct, parse_errors, failed, skipped=0, stored=tuple(stored))


def _answer_ranked(attempt: FamilyAttempt, public: FamilyInstance, player, client) -> str:
    from engine import families

    family = get_family(public.family)
    reply = client.chat([{"role": "user", "content": family.prompt(public)}])
    parsed = family.parse_reply(public, reply.content or "")
    # With no readable answer, the reply itself is the answer (scored, most likely wrong):
    # a ranked attempt always ends.
    answer = parsed.answer if parsed.answer is not None else (reply.content or "").strip()
    try:
        families.answer_attempt(attempt.pk, player, answer[:ANSWER_MAX] or "(no answer)")
    except families.AttemptError as error:
        families.answer_attempt(attempt.pk, player, f"(no answer: {error})")
    FamilyAttempt.objects.filter(pk=attempt.pk).update(
        tokens=reply.total_tokens,
        parse_error=parsed.error[:500],
        turns=[turn(reply, reply.content or "", parsed.answer, parsed.error)],
    )
    return parsed.error


def _play_ranked_game(attempt: FamilyAttempt, public: FamilyInstance, player, client) -> str:
    """A ranked game, move by move through ``engine.families.move_attempt``; after three
    replies with no readable move the game is left open (it counts as failed at close)."""
    from engine import families

    limit = int(public.public.get("turn_limit", 50))

    def play(move: str) -> tuple[object, bool]:
        try:
            played = families.move_attempt(attempt.pk, player, move)
        except families.AttemptFinished:
            return None, True
        except families.AttemptError as error:
            raise MoveRefused(str(error)) from None
        if played.finished:
            return None, True
        return families.game_log(played)[-1]["observation"], False

    talk = _converse(client, public, limit * 2 + MAX_PARSE_ERRORS * 2, play)
    tokens, parse_errors = talk.tokens, talk.parse_errors
    FamilyAttempt.objects.filter(pk=attempt.pk).update(
        tokens=tokens,
        parse_error=f"{parse_errors} repl(y/ies) without a move" if parse_errors else "",
        turns=talk.turns,
    )
    return "no move" if parse_errors else ""
