"""The build: the compiled modules are the ones pyproject.toml lists (or none, in the pure build's run), and
the benchmarks stay out of the product."""

from __future__ import annotations

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


def test_the_wheel_leaves_the_benchmarks_out() -> None:
    with (ROOT / "pyproject.toml").open("rb") as file:
        packages = tomllib.load(file)["tool"]["setuptools"]["packages"]
    assert not [p for p in packages if p.split(".")[0] == "benchmarks"]
