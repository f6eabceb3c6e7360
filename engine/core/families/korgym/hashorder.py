"""The order in which CPython lists a ``set`` of strings (and small integers) when string
hashing is not randomised (``PYTHONHASHSEED=0``), for the KORGym games whose draws or
boards go through ``list(set(...))``.

Python salts string hashes per process, so such a game's board (and, where it samples from
the listed set, its answer) changes from one run of KORGym's server to the next. The one
reproducible rendition is KORGym run with ``PYTHONHASHSEED=0``; this module gives that
order in any process: CPython's SipHash-1-3 string hash with the all-zero key that seed
selects, and CPython 3.11's set table (8 slots to start, linear probes then perturbed
jumps, growing fourfold when three fifths full; a set lists its slots in order).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

_MASK64 = (1 << 64) - 1
_LINEAR_PROBES = 9
_PERTURB_SHIFT = 5
_MODULUS = (1 << 61) - 1  # CPython's integer hash modulus on 64-bit builds


def _rotate(x: int, bits: int) -> int:
    return ((x << bits) | (x >> (64 - bits))) & _MASK64


def _siphash13(data: bytes, k0: int = 0, k1: int = 0) -> int:
    v0 = k0 ^ 0x736F6D6570736575
    v1 = k1 ^ 0x646F72616E646F6D
    v2 = k0 ^ 0x6C7967656E657261
    v3 = k1 ^ 0x7465646279746573

    def round_(v0: int, v1: int, v2: int, v3: int) -> tuple[int, int, int, int]:
        v0 = (v0 + v1) & _MASK64
        v2 = (v2 + v3) & _MASK64
        v1 = _rotate(v1, 13) ^ v0
        v3 = _rotate(v3, 16) ^ v2
        v0 = _rotate(v0, 32)
        v2 = (v2 + v1) & _MASK64
        v0 = (v0 + v3) & _MASK64
        v1 = _rotate(v1, 17) ^ v2
        v3 = _rotate(v3, 21) ^ v0
        v2 = _rotate(v2, 32)
        return v0, v1, v2, v3

    whole = len(data) - len(data) % 8
    for at in range(0, whole, 8):
        word = int.from_bytes(data[at : at + 8], "little")
        v3 ^= word
        v0, v1, v2, v3 = round_(v0, v1, v2, v3)
        v0 ^= word
    last = ((len(data) & 0xFF) << 56) | int.from_bytes(data[whole:], "little")
    v3 ^= last
    v0, v1, v2, v3 = round_(v0, v1, v2, v3)
    v0 ^= last
    v2 ^= 0xFF
    for _ in range(3):
        v0, v1, v2, v3 = round_(v0, v1, v2, v3)
    return v0 ^ v1 ^ v2 ^ v3


def unsalted_hash(value: Any) -> int:
    """``hash(value)`` as CPython computes it with ``PYTHONHASHSEED=0`` (str or int)."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise TypeError(f"only str and int are supported, not {type(value).__name__}")
    if isinstance(value, int):
        h = abs(value) % _MODULUS
        h = -h if value < 0 else h
        return -2 if h == -1 else h
    if not value:
        return 0
    widest = max(map(ord, value))
    width = 1 if widest < 0x100 else 2 if widest < 0x10000 else 4
    data = b"".join(ord(c).to_bytes(width, "little") for c in value)
    h = _siphash13(data)
    h = h - (1 << 64) if h >= 1 << 63 else h
    return -2 if h == -1 else h


def _place(table: list, entry: tuple[int, Any], mask: int) -> bool:
    """Insert ``(hash, key)`` as CPython's ``set_add_entry`` does; False if present."""
    h, key = entry
    perturb = h & _MASK64
    i = perturb & mask
    while True:
        probes = _LINEAR_PROBES if i + _LINEAR_PROBES <= mask else 0
        for j in range(i, i + probes + 1):
            slot = table[j]
            if slot is None:
                table[j] = entry
                return True
            if slot[0] == h and slot[1] == key:
                return False
        perturb >>= _PERTURB_SHIFT
        i = (i * 5 + 1 + perturb) & mask


def set_order(values: Iterable[Any]) -> list[Any]:
    """``list(set(values))`` as CPython 3.11 lists it with ``PYTHONHASHSEED=0``."""
    table: list = [None] * 8
    used = 0
    for value in values:
        mask = len(table) - 1
        if not _place(table, (unsalted_hash(value), value), mask):
            continue
        used += 1
        if used * 5 >= mask * 3:  # no deletions here, so fill == used
            size = 8
            while size <= used * 4:
                size <<= 1
            old, table = table, [None] * size
            for entry in old:
                if entry is not None:
                    _place(table, entry, size - 1)
    return [entry[1] for entry in table if entry is not None]
