"""The drawing vocabulary and the style sheet agree: every tone a family may use is drawn."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from engine.core.families import display

SITE_CSS = Path(__file__).resolve().parents[2] / "static" / "css" / "site.css"


def test_every_tone_has_a_style():
    styled = set(re.findall(r"\.tone-([a-z0-9-]+)", SITE_CSS.read_text(encoding="utf-8")))
    missing = sorted(tone for tone in display.TONES if tone and tone not in styled)
    assert missing == []


def test_it_refuses_a_display_it_cannot_draw():
    with pytest.raises(display.DisplayError, match="unknown tone"):
        display.cell("x", "glitter")
    with pytest.raises(display.DisplayError, match="type"):
        display.check_display({"type": "picture"})
    with pytest.raises(display.DisplayError, match="face down"):
        display.check_display(display.cards([("pile", [{"rank": "K"}])]))
    too_big = display.grid([[display.cell()] * 200] * 60)
    with pytest.raises(display.DisplayError, match="at most"):
        display.check_display(too_big)
    display.check_display(display.stack(display.grid([[display.cell(2, "tile-2")]])))
