"""Fixtures of the task-family tests."""

from __future__ import annotations

import re

import pytest


@pytest.fixture
def play_family(django_capture_on_commit_callbacks):
    """Start a family practice task as the families page does and follow it to the
    attempt's page; returns that page's address. A fresh task's job is queued on commit
    and runs in-process by default, so the request's page then redirects to the attempt."""

    def play(client, family: str, kind: str, level: str = "easy", **extra) -> str:
        with django_capture_on_commit_callbacks(execute=True):
            response = client.post(
                "/families/play/", {"family": family, "kind": kind, "level": level}, **extra
            )
        assert response.status_code == 302, response.content.decode()[:500]
        location = response["Location"]
        if re.fullmatch(r"/families/practice/\d+/", location):
            response = client.get(location)
            assert response.status_code == 302, response.content.decode()[:500]
            location = response["Location"]
        assert re.fullmatch(r"/families/attempts/\d+/", location), location
        return location

    return play
