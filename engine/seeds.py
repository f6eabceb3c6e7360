"""Seeds of tasks whose answer must stay hidden: one rule for every family.

Our generators are open source and deterministic, so a task's seed *is* its answer: anyone
holding it regenerates the hidden part byte for byte. A task whose answer must stay on the
server (a ranked attempt of any family, a round's pinned tasks and instances, a study task
set's tasks) therefore gets its seed from a server secret, never from a public input:

* :func:`secret_seed` — a keyed hash (HMAC-SHA256 under ``TASK_SEED_SECRET``) of public
  parts such as the round's seed, the family, kind, level and index. The same round prepared
  again on the same server gives the same tasks (so a preparation can resume), while the
  same round prepared under another secret gives other tasks.
* :func:`fresh_seed` — 62 bits from the operating system's secure random source, for a task
  made for one attempt alone.

Such seeds are never served (API, page, export or error message) before the answer is
published (``leaderboard.access``); after publication they may be shown, so anyone can
regenerate the task and check it.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from django.conf import settings

SEED_BITS = 62  # a signed 64-bit column holds it, and so does every generator's Random


def secret_seed(*parts: object) -> int:
    """A 62-bit seed that follows from ``parts`` only for whoever holds the server's
    secret (``TASK_SEED_SECRET``, derived from ``SECRET_KEY`` unless set)."""
    message = "\x1f".join(str(part) for part in parts).encode("utf-8")
    digest = hmac.new(settings.TASK_SEED_SECRET.encode("utf-8"), message, hashlib.sha256)
    return int.from_bytes(digest.digest()[:8], "big") >> (64 - SEED_BITS)


def fresh_seed() -> int:
    """A 62-bit seed from the operating system's secure random source."""
    return secrets.randbits(SEED_BITS)
