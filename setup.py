"""Compiles the game's hot path to C with mypyc (the rest of the metadata is in pyproject.toml).

The engine and the server's per-decision code are already strictly typed (``mypy --strict``), which is
what mypyc needs; compiled, a decision costs the server about a third less CPU (docs/benchmarks.md). The
modules are listed in pyproject.toml (``[tool.conquest] compiled``). Set ``CONQUEST_PURE_PYTHON=1`` to
install without compiling: slower, and tested too (``make test-pure``).
"""

import os
import sys
import tomllib
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from setuptools import setup
from setuptools.command.build_ext import build_ext


class ParallelBuildExt(build_ext):
    """Compiles an extension's C files side by side, one C compiler per core, largest file first.

    mypyc's multi-file mode writes one C file per module into one extension, which setuptools would
    compile one file after another: on 2 cores that left one idle for the whole compile."""

    def build_extension(self, ext: Any) -> None:
        compile_files = self.compiler.compile

        def compile_each(sources: list[str], *args: Any, **kwargs: Any) -> list[str]:
            largest_first = sorted(sources, key=lambda s: -os.path.getsize(s))
            jobs = os.cpu_count() or 1
            with ThreadPoolExecutor(jobs) as pool:
                objects = pool.map(lambda source: compile_files([source], *args, **kwargs), largest_first)
                done = dict(zip(largest_first, objects, strict=True))
            return [obj for source in sources for obj in done[source]]

        if len(ext.sources) > 1:
            size = sum(os.path.getsize(s) for s in ext.sources) / 1e6
            print(f"compiling {len(ext.sources)} C files ({size:.0f} MB) for {ext.name}", file=sys.stderr)
        self.compiler.compile = compile_each
        try:
            super().build_extension(ext)
        finally:
            del self.compiler.compile


def extensions() -> list[Any]:
    """The C extensions mypyc writes for the compiled list (its C sources generated here, not compiled)."""
    from mypyc.build import mypycify

    with open("pyproject.toml", "rb") as file:
        compiled = tomllib.load(file)["tool"]["conquest"]["compiled"]
    # The build runs in pip's isolated environment, without the dependencies' type stubs: their types
    # are taken as Any here (they are Python objects either way); `make lint` type-checks strictly. The
    # generated gRPC stubs' overloads differ only in grpc's types, so without them they look alike.
    os.environ["MYPYPATH"] = "sample_bots/python"  # the generated conquest.v1 stubs
    flags = [
        "--config-file=",
        "--ignore-missing-imports",
        "--python-version=3.11",
        "--disable-error-code=overload-cannot-match",
    ]
    # One C file per module (multi_file), compiled side by side by ParallelBuildExt.
    extensions: list[Any] = mypycify([*flags, *compiled], opt_level=OPT_LEVEL, multi_file=True)
    return extensions


# CONQUEST_MYPYC_OPT_LEVEL sets the C compiler's -O (3 by default) for a measurement; never lower for play.
OPT_LEVEL = os.environ.get("CONQUEST_MYPYC_OPT_LEVEL", "3")

if __name__ == "__main__":  # as setuptools runs it; tests/deploy imports it for extensions()
    if os.environ.get("CONQUEST_PURE_PYTHON"):
        setup()
    else:
        setup(ext_modules=extensions(), cmdclass={"build_ext": ParallelBuildExt})
