"""The build: the compiled modules are the ones pyproject.toml lists (or none, in the pure build's run), and
benchmarks stay out of the product and out of the tests."""

from __future__ import annotations

import ast
import importlib
import tomllib
from pathlib import Path

ROOT = Path(__file__).parents[2]


def test_the_listed_modules_run_compiled_or_all_pure(compiled_modules: list[str], pure_python: bool) -> None:
    """`make test` runs the suite on both builds; each run really tests the build it names."""
    for path in compiled_modules:
        module = importlib.import_module(path.removesuffix(".py").replace("/", "."))
        suffix = Path(module.__file__ or "").suffix
        assert suffix == (".py" if pure_python else ".so"), f"{path} runs from a {suffix} file"


def test_nothing_under_tests_imports_a_benchmark() -> None:
    """Benchmarks measure the product; the tests test it without them (a shared helper lives in the product
    or in tests/support)."""
    for path in sorted((ROOT / "tests").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            for name in names:
                assert name.split(".")[0] != "benchmarks", f"{path.relative_to(ROOT)} imports {name}"


def test_the_wheel_leaves_the_benchmarks_out() -> None:
    with (ROOT / "pyproject.toml").open("rb") as file:
        packages = tomllib.load(file)["tool"]["setuptools"]["packages"]
    assert not [p for p in packages if p.split(".")[0] == "benchmarks"]
