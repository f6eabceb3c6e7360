"""Simulated participants that walk the whole study against a running site, as a person's
browser would: the study link, consent, the comprehension check, the practice task, every
task of their set over the play websocket, the questionnaire and the completion code.

Used by ``manage.py study_bots`` to rehearse a study before launch, and by the tests. The
bots see what a participant sees: the pages, the game's state over the websocket, and the
domain's rules (what the guidebook says, read from the database here). They never read an
instance's answer or its unplayed observations.

Three kinds:

* **careful**: reads the rules, takes actions until one candidate is left, thinks a while
  before each move, passes every attention check, never leaves the page;
* **careless**: answers each task at once, at random, and fails the attention checks;
* **paste**: plays like the careful one but pastes into the page and leaves it for long
  stretches before moves (what asking a chatbot looks like from the page).

Tasks of the other families (``FamilyTask``) are played on their own page, as a
participant plays them: a single-shot task's answer form is filled in and sent once, a
game's moves are sent one by one over its page's websocket until it ends. What the bot
sends is its :class:`FamilyPlan`, made by the command before any bot starts
(``family_plan``; a task no plan can be made for refuses the rehearsal up front): the
careful and paste-happy bots give the family's reference answer (its reference moves for a
game), the careless bot a random answer (for a game, the reference moves with slips the
game refuses now and then: random moves let its copy of the game fall out of step with the
server's on the production stack). The bots learn which task is which from their task list
(the set's name and the positions), never from the database.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
from dataclasses import dataclass, field
from urllib.parse import urlsplit

FAMILY_PAGE = re.compile(r"/families/attempts/(\d+)/")
TASK_SET = re.compile(r'id="task-set">([^<]*)<')
FAMILY_RESULT = re.compile(r'id="family-result-heading">([^<]+)<')
# Refused moves in a row after which a careless bot gives up on a game (its move words are
# all illegal where it stands): the rehearsal reports it instead of looping.
MAX_REFUSED_IN_A_ROW = 40


class Unplayable(Exception):
    """The bots cannot play this task (``family_plan``): the rehearsal is refused."""


@dataclass(frozen=True)
class FamilyPlan:
    """What a bot sends for one family task: form fields (single shot) or moves (a game),
    for the reference policy and for the random one."""

    name: str
    interactive: bool
    reference: tuple
    random: tuple
    turn_limit: int = 0
    # For a game: whether a move is allowed after the accepted ones (the careless bot
    # slips only in games that refuse its slip).
    allowed: object = None


def _form_fields(form: str | None, public: dict, answer: str) -> tuple[tuple[str, str], ...]:
    """The fields of the task page's answer form that give ``answer`` (the inverse of the
    family's ``read_form``) for the forms the bots can fill."""
    if form is None:
        return (("answer", answer),)
    if form == "sudoku":
        grid = json.loads(answer)
        return tuple(
            (f"cell-{r}-{c}", str(value))
            for r, row in enumerate(grid)
            for c, value in enumerate(row)
        )
    if form == "logic_grid":
        people = {row["names"]: row for row in json.loads(answer)}
        names = public["variables"]["names"]
        return tuple(
            (f"pick-{e}-{category}", str(people.get(name, {}).get(category, "")))
            for e, name in enumerate(names)
            for category in public["variables"]
            if category != "names"
        )
    raise Unplayable(f"the bots cannot fill a {form.replace('_', ' ')} form")


# The careless bot's slip in a game: no game's move (games that take any text, as KORGym's,
# are never sent it).
SLIP = "??"


def family_plan(task) -> FamilyPlan:
    """The bots' plan for a stored family task (``engine.models.FamilyTask``), checked: the
    reference plan must score as solved, else :class:`Unplayable` says why."""
    from benchmark.family_runner import random_answer
    from engine.core.families.base import FamilyError, get_family

    family = get_family(task.family)
    instance = task.to_core()
    name = f"{task.family}/{task.kind} ({task.level or 'custom'} level)"
    try:
        reference = family.reference_answer(instance)
    except Exception as error:  # noqa: BLE001 - any failure means: no plan
        raise Unplayable(f"{name}: no reference answer ({error})") from None
    if family.interactive:
        moves = tuple(move.strip() for move in reference.splitlines() if move.strip())
        if not moves or not family.score(instance, reference).correct:
            raise Unplayable(f"{name}: its reference moves do not win the game")
        keys = family.keys(task.kind).values() if hasattr(family, "keys") else ()
        words = tuple(sorted(set(moves) | set(keys)))
        limit = int(task.public.get("turn_limit") or 0)

        def allowed(history: list[str], move: str) -> bool:
            try:
                family.step(instance, history, move)
            except FamilyError:
                return False
            return True

        return FamilyPlan(name, True, moves, words, limit, allowed)
    form = family.answer_form(task.kind)
    try:
        fields = _form_fields(form, task.public, reference)
        guess = _form_fields(form, task.public, random_answer(instance, random.Random(task.pk)))
    except Unplayable as error:
        raise Unplayable(f"{name}: {error}") from None
    except (ValueError, KeyError, TypeError) as error:
        raise Unplayable(f"{name}: its reference answer does not fit its form ({error})") from None
    answer = family.read_form(task.kind, task.public, dict(fields)) if form else reference
    if not family.score(instance, answer).correct:
        raise Unplayable(f"{name}: its reference answer, sent through its form, is not right")
    return FamilyPlan(name, False, fields, guess)


KINDS = ("careful", "careless", "paste")
# Bots join with labels shaped like Prolific's IDs (24 hexadecimal digits, the study's
# default label pattern), recognisable by their start and with their kind in the last digit.
BOT_PREFIX = "b07"
KIND_DIGITS = {"careful": "c", "careless": "a", "paste": "f"}


def bot_label(tag: str, index: int, kind: str) -> str:
    """``BOT_PREFIX``, 8 hex digits of the run's tag, the bot's number in 12 digits and its
    kind's digit: 24 characters."""
    return f"{BOT_PREFIX}{tag}{index:012d}{KIND_DIGITS[kind]}"


def bot_kind(label: str) -> str | None:
    """The kind of the bot with this label, or None if it is no bot's."""
    if not label.startswith(BOT_PREFIX) or len(label) != 24:
        return None
    return next((kind for kind, digit in KIND_DIGITS.items() if label[-1] == digit), None)


RIGHT = {"valid": "one", "actions": "costs", "outcome": "guide", "colour": "purple"}
CSRF = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
TASK_BUTTON = re.compile(r'action="/study/tasks/(\d+)/"')
CODE = re.compile(r'id="completion-code">([^<]+)<')


class BotError(Exception):
    """A page or message the bot did not expect: the study's path is broken."""


@dataclass
class BotResult:
    kind: str
    label: str
    completion_code: str = ""
    games: int = 0
    solved: int = 0
    moves: int = 0
    error: str = ""
    notes: list[str] = field(default_factory=list)


def plan(count: int, mix: dict[str, int] | None = None) -> list[str]:
    """The kinds of ``count`` bots: by the given mix of weights, or 60/20/20."""
    mix = mix or {"careful": 3, "careless": 1, "paste": 1}
    unknown = set(mix) - set(KINDS)
    if unknown:
        raise ValueError(f"unknown bot kind(s): {', '.join(sorted(unknown))}")
    total = sum(mix.values())
    kinds: list[str] = []
    for kind in KINDS:
        kinds += [kind] * round(count * mix.get(kind, 0) / total)
    while len(kinds) < count:
        kinds.append("careful")
    return kinds[:count]


class Bot:
    def __init__(
        self,
        kind: str,
        label: str,
        *,
        base_url: str,
        link: str,
        rules,
        think: float,
        rng: random.Random,
        plans: dict[tuple[str, int], FamilyPlan] | None = None,
    ) -> None:
        self.kind = kind
        self.label = label
        self.base_url = base_url.rstrip("/")
        self.link = link
        self.rules = (
            rules  # domain name -> engine.core.families.kumo.types.Domain (the guidebook's rules)
        )
        self.think = think
        self.rng = rng
        self.plans = plans or {}  # (task set name, position) -> FamilyPlan
        self.result = BotResult(kind, label)

    # -- pages ---------------------------------------------------------------------------

    async def run(self) -> BotResult:
        import httpx

        async with httpx.AsyncClient(base_url=self.base_url, timeout=60) as http:
            self.http = http
            try:
                await self._walk()
            except Exception as error:  # noqa: BLE001 - a rehearsal reports, never crashes
                self.result.error = f"{type(error).__name__}: {error}"
        return self.result

    async def _get(self, url: str):
        response = await self.http.get(url, follow_redirects=True)
        if response.status_code != 200:
            raise BotError(f"GET {url}: {response.status_code}")
        return response

    async def _post(self, page, data: dict[str, str]):
        match = CSRF.search(page.text)
        if not match:
            raise BotError(f"no form on {page.url.path}")
        response = await self.http.post(
            page.url.path,
            data={"csrfmiddlewaretoken": match.group(1), **data},
            headers={"Referer": str(page.url)},
            follow_redirects=True,
        )
        if response.status_code != 200:
            raise BotError(f"POST {page.url.path}: {response.status_code}")
        return response

    def _expect(self, page, path: str):
        if page.url.path != path:
            raise BotError(f"expected {path}, got {page.url.path}")
        return page

    async def _walk(self) -> None:
        page = self._expect(await self._get(self.link), "/study/consent/")
        page = self._expect(await self._post(page, {"choice": "agree"}), "/study/instructions/")
        answers = dict(RIGHT)
        if self.kind == "careless":
            answers["colour"] = "red"  # skims: fails the attention item
            wrong = {**answers, "actions": "nothing"}
            page = self._expect(await self._post(page, wrong), "/study/instructions/")
        page = self._expect(await self._post(page, answers), "/study/practice/")
        played = await self._post(page, {"do": "start"})
        await self._play(played, practice=True)
        page = self._expect(await self._get("/study/practice/"), "/study/practice/")
        page = self._expect(await self._post(page, {"do": "continue"}), "/study/tasks/")
        task_set = TASK_SET.search(page.text)
        for position in sorted({int(p) for p in TASK_BUTTON.findall(page.text)}):
            tasks = self._expect(await self._get("/study/tasks/"), "/study/tasks/")
            played = await self.http.post(
                f"/study/tasks/{position}/",
                data={"csrfmiddlewaretoken": CSRF.search(tasks.text).group(1)},
                headers={"Referer": str(tasks.url)},
                follow_redirects=True,
            )
            if FAMILY_PAGE.fullmatch(played.url.path):
                key = (task_set.group(1) if task_set else "", position)
                if key not in self.plans:
                    raise BotError(f"no plan for the family task at position {position}")
                await self._answer_family(played, self.plans[key])
            else:
                await self._play(played, practice=False)
        page = self._expect(await self._get("/study/"), "/study/questionnaire/")
        attention = "often" if self.kind == "careless" else "sometimes"
        answers = {"difficulty": "3", "help": "no", "attention": attention, "comment": ""}
        page = self._expect(await self._post(page, answers), "/study/complete/")
        match = CODE.search(page.text)
        if not match:
            raise BotError("no completion code on the completion page")
        self.result.completion_code = match.group(1)

    # -- one game over the websocket ------------------------------------------------------

    async def _play(self, page, *, practice: bool) -> None:
        import websockets

        match = re.fullmatch(r"/play/(\d+)/", page.url.path)
        if not match:
            raise BotError(f"expected the play page, got {page.url.path}")
        url = self._socket_url(f"/ws/play/{match.group(1)}/")
        async with websockets.connect(url, additional_headers=self._socket_headers()) as socket:
            state = await self._state(socket)
            rules = self.rules.get(state["domain"])
            candidates = list(state["truths"])
            while not state["finished"]:
                if self.kind == "careless" or rules is None:
                    move = {"type": "answer", "truth": self.rng.choice(candidates)}
                else:
                    await asyncio.sleep(self.think * self.rng.uniform(0.8, 1.2))
                    move = self._careful_move(state, rules, candidates)
                move["client"] = self._report()
                await socket.send(json.dumps(move))
                state = await self._state(socket, after=len(state["steps"]))
                self.result.moves += 1
            if not practice:
                self.result.games += 1
                self.result.solved += bool(state.get("result", {}).get("correct"))

    # -- a task of another family, on its page ------------------------------------------------

    async def _send_family(self, page, data: dict[str, str]):
        """Send the task page's form (with the page's report, as play_signals.js does)."""
        match = CSRF.search(page.text)
        if not match or page.status_code != 200:
            raise BotError(f"no answer form on {page.url.path} ({page.status_code})")
        response = await self.http.post(
            page.url.path,
            data={
                "csrfmiddlewaretoken": match.group(1),
                "client": json.dumps(self._report()),
                **data,
            },
            headers={"Referer": str(page.url)},
            follow_redirects=True,
        )
        if response.status_code != 200 or response.url.path != page.url.path:
            raise BotError(f"POST {page.url.path}: {response.status_code} {response.url.path}")
        self.result.moves += 1
        return response

    async def _answer_family(self, page, plan: FamilyPlan) -> None:
        """Answer a single-shot task once, or play a game move by move until its page shows
        the result; careful and paste-happy bots follow the reference, the careless bot
        answers at random."""
        reference = self.kind != "careless"
        if not FAMILY_RESULT.search(page.text):
            if not plan.interactive:
                if reference:
                    await asyncio.sleep(self.think * self.rng.uniform(0.8, 1.2))
                fields = plan.reference if reference else plan.random
                page = await self._send_family(page, dict(fields))
            else:
                page = await self._play_family_game(page, plan, reference)
        heading = FAMILY_RESULT.search(page.text)
        if not heading:
            raise BotError(f"{plan.name}: no result on {page.url.path} after its answer")
        self.result.games += 1
        self.result.solved += heading.group(1).strip() == "Correct"

    async def _play_family_game(self, page, plan: FamilyPlan, reference: bool):
        """A game of another family move by move over its page's websocket, as the page
        plays it (static/js/family_game.js); once it has ended, its page again, with the
        result."""
        import websockets

        match = re.fullmatch(r"/families/attempts/(\d+)/", page.url.path)
        if not match:
            raise BotError(f"{plan.name}: expected the game's page, got {page.url.path}")
        moves = list(plan.reference)
        played: list[str] = []
        refused = 0
        async with websockets.connect(
            self._socket_url(f"/ws/family-attempts/{match.group(1)}/"),
            additional_headers=self._socket_headers(),
        ) as socket:
            state, _ = await self._family_state(socket)
            while not state["finished"]:
                if not reference and self.rng.random() < 0.3 and not plan.allowed(played, SLIP):
                    move = SLIP  # the careless bot slips: a move the game refuses, counted
                else:
                    if not moves:
                        raise BotError(f"{plan.name}: the reference moves ran out before the end")
                    if reference:
                        await asyncio.sleep(self.think * self.rng.uniform(0.8, 1.2))
                    move = moves.pop(0)
                message = {"type": "move", "move": move, "client": self._report()}
                await socket.send(json.dumps(message))
                state, error = await self._family_state(socket, after=state["steps"])
                self.result.moves += 1
                if state["finished"]:
                    break  # the game ended (won, at its limit, or its time ran out)
                if error is None:
                    refused = 0
                    played.append(move)
                else:
                    refused += 1
                    if move != SLIP or refused >= MAX_REFUSED_IN_A_ROW:
                        raise BotError(f"{plan.name}: the game refused the move {move!r}")
        page = await self.http.get(page.url.path, follow_redirects=True)
        return page

    async def _family_state(self, socket, after: int = -1) -> tuple[dict, str | None]:
        """The next state with more than ``after`` steps (or an ended game's), and the error
        that came before it, if any (a refused move)."""
        error = None
        while True:
            message = json.loads(await asyncio.wait_for(socket.recv(), 30))
            if message.get("type") == "error":
                error = message.get("message", "")
                continue
            if message.get("type") == "state" and (message["finished"] or message["steps"] > after):
                return message, error

    def _socket_url(self, path: str) -> str:
        parts = urlsplit(self.base_url)
        return f"{'wss' if parts.scheme == 'https' else 'ws'}://{parts.netloc}{path}"

    def _socket_headers(self) -> dict[str, str]:
        """The session cookie and the site's origin, as the browser sends them."""
        parts = urlsplit(self.base_url)
        cookie = "; ".join(f"{name}={value}" for name, value in self.http.cookies.items())
        return {"Cookie": cookie, "Origin": f"{parts.scheme}://{parts.netloc}"}

    def _careful_move(self, state: dict, rules, candidates: list[str]) -> dict:
        """Rule out what the seen outcomes rule out (the guidebook's rules); act while more
        than one candidate is left, then answer."""
        for step in state["steps"]:
            if step["kind"] == "action" and step["accepted"]:
                try:
                    out = rules.action(step["name"]).state_for(step["observation"]).rules_out
                except KeyError:
                    continue
                candidates[:] = [truth for truth in candidates if truth not in out]
        if len(candidates) > 1 and state["remaining_actions"]:
            return {"type": "action", "action": state["remaining_actions"][0]}
        return {"type": "answer", "truth": candidates[0] if candidates else state["truths"][0]}

    def _report(self) -> dict:
        """What the play page would report with the move (play_signals.js)."""
        thought = int(self.think * 1000)
        if self.kind == "paste":
            away = self.rng.randint(30_000, 60_000)
            return {
                "pastes": 1,
                "hidden_count": 1,
                "hidden_ms": away,
                "blur_count": 1,
                "blur_ms": away,
                "keys": 2,
                "first_input_ms": thought,
            }
        if self.kind == "careless":
            return {"keys": 0, "first_input_ms": 50}
        return {"keys": 0, "first_input_ms": thought}

    async def _state(self, socket, after: int = -1) -> dict:
        """The next state message with more than ``after`` steps (errors are kept)."""
        while True:
            message = json.loads(await asyncio.wait_for(socket.recv(), 30))
            if message.get("type") == "error":
                self.result.notes.append(message.get("message", ""))
                continue
            state = message.get("state")
            if message.get("type") == "state" and (
                len(state["steps"]) > after or state["finished"]
            ):
                return state


async def run_bots(
    kinds: list[str],
    *,
    base_url: str,
    link: str,
    rules: dict,
    think: float = 2.5,
    concurrency: int = 20,
    seed: int | None = None,
    plans: dict[tuple[str, int], FamilyPlan] | None = None,
) -> list[BotResult]:
    """Run one bot per kind, at most ``concurrency`` at once; ``link`` is the study link
    without its label (…/study/join/<key>/?PROLIFIC_PID=)."""
    rng = random.Random(seed)
    tag = f"{rng.getrandbits(32):08x}"
    limit = asyncio.Semaphore(concurrency)

    async def one(index: int, kind: str) -> BotResult:
        label = bot_label(tag, index, kind)
        bot = Bot(
            kind,
            label,
            base_url=base_url,
            link=link + label,
            rules=rules,
            think=think,
            rng=random.Random(rng.random()),
            plans=plans,
        )
        async with limit:
            return await bot.run()

    return list(await asyncio.gather(*(one(i, kind) for i, kind in enumerate(kinds, 1))))
