"""Compiles the game's hot path to C with mypyc (the rest of the metadata is in pyproject.toml).

The engine and the server's per-decision code are already strictly typed (``mypy --strict``), which is
what mypyc needs; compiled, a decision costs the server about a third less CPU (docs/benchmarks.md). The
modules are listed in pyproject.toml (``[tool.conquest] compiled``). Set ``CONQUEST_PURE_PYTHON=1`` to
install without compiling: slower, and tested too (``make test-pure``).
"""

import os
import tomllib

from setuptools import setup

if os.environ.get("CONQUEST_PURE_PYTHON"):
    setup()
else:
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
    # CONQUEST_MYPYC_OPT_LEVEL=0 builds the same modules in a fraction of the time, unoptimised: for a
    # check of what is built (tests/deploy), never for play.
    opt_level = os.environ.get("CONQUEST_MYPYC_OPT_LEVEL", "3")
    setup(ext_modules=mypycify([*flags, *compiled], opt_level=opt_level))
