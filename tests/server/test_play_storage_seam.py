"""One seam between play and storage (issue 18: "play depends on small Protocols ... the compiled hot path
imports no SQLAlchemy. A test fails if play imports storage or storage imports play"), and the training
room that no other room imports."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

SERVER = Path(__file__).resolve().parents[2] / "server"
PLAY_FORBIDDEN = ("server.storage", "server.app", "sqlalchemy", "alembic")
STORAGE_FORBIDDEN = ("server.play", "server.app")
RECORDS_FORBIDDEN = ("server.play", "server.storage", "server.app", "sqlalchemy")


def _imports(path: Path) -> set[str]:
    """Every module ``path`` imports, by absolute name (TYPE_CHECKING imports included)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found |= {node.module, *(f"{node.module}.{alias.name}" for alias in node.names)}
    return found


def _forbidden(path: Path, prefixes: tuple[str, ...]) -> set[str]:
    return {name for name in _imports(path) if name.startswith(prefixes)}


@pytest.mark.parametrize("path", sorted((SERVER / "play").glob("*.py")), ids=lambda p: p.name)
def test_play_module_imports_no_storage(path: Path) -> None:
    assert not _forbidden(path, PLAY_FORBIDDEN), f"server/play/{path.name} imports storage"


@pytest.mark.parametrize(
    "path", sorted((SERVER / "storage").rglob("*.py")), ids=lambda p: str(p.relative_to(SERVER))
)
def test_storage_module_imports_no_play(path: Path) -> None:
    assert not _forbidden(path, STORAGE_FORBIDDEN), f"{path.relative_to(SERVER)} imports play"


def test_the_records_import_neither_side() -> None:
    assert not _forbidden(SERVER / "records.py", RECORDS_FORBIDDEN)


def test_the_compiled_hot_path_loads_no_sqlalchemy() -> None:
    """Imported in a fresh interpreter, as a server process does: nothing on the way pulls SQLAlchemy in."""
    check = (
        "import sys, server.play.runner, server.play.lobby; "
        "print(sorted(m for m in sys.modules if m.startswith(('sqlalchemy', 'alembic', 'server.storage'))))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", check], capture_output=True, text=True, check=True, cwd=SERVER.parent
    )
    assert loaded.stdout.strip() == "[]", f"importing play loaded {loaded.stdout.strip()}"


@pytest.mark.parametrize(
    "path",
    sorted(p for p in SERVER.rglob("*.py") if "train" not in p.relative_to(SERVER).parts),
    ids=lambda p: str(p.relative_to(SERVER)),
)
def test_no_other_room_imports_the_training_room(path: Path) -> None:
    """docs/architecture.md: "Nothing in the engine or the rest of the server imports it [server.train],
    so the server runs without numpy, gymnasium or pettingzoo"."""
    assert not _forbidden(path, ("server.train",)), f"{path.relative_to(SERVER)} imports server.train"
