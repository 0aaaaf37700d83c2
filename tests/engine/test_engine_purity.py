"""The engine stays pure (issue 2: "the engine imports nothing from server/ and does no I/O"; design:
"The engine never waits, never logs, never reads a clock")."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ENGINE = Path(__file__).resolve().parents[2] / "engine"
BENCHMARK = "bench.py"
"""make bench-engine's script: it times and prints the engine from outside; nothing in engine imports it."""
FORBIDDEN_MODULES = {
    "server", "conquest", "grpc", "asyncio", "time", "datetime", "os", "socket", "subprocess",
    "threading", "logging", "structlog", "sqlalchemy", "pathlib", "io", "shutil", "urllib",
}  # fmt: skip
FORBIDDEN_CALLS = {"open", "print", "input"}


def _modules() -> list[Path]:
    return sorted(p for p in ENGINE.rglob("*.py") if p.name != BENCHMARK)


def _imports(tree: ast.AST) -> set[str]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module.split(".")[0])
    return found


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(ENGINE)))
def test_engine_module_does_no_io_and_reads_no_clock(path: Path) -> None:
    tree = ast.parse(path.read_text())
    assert not _imports(tree) & FORBIDDEN_MODULES, f"{path.name} imports {_imports(tree) & FORBIDDEN_MODULES}"
    calls = {
        node.func.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in FORBIDDEN_CALLS
    }
    assert not calls, f"{path.name} calls {calls}"


def test_no_engine_module_imports_the_benchmark_script() -> None:
    for path in _modules():
        assert "benchmarks.bench_engine" not in path.read_text(), f"{path.name} imports the benchmark script"
