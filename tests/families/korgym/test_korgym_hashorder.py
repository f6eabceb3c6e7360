"""The set order some KORGym games depend on: korgym.hashorder against CPython itself,
run in a child process with string hashing unsalted (PYTHONHASHSEED=0)."""

from __future__ import annotations

import json
import os
import random
import string
import subprocess
import sys

import pytest

from engine.core.families.korgym.hashorder import set_order, unsalted_hash


def _cpython(lists: list[list]) -> tuple[list[list], list[list[int]]]:
    code = (
        "import json, sys\n"
        "lists = json.load(sys.stdin)\n"
        "print(json.dumps([[list(set(v)) for v in lists], [[hash(x) for x in v] for v in lists]]))"
    )
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    done = subprocess.run(
        [sys.executable, "-c", code], input=json.dumps(lists), capture_output=True, text=True,
        env=env, check=True,
    )  # fmt: skip
    orders, hashes = json.loads(done.stdout)
    return orders, hashes


def test_it_lists_a_set_as_cpython_does_with_hashing_unsalted():
    rng = random.Random(2026)
    lists = [["red", "orange", "blue", "green", "yellow", "purple", "cyan"] * 3, ["male"], []]
    for size in (3, 6, 30, 120, 400):
        pool = [
            "".join(rng.choices(string.ascii_letters, k=rng.randint(0, 10))) for _ in range(size)
        ]
        pool += ["√∑", "♠", "é", "𝄞"]
        lists.append([rng.choice(pool) for _ in range(size)])
        lists.append([rng.randint(-5, 500) for _ in range(size)])
    orders, hashes = _cpython(lists)
    for values, order, hashed in zip(lists, orders, hashes, strict=True):
        assert [unsalted_hash(v) for v in values] == hashed
        assert set_order(values) == order


def test_it_refuses_values_it_cannot_hash():
    with pytest.raises(TypeError, match="only str and int"):
        set_order([1.5])
