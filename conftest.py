"""Shared by every directory of tests/: ``db_url``, a fresh database on SQLite and PostgreSQL; uvloop.

Tests that touch the database run on SQLite, and on PostgreSQL when CONQUEST_TEST_POSTGRES_URL is set.
`make test` sets it (target test-db, script .ci/postgres.sh). With CI=true and no URL, the PostgreSQL
runs FAIL rather than vanish, so CI cannot go green without them.
"""

from __future__ import annotations

import asyncio
import os
import tomllib
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import structlog
import uvloop
from sqlalchemy import create_engine, make_url, text

POSTGRES_URL = os.environ.get("CONQUEST_TEST_POSTGRES_URL", "")
IN_CI = os.environ.get("CI", "").lower() in ("true", "1")
PURE_PYTHON = bool(os.environ.get("CONQUEST_PURE_PYTHON"))
DATABASES = ["sqlite", *(["postgresql"] if POSTGRES_URL or IN_CI else [])]


def pytest_configure(config: pytest.Config) -> None:
    """Refuse to test another build than the one asked for. Python imports a module's C extension (the
    mypyc build of pyproject's ``[tool.conquest] compiled``) in place of its .py, so an edit since
    `make install` would go untested, as would a module taken off the list whose extension is left, and
    so would the pure build (CONQUEST_PURE_PYTHON=1, `make test-pure`) if any extension were there."""
    root = Path(__file__).parent
    built = [*root.glob("engine/**/*.so"), *root.glob("server/**/*.so")]
    if PURE_PYTHON and built:
        compiled = built[0].relative_to(root)
        pytest.exit(f"CONQUEST_PURE_PYTHON=1 but {compiled} is compiled here: run `make test-pure`", 2)
    listed = set(read_compiled_modules())
    wrong = []
    for extension in built:
        source = extension.with_name(extension.name.split(".")[0] + ".py")
        if str(source.relative_to(root)) not in listed or source.stat().st_mtime > extension.stat().st_mtime:
            wrong.append(str(source.relative_to(root)))
    if wrong:
        pytest.exit(f"{', '.join(wrong)}: compiled from an older source or list: run `make install`", 2)


def read_compiled_modules() -> list[str]:
    """The modules the build compiles (pyproject.toml, ``[tool.conquest] compiled``), as paths."""
    with (Path(__file__).parent / "pyproject.toml").open("rb") as file:
        compiled: list[str] = tomllib.load(file)["tool"]["conquest"]["compiled"]
    return compiled


@pytest.fixture(autouse=True)
def _structlog_defaults() -> Iterator[None]:
    """structlog's configuration is process-wide: a test that runs a command in process (``conquest demo``
    logs at WARNING) would leave it for every later test, whose ``capture_logs`` would then see no INFO
    line. Each test starts from structlog's defaults."""
    yield
    structlog.reset_defaults()


@pytest.fixture(scope="session")
def compiled_modules() -> list[str]:
    """The modules the build compiles, as paths (``engine/state.py``)."""
    return read_compiled_modules()


@pytest.fixture(scope="session")
def pure_python() -> bool:
    """Whether this is the pure-Python build's run (CONQUEST_PURE_PYTHON=1, `make test-pure`)."""
    return PURE_PYTHON


@pytest.fixture(params=DATABASES)
def db_url(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A fresh, empty database: a new SQLite file, or a new PostgreSQL schema dropped afterwards."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path_factory.mktemp('db') / 'conquest.sqlite3'}"
        return
    if not POSTGRES_URL:
        pytest.fail(
            "CI=true but CONQUEST_TEST_POSTGRES_URL is not set: the storage tests must also run on "
            "PostgreSQL. Run them through `make test` (target test-db starts a server via .ci/postgres.sh)"
        )
    schema = f"test_{uuid.uuid4().hex[:16]}"
    admin = create_engine(POSTGRES_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE SCHEMA "{schema}"'))
    try:
        url = make_url(POSTGRES_URL).update_query_dict({"options": f"-csearch_path={schema}"})
        yield url.render_as_string(hide_password=False)
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


def pytest_asyncio_loop_factories(config: pytest.Config, item: pytest.Item) -> dict[str, Callable[[], Any]]:
    """Async tests run on uvloop, the loop every server process runs on (server/ops/runtime.py). The browser
    tests stay on asyncio's loop: Playwright's driver pipe closed mid-test under uvloop in 2 of 4 runs
    (the dashboard's HTTP on uvloop is tested by the other dashboard tests)."""
    if item.path.name.startswith("test_dashboard_browser"):
        return {"asyncio": asyncio.new_event_loop}
    return {"uvloop": uvloop.new_event_loop}
