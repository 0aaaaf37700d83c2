"""Every pointer a newcomer follows resolves (issue 18: "Every docstring and doc pointer resolves"): file
paths and dotted ``engine.``/``server.`` names named in the docs, the README and the code's docstrings and
comments name files and modules that exist."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TOP = "engine|server|benchmarks|tests|sample_bots|deploy|docs|proto|\\.ci"
PATH = re.compile(rf"(?<![\w./-])((?:{TOP})/[\w./-]*\w)")
DOTTED = re.compile(r"(?<![\w.])((?:engine|server)(?:\.\w+)+)")
QUOTED_DOTTED = re.compile(r"(?<=`)((?:engine|server)(?:\.\w+)+)")
"""In code, only names quoted in a docstring or comment: ``server.start()`` in code is a variable's method."""
SOURCES = [
    ROOT / "README.md",
    *sorted((ROOT / "docs").rglob("*.md")),
    *sorted((ROOT / "engine").rglob("*.py")),
    *sorted((ROOT / "server").rglob("*.py")),
    *sorted((ROOT / "benchmarks").rglob("*.py")),
    ROOT / "tests" / "reference" / "make_2210_data.py",
    ROOT / "Makefile",
    ROOT / "setup.py",
    ROOT / "pyproject.toml",
]
CONFIG_KEYS = re.compile(r"^server\.(\w+)$")
"""``server.practice``, ``server.database_url``, ...: the config file's [server] table, not modules."""


def _config_keys() -> set[str]:
    from server.ops.config import ServerConfig

    return set(ServerConfig.__dataclass_fields__)


def _resolves(dotted: str) -> bool:
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            target: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:]:
            if not hasattr(target, name):
                # a dataclass field or a method's attribute named in prose: the class itself must exist
                return cut < len(parts) and isinstance(target, type)
            target = getattr(target, name)
        return True
    return False


def test_every_named_path_exists() -> None:
    missing = []
    for source in SOURCES:
        for number, line in enumerate(source.read_text().splitlines(), 1):
            for match in PATH.finditer(line):
                named = match.group(1).rstrip(".")
                if any(c in named for c in "*<{") or named.startswith("tests/tmp"):
                    continue  # a pattern or a placeholder, not one file
                if not (ROOT / named).exists():
                    missing.append(f"{source.relative_to(ROOT)}:{number}: {named}")
    assert not missing, "these files are named but do not exist:\n" + "\n".join(missing)


def test_every_named_module_resolves() -> None:
    keys = _config_keys()
    missing = []
    for source in SOURCES:
        for number, line in enumerate(source.read_text().splitlines(), 1):
            for match in (DOTTED if source.suffix == ".md" else QUOTED_DOTTED).finditer(line):
                named = match.group(1)
                key = CONFIG_KEYS.match(named)
                if key and key.group(1) in keys:
                    continue
                if not _resolves(named):
                    missing.append(f"{source.relative_to(ROOT)}:{number}: {named}")
    assert not missing, "these modules or names are named but do not exist:\n" + "\n".join(missing)
