"""Fixtures of the task-family tests (play_family is in tests/conftest.py)."""
