"""One small client for OpenAI-compatible chat-completions APIs.

Shared by the benchmark runner and the domain-generation pipeline, so it knows nothing about
games: it sends ``messages`` to ``POST {base_url}/chat/completions`` and returns the reply's
text, any separate reasoning text and the token counts.

1. The API key is read from the environment variable *named* by ``api_key_env`` when the
   client is built. Only the variable's name is ever stored anywhere (database rows, logs,
   results files); the key lives in this object's request headers and nowhere else.
2. Failures that may pass (HTTP 408, 429 and 5xx, timeouts, dropped or refused connections,
   a 2xx body carrying an ``error`` object) are retried up to ``max_retries`` times with
   exponential back-off and jitter. A ``Retry-After`` header is honoured as given, unless it
   asks for longer than ``retry_after_max``, in which case the error is raised at once.
3. Other failures raise at once. Every error is an :class:`LLMError` whose message names the
   URL and what went wrong; :attr:`LLMError.fatal` says whether every further request would
   fail the same way (a wrong key, model or URL), so a caller can stop a batch early.
4. Reasoning models: ``message.reasoning_content`` (DeepSeek) or ``message.reasoning``
   (OpenRouter, vLLM) is returned as :attr:`ChatReply.reasoning`, as is a leading
   ``<think>…</think>`` block inside the content. :attr:`ChatReply.content` never includes
   it, so callers parse answers from the visible reply only.

The client is thread-safe: one instance (one connection pool) serves a whole thread pool.
"""

from __future__ import annotations

import json
import logging
import os
import random
import re
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Any

from engine.core.lazy import lazy_module

httpx = lazy_module("httpx")


# Statuses worth retrying: request timeout, rate limits and server-side failures.
RETRYABLE_STATUSES = frozenset({408, 409, 425, 429}) | frozenset(range(500, 600))
# Statuses after which every further request fails the same way (wrong key, model or URL).
FATAL_STATUSES = frozenset({401, 403, 404})

# httpx logs every request at INFO: thousands of lines per run, drowning the progress bar.
logging.getLogger("httpx").setLevel(logging.WARNING)

_THINK = re.compile(r"^\s*<think>(.*?)(?:</think>|$)", re.DOTALL)


class LLMError(Exception):
    """A chat request that failed; the message says where and why.

    ``attempts`` counts the requests made (1 when the first failure was final).
    """

    fatal = False

    def __init__(self, message: str, *, attempts: int = 1) -> None:
        super().__init__(message)
        self.attempts = attempts

    def __str__(self) -> str:
        message = super().__str__()
        if self.attempts > 1:
            return f"{message} (after {self.attempts} attempts)"
        return message


class LLMConfigError(LLMError):
    """The client is not usable as configured (no key in the named variable, bad URL)."""

    fatal = True


class LLMStatusError(LLMError):
    """The server answered with an HTTP error status."""

    def __init__(self, message: str, *, status_code: int, body: str = "", attempts: int = 1):
        super().__init__(message, attempts=attempts)
        self.status_code = status_code
        self.body = body

    @property
    def fatal(self) -> bool:  # type: ignore[override]
        return self.status_code in FATAL_STATUSES


class LLMTimeoutError(LLMError):
    """The server did not answer within the timeout."""


class LLMConnectionError(LLMError):
    """The server could not be reached, or dropped the connection."""


class LLMResponseError(LLMError):
    """The server answered 2xx with a body that is not a usable chat completion."""


@dataclass(frozen=True)
class ChatReply:
    """One chat completion.

    ``content`` is the visible reply (``""`` when the model sent none); ``reasoning`` is the
    separate reasoning text of reasoning models, or ``None``; token counts come from the
    API's ``usage`` (0 when it reports none); ``raw`` is the decoded JSON body.
    """

    content: str
    reasoning: str | None
    prompt_tokens: int
    completion_tokens: int
    raw: Mapping[str, Any] = field(repr=False)

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    @property
    def finish_reason(self) -> str | None:
        try:
            return self.raw["choices"][0].get("finish_reason")
        except (KeyError, IndexError, TypeError, AttributeError):
            return None


@dataclass
class TokenUsage:
    """Running totals over every successful request of one client."""

    requests: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


class ChatClient:
    """A client for one model behind one OpenAI-compatible endpoint.

    ``timeout`` bounds each stage of one request (connecting, sending, waiting for the
    reply), in seconds; ``max_retries`` is the number of retries after the first attempt.
    Back-off before retry *n* is ``backoff_base * 2**(n-1)`` seconds, capped at
    ``backoff_max``, times a random factor in [0.5, 1] so that many clients hitting a rate
    limit together do not retry in lockstep. ``default_params`` (e.g. ``temperature``) are
    sent with every request; keyword arguments of :meth:`chat` override them.
    ``sleep`` and ``rng`` exist so tests can observe back-off without waiting.
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key_env: str | None = None,
        timeout: float = 120.0,
        max_retries: int = 5,
        *,
        backoff_base: float = 1.0,
        backoff_max: float = 60.0,
        retry_after_max: float = 300.0,
        default_params: Mapping[str, Any] | None = None,
        max_connections: int = 64,
        sleep: Callable[[float], None] = time.sleep,
        rng: random.Random | None = None,
    ) -> None:
        if not re.match(r"^https?://[^/\s]+", base_url or ""):
            raise LLMConfigError(f"base URL must start with http:// or https://, got {base_url!r}")
        if not model:
            raise LLMConfigError("a model name is required")
        if timeout <= 0:
            raise LLMConfigError(f"timeout must be positive, got {timeout}")
        if max_retries < 0:
            raise LLMConfigError(f"max_retries must not be negative, got {max_retries}")
        self.base_url = base_url.rstrip("/")
        self.url = f"{self.base_url}/chat/completions"
        self.model = model
        self.api_key_env = api_key_env or None
        self.timeout = float(timeout)
        self.max_retries = max_retries
        self.backoff_base = backoff_base
        self.backoff_max = backoff_max
        self.retry_after_max = retry_after_max
        self.default_params = dict(default_params or {})
        self.usage = TokenUsage()
        self._sleep = sleep
        self._rng = rng or random.Random()
        self._lock = threading.Lock()
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json",
            "User-Agent": "kumo-platform",
        }
        if self.api_key_env:
            key = os.environ.get(self.api_key_env, "")
            if not key.strip():
                raise LLMConfigError(
                    f"environment variable {self.api_key_env} is not set; it must hold the API "
                    f"key for {self.base_url}"
                )
            headers["Authorization"] = f"Bearer {key.strip()}"
        self._http = httpx.Client(
            headers=headers,
            timeout=httpx.Timeout(self.timeout),
            limits=httpx.Limits(
                max_connections=max_connections, max_keepalive_connections=max_connections
            ),
        )

    def __enter__(self) -> ChatClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    def __repr__(self) -> str:
        # Never the key: only where it comes from.
        return f"ChatClient({self.base_url!r}, model={self.model!r}, key_from={self.api_key_env!r})"

    def chat(self, messages: Sequence[Mapping[str, Any]], **params: Any) -> ChatReply:
        """Send one chat-completions request (retrying as described above) and return the
        reply. Raises an :class:`LLMError` subclass when it finally fails."""
        body = {**self.default_params, **params, "model": self.model, "messages": list(messages)}
        payload = json.dumps(body, ensure_ascii=False).encode("utf-8")
        attempt = 0
        while True:
            attempt += 1
            reply, error, retry_after = self._attempt(payload, attempt)
            if reply is not None:
                return reply
            assert error is not None
            if attempt > self.max_retries:
                raise error
            if retry_after is not None and retry_after > self.retry_after_max:
                raise type(error)(
                    f"{error.args[0]}; the server asks to retry after {retry_after:g} s, "
                    f"longer than the {self.retry_after_max:g} s this client waits",
                    **_extra(error),
                )
            self._sleep(self._delay(attempt, retry_after))

    # -- one attempt -----------------------------------------------------------------------

    def _attempt(
        self, payload: bytes, attempt: int
    ) -> tuple[ChatReply | None, LLMError | None, float | None]:
        """One request: ``(reply, None, None)`` on success, else ``(None, error, retry_after)``
        for a retryable failure. Failures that must not be retried are raised here."""
        try:
            response = self._http.post(self.url, content=payload)
        except httpx.TimeoutException:
            message = f"no reply from {self.url} within {self.timeout:g} s"
            return None, LLMTimeoutError(message, attempts=attempt), None
        except httpx.TransportError as error:
            message = f"cannot reach {self.url}: {error or type(error).__name__}"
            return None, LLMConnectionError(message, attempts=attempt), None
        if response.is_success:
            try:
                return self._reply(response), None, None
            except _RetryableBody as error:
                return None, LLMResponseError(str(error), attempts=attempt), None
            except LLMResponseError as error:
                error.attempts = attempt
                raise
        detail = _error_detail(response)
        if response.status_code == 401 and self.api_key_env:
            detail += f" (check the key in {self.api_key_env})"
        status_error = LLMStatusError(
            f"HTTP {response.status_code} from {self.url}: {detail}",
            status_code=response.status_code,
            body=response.text[:2000],
            attempts=attempt,
        )
        if response.status_code not in RETRYABLE_STATUSES:
            raise status_error
        return None, status_error, _retry_after_seconds(response.headers.get("retry-after"))

    def _reply(self, response: httpx.Response) -> ChatReply:
        try:
            data = response.json()
        except ValueError:
            raise LLMResponseError(
                f"{self.url} answered {response.status_code} with a body that is not JSON: "
                f"{response.text[:200]!r}"
            ) from None
        if not isinstance(data, dict):
            raise LLMResponseError(f"{self.url} answered with JSON that is not an object")
        choices = data.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            if data.get("error"):
                # Some gateways report an upstream failure inside a 2xx body.
                raise _RetryableBody(f"{self.url} reported an error: {_error_text(data)}")
            raise LLMResponseError(f"{self.url} answered without any choices: {str(data)[:200]}")
        message = choices[0].get("message") or {}
        if not isinstance(message, dict):
            raise LLMResponseError(f"{self.url} answered with a message that is not an object")
        content = _text(message.get("content"))
        reasoning = _text(message.get("reasoning_content")) or _text(message.get("reasoning"))
        think = _THINK.match(content)
        if think:
            # Inline reasoning (<think>…</think> first): keep it apart from the visible reply.
            inline = think.group(1).strip()
            reasoning = f"{reasoning}\n\n{inline}" if reasoning else inline
            content = content[think.end() :]
        usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
        reply = ChatReply(
            content=content.strip(),
            reasoning=reasoning or None,
            prompt_tokens=_count(usage.get("prompt_tokens")),
            completion_tokens=_count(usage.get("completion_tokens")),
            raw=data,
        )
        with self._lock:
            self.usage.requests += 1
            self.usage.prompt_tokens += reply.prompt_tokens
            self.usage.completion_tokens += reply.completion_tokens
        return reply

    def _delay(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return retry_after
        ceiling = min(self.backoff_max, self.backoff_base * 2 ** (attempt - 1))
        return ceiling * self._rng.uniform(0.5, 1.0)


def _extra(error: LLMError) -> dict[str, Any]:
    """The keyword arguments that rebuild ``error`` with a new message."""
    extra: dict[str, Any] = {"attempts": error.attempts}
    if isinstance(error, LLMStatusError):
        extra.update(status_code=error.status_code, body=error.body)
    return extra


class _RetryableBody(Exception):
    """A 2xx body that reports an error (worth retrying, unlike a malformed body)."""


def _retry_after_seconds(value: str | None) -> float | None:
    """``Retry-After`` as seconds: a number of seconds or an HTTP date; ``None`` if absent."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _error_detail(response: httpx.Response) -> str:
    try:
        data = response.json()
    except ValueError:
        text = response.text.strip()
        return text[:300] or response.reason_phrase or "no details"
    return _error_text(data) if isinstance(data, dict) else str(data)[:300]


def _error_text(data: Mapping[str, Any]) -> str:
    error = data.get("error", data)
    if isinstance(error, dict):
        return str(error.get("message") or error)[:300]
    return str(error)[:300]


def _text(value: object) -> str:
    """Message content as text: a string, or the text parts of a list of parts."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        parts = [part.get("text", "") if isinstance(part, dict) else str(part) for part in value]
        return "".join(part for part in parts if isinstance(part, str))
    return str(value)


def _count(value: object) -> int:
    if isinstance(value, bool):
        return 0
    if isinstance(value, (int, float)) and value >= 0:
        return int(value)
    return 0
