"""Heavy libraries imported on first use, so that commands and processes start fast.

pandas, numpy, networkx and httpx take about 0.5 s to import together; a module that needs
them in a few functions names them at the top as usual (``pd = lazy_module("pandas")``)
and the import happens when an attribute is first read, through ``importlib.import_module``
(thread-safe, cached in ``sys.modules``). Unlike importlib's ``LazyLoader``, nothing is
put in ``sys.modules`` early, so other importers of the library are unaffected.
"""

from __future__ import annotations

import importlib
from types import ModuleType


class LazyModule:
    def __init__(self, name: str) -> None:
        self._name = name

    def _load(self) -> ModuleType:
        return importlib.import_module(self._name)

    def __getattr__(self, attribute: str):
        return getattr(self._load(), attribute)

    def __repr__(self) -> str:
        return f"<lazy module {self._name!r}>"


def lazy_module(name: str) -> LazyModule:
    return LazyModule(name)
