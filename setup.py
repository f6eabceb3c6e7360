"""Build the compiled optimal search (engine/core/families/kumo/_fastsearch.c); the rest
is in pyproject.toml.

``pip install -e .`` (what ./start.sh runs) compiles it next to its source. Without a C
compiler the install still succeeds and engine.core.families.kumo.search falls back to its Python
solver,
which gives the same results, only slower.
"""

import platform

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext


class OptionalBuildExt(build_ext):
    """Build extensions, but leave them out (with a warning) if they cannot be compiled."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as error:  # noqa: BLE001 - any compiler failure
            self.warn(f"the compiled optimal search was not built ({error}); using Python")

    def build_extension(self, ext: Extension) -> None:
        try:
            super().build_extension(ext)
        except Exception as error:  # noqa: BLE001 - any compiler failure
            self.warn(f"{ext.name} was not built ({error}); using the Python solver")


setup(
    ext_modules=[
        Extension(
            "engine.core.families.kumo._fastsearch",
            ["engine/core/families/kumo/_fastsearch.c"],
            # No fused multiply-add: results must round exactly like the reference's Python.
            extra_compile_args=["-O2", "-ffp-contract=off", "-std=c11"]
            # The hardware popcount (every x86-64 CPU since 2008) instead of a library call.
            + (["-mpopcnt"] if platform.machine() in ("x86_64", "AMD64") else []),
        )
    ],
    cmdclass={"build_ext": OptionalBuildExt},
)
