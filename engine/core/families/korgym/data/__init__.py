"""KORGym's data files used by its games (see NOTICE for where each comes from)."""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).resolve().parent


def read_lines(name: str) -> list[str]:
    """The file's lines, stripped of surrounding white space, as KORGym reads them (UTF-8)."""
    with open(HERE / name, encoding="utf-8") as f:
        return [line.strip() for line in f]
