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
"""

from __future__ import annotations

import asyncio
import json
import random
import re
from dataclasses import dataclass, field
from urllib.parse import urlsplit

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
        for position in sorted({int(p) for p in TASK_BUTTON.findall(page.text)}):
            tasks = self._expect(await self._get("/study/tasks/"), "/study/tasks/")
            played = await self.http.post(
                f"/study/tasks/{position}/",
                data={"csrfmiddlewaretoken": CSRF.search(tasks.text).group(1)},
                headers={"Referer": str(tasks.url)},
                follow_redirects=True,
            )
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
        if re.fullmatch(r"/families/attempts/\d+/", page.url.path):
            raise BotError(
                "this task set holds a task of another family; the bots rehearse sets of "
                "KUMO games only (build a rehearsal set without --family-task)"
            )
        if not match:
            raise BotError(f"expected the play page, got {page.url.path}")
        parts = urlsplit(self.base_url)
        scheme = "wss" if parts.scheme == "https" else "ws"
        cookie = "; ".join(f"{name}={value}" for name, value in self.http.cookies.items())
        headers = {"Cookie": cookie, "Origin": f"{parts.scheme}://{parts.netloc}"}
        url = f"{scheme}://{parts.netloc}/ws/play/{match.group(1)}/"
        async with websockets.connect(url, additional_headers=headers) as socket:
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
        )
        async with limit:
            return await bot.run()

    return list(await asyncio.gather(*(one(i, kind) for i, kind in enumerate(kinds, 1))))
