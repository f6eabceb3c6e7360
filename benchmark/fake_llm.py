"""A scripted, local stand-in for an OpenAI-compatible chat-completions server.

For tests and benchmarks only: it listens on 127.0.0.1 (port 0, so the OS picks a free
one), records every request, and answers each ``POST …/chat/completions`` with whatever a
*script* returns for it. A script is any callable taking a :class:`FakeRequest` and
returning a :class:`FakeResponse`, so it can play a game well or badly, stall past the
client's timeout, fail with 500 or 429 (with ``Retry-After``), drop the connection, send
malformed JSON, or answer in a reasoning model's shape::

    with FakeChatServer(lambda request: FakeResponse(content="<ANSWER> X </ANSWER>")) as server:
        client = ChatClient(server.base_url, "fake-model")

:class:`OracleScript` plays the optimal policy on instances it is told about out of band,
reading the truth and action lists from the conversation, as a capable model would.

From the command line it is a model anyone can run the platform's runners against without
an API (``python -m benchmark.fake_llm --port 8001``; ``--help`` for the options): a
:class:`GuessingScript` that plays every task from the conversation alone.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from benchmark.protocol import (
    answer_message,
    format_observation,
    parse_answer,
    read_task_lists,
)
from engine.core.families.kumo.search import best_action
from engine.core.families.kumo.types import Domain, Instance


@dataclass(frozen=True)
class FakeRequest:
    """One request as received: its index (0-based, in arrival order), path, headers and
    raw body, with the decoded JSON (``None`` if the body was not JSON)."""

    index: int
    path: str
    headers: Mapping[str, str]
    raw: bytes
    body: Any

    @property
    def messages(self) -> list[dict[str, Any]]:
        body = self.body if isinstance(self.body, dict) else {}
        return list(body.get("messages") or [])

    @property
    def attempt_key(self) -> str:
        """The conversation so far, to tell a retry of a request from a new one."""
        return json.dumps(self.messages, sort_keys=True)


@dataclass
class FakeResponse:
    """What to answer.

    By default a 200 chat completion whose message has ``content`` (and ``reasoning`` under
    the field ``reasoning_field``, for reasoning models) and a ``usage`` block computed from
    the request and reply sizes (or ``usage`` as given). ``status`` and ``headers`` replace
    the status line and add headers; ``body`` sends those bytes (or that JSON) as they are;
    ``delay`` waits that many seconds first; ``drop`` closes the connection without a word.
    """

    content: str | None = ""
    reasoning: str | None = None
    reasoning_field: str = "reasoning_content"
    status: int = 200
    headers: Mapping[str, str] = field(default_factory=dict)
    body: bytes | Mapping[str, Any] | None = None
    usage: Mapping[str, int] | None = None
    delay: float = 0.0
    drop: bool = False


Script = Callable[[FakeRequest], FakeResponse]


class FakeChatServer:
    """A threaded HTTP server on 127.0.0.1 running a script; use it as a context manager.

    ``requests`` lists every request received (thread-safe to read after the fact);
    ``handling_seconds`` the time spent producing each answer, script and delay included.
    """

    def __init__(
        self,
        script: Script,
        *,
        api_key: str | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
    ) -> None:
        self.script = script
        self.api_key = api_key
        self.requests: list[FakeRequest] = []
        self.handling_seconds: list[float] = []
        self._lock = threading.Lock()
        self._counter = itertools.count()
        self._stopping = threading.Event()
        self._server = ThreadingHTTPServer((host, port), _handler_for(self))
        self._server.daemon_threads = True
        # A short poll interval makes stop() prompt (shutdown waits for the next poll).
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.05,), name="fake-llm", daemon=True
        )

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def start(self) -> FakeChatServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()  # wakes handlers sleeping in a delay
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> FakeChatServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def _record(self, handler: BaseHTTPRequestHandler, raw: bytes) -> FakeRequest:
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        with self._lock:
            request = FakeRequest(
                index=next(self._counter),
                path=handler.path,
                headers=dict(handler.headers.items()),
                raw=raw,
                body=body,
            )
            self.requests.append(request)
        return request


def _handler_for(server: FakeChatServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as real APIs do
        # Headers and body go out in separate writes; without TCP_NODELAY the second waits
        # for the client's delayed ACK (~40 ms a reply), which no real server does.
        disable_nagle_algorithm = True

        def log_message(self, format: str, *args: object) -> None:
            pass  # quiet: tests and benchmarks read the recorded requests instead

        def do_POST(self) -> None:  # noqa: N802 - the name http.server dispatches to
            started = time.perf_counter()
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            if not self.path.rstrip("/").endswith("/chat/completions"):
                self._send(404, {"error": {"message": f"no route {self.path}"}})
                return
            request = server._record(self, raw)
            if server.api_key is not None and (
                self.headers.get("Authorization") != f"Bearer {server.api_key}"
            ):
                self._send(401, {"error": {"message": "Incorrect API key provided"}})
                return
            response = server.script(request)
            if response.delay and server._stopping.wait(response.delay):
                return
            if response.drop:
                self.close_connection = True
                self.connection.shutdown(2)
                return
            with server._lock:
                server.handling_seconds.append(time.perf_counter() - started)
            if response.body is not None:
                self._send(response.status, response.body, response.headers)
            elif response.status >= 400:
                message = response.content or f"fake error {response.status}"
                self._send(response.status, {"error": {"message": message}}, response.headers)
            else:
                self._send(response.status, _completion(request, response), response.headers)

        def _send(
            self, status: int, body: bytes | Mapping[str, Any], headers: Mapping[str, str] = {}
        ) -> None:
            data = body if isinstance(body, bytes) else json.dumps(body).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

    return Handler


def _completion(request: FakeRequest, response: FakeResponse) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": response.content}
    if response.reasoning is not None:
        message[response.reasoning_field] = response.reasoning
    usage = dict(response.usage) if response.usage is not None else _usage(request, response)
    body = request.body if isinstance(request.body, dict) else {}
    return {
        "id": f"fake-{request.index}",
        "object": "chat.completion",
        "created": 0,
        "model": body.get("model", "fake"),
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        "usage": usage,
    }


def _usage(request: FakeRequest, response: FakeResponse) -> dict[str, int]:
    # Roughly four characters a token: deterministic, and grows with the conversation.
    prompt = sum(len(str(m.get("content") or "")) for m in request.messages) // 4 + 1
    completion = (len(response.content or "") + len(response.reasoning or "")) // 4 + 1
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }


# -- scripts ---------------------------------------------------------------------------------


class OracleScript:
    """Plays the optimal policy on the instance a conversation is about.

    The instances are given out of band; the script recognises one from the truth and
    action lists of the system message, replays the moves of the earlier assistant
    messages on it and answers with :func:`engine.core.families.kumo.search.best_action` (or the
    truth
    left). ``reply`` wraps the move into the reply text; by default just the answer tag.
    """

    def __init__(
        self,
        domain: Domain,
        instances: Iterable[Instance],
        reply: Callable[[str], str] = answer_message,
    ) -> None:
        self.domain = domain
        self.reply = reply
        self.instances = list(instances)
        self._by_lists: dict[tuple[frozenset[str], frozenset[str]], list[int]] = {}
        for index, instance in enumerate(self.instances):
            key = (frozenset(instance.truths), frozenset(instance.actions))
            self._by_lists.setdefault(key, []).append(index)
        # Instances hold dicts (unhashable), so moves are cached by the instance's index.
        self._next_move = lru_cache(maxsize=65536)(self._compute_next_move)

    def __call__(self, request: FakeRequest) -> FakeResponse:
        return FakeResponse(content=self.reply(self.next_move(request.messages)))

    def next_move(self, messages: list[dict[str, Any]]) -> str:
        truths, actions = read_task_lists(messages[0]["content"])
        moves = tuple(
            parse_answer(m.get("content")) or "" for m in messages if m["role"] == "assistant"
        )
        return self._next_move(self.instance_index(truths, actions, messages), moves)

    def instance_for(self, messages: list[dict[str, Any]]) -> Instance:
        """The instance a conversation is about."""
        truths, actions = read_task_lists(messages[0]["content"])
        return self.instances[self.instance_index(truths, actions, messages)]

    def instance_index(
        self, truths: list[str], actions: list[str], messages: list[dict[str, Any]]
    ) -> int:
        candidates = self._by_lists.get((frozenset(truths), frozenset(actions)), [])
        if not candidates:
            raise LookupError("the conversation is about no instance this script was given")
        if len(candidates) > 1:
            # Same lists, different observations: keep the instances whose observations
            # agree with every observation the conversation reports.
            text = "\n".join(str(m.get("content")) for m in messages if m["role"] == "user")
            agreeing = [
                index
                for index in candidates
                if all(_agrees(self.instances[index], action, text) for action in actions)
            ]
            candidates = agreeing or candidates
        return candidates[0]

    def _compute_next_move(self, index: int, moves: tuple[str, ...]) -> str:
        instance = self.instances[index]
        remaining = list(instance.truths)
        actions = list(instance.actions)
        for move in moves:
            if move not in actions:
                continue  # an answer, or a move the game refused: nothing was observed
            state = self.domain.action(move).state_for(instance.observations[move])
            remaining = [t for t in remaining if t not in state.rules_out]
            actions.remove(move)
        action = best_action(self.domain, remaining, actions)
        if action is not None:
            return action
        if len(remaining) == 1:
            return remaining[0]
        return instance.valid_truth  # the truth no remaining action can rule out


def _agrees(instance: Instance, action: str, text: str) -> bool:
    """Whether ``text`` reports no observation of ``action`` other than the instance's."""
    prefix = f"Observation from previous action ({action}): "
    if prefix not in text:
        return True
    return prefix + format_observation(instance.observations[action]) in text


def scripted(*responses: FakeResponse, then: Script | None = None) -> Script:
    """A script answering the first requests with ``responses`` in order, then ``then``
    (or the last response again)."""
    queue = list(responses)
    lock = threading.Lock()

    def script(request: FakeRequest) -> FakeResponse:
        with lock:
            if queue:
                return queue.pop(0)
        if then is not None:
            return then(request)
        return responses[-1]

    return script


class GuessingScript:
    """A model with no knowledge, for trying the runners without an API: it reads a KUMO
    game's truths and actions from the conversation, takes a few actions it has not taken
    yet and then names a truth, all drawn at random (seeded by the conversation's first
    message and ``seed``, so a run can be repeated); to any other task it replies with a
    guessed answer and move in the forms the families read ("Answer: …", "Move: …")."""

    def __init__(self, seed: int = 0, max_actions: int = 3) -> None:
        self.seed = seed
        self.max_actions = max_actions

    def __call__(self, request: FakeRequest) -> FakeResponse:
        import random

        messages = request.messages
        first = str(messages[0].get("content", "")) if messages else ""
        turn = sum(1 for m in messages if m.get("role") == "assistant")
        rng = random.Random(f"{self.seed}/{first}/{turn}")
        try:
            truths, actions = read_task_lists(first)
        except ValueError:
            move = rng.choice(("up", "down", "left", "right"))
            return FakeResponse(content=f"A guess.\nMove: {move}\nAnswer: {rng.randint(0, 9)}")
        taken = {parse_answer(m.get("content")) for m in messages if m.get("role") == "assistant"}
        untaken = [action for action in actions if action not in taken]
        if untaken and turn < rng.randint(1, self.max_actions):
            return FakeResponse(content=answer_message(rng.choice(untaken)))
        return FakeResponse(content=answer_message(rng.choice(truths)))


def main(argv: list[str] | None = None) -> None:
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m benchmark.fake_llm",
        description="A local OpenAI-compatible chat server that plays every task by "
        "guessing: try the runners (manage.py evaluate, run_family_tasks) without an API.",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    parser.add_argument("--port", type=int, default=8001, help="port (0: any free one)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the guesses")
    parser.add_argument("--api-key", default=None, help="require this bearer key")
    args = parser.parse_args(argv)
    server = FakeChatServer(
        GuessingScript(args.seed), api_key=args.api_key, host=args.host, port=args.port
    )
    server.start()
    print(f"fake model listening at {server.base_url} (any model name; Ctrl-C stops)", flush=True)
    try:
        while server._thread.is_alive():
            server._thread.join(timeout=0.5)
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()


if __name__ == "__main__":
    main()
