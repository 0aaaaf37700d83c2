"""Compiles the game's hot path to C with mypyc (the rest of the metadata is in pyproject.toml).

The engine and the server's per-decision code are already strictly typed (``mypy --strict``), which is
what mypyc needs; compiled, a decision costs the server about a third less CPU (docs/benchmarks.md).
Set ``CONQUEST_PURE_PYTHON=1`` to install without compiling (the code behaves the same, only slower).
"""

import os

from setuptools import setup

COMPILED = [
    "engine/actions.py",
    "engine/board.py",
    "engine/combat.py",
    "engine/events.py",
    "engine/game.py",
    "engine/goals.py",
    "engine/legal.py",
    "engine/observe.py",
    "engine/odds.py",
    "engine/policies.py",
    "engine/rules.py",
    "engine/setup.py",
    "engine/state.py",
    "engine/turns.py",
    "server/play/clock.py",
    "server/play/event_log.py",
    "server/ops/histogram.py",
    "server/play/mailbox.py",
    "server/play/messages.py",
    "server/play/runner.py",
    "server/play/seats.py",
    "server/play/session.py",
    "server/play/spectators.py",
    "server/play/stream.py",
    "server/play/wire.py",
]

if os.environ.get("CONQUEST_PURE_PYTHON"):
    setup()
else:
    from mypyc.build import mypycify

    # The build runs in pip's isolated environment, without the dependencies' type stubs: their types
    # are taken as Any here (they are Python objects either way); `make lint` type-checks strictly.
    os.environ["MYPYPATH"] = "proto"  # the generated conquest.v1 stubs
    flags = ["--config-file=", "--ignore-missing-imports", "--python-version=3.11"]
    setup(ext_modules=mypycify([*flags, *COMPILED], opt_level="3"))
