"""The database under every store: the engine, migrations, and read and write transactions.

Each aggregate's store (``bots``, ``games``, ``ratings``, ``challenges``, ``tournaments``) subclasses
``Database`` and reaches the tables through ``_read`` and ``_write``; ``server.storage.store.Store``
combines them into the one store callers use.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Self, TypeVar

from alembic import command
from alembic.config import Config
from sqlalchemy import Connection, Engine, event, text
from sqlalchemy.exc import DBAPIError, DisconnectionError, InterfaceError, OperationalError
from sqlalchemy.orm import Session

from server.records import DatabaseUnavailable

T = TypeVar("T")

MIGRATIONS = Path(__file__).parent / "migrations"
SQLITE_BUSY_TIMEOUT_MS = 5000
POSTGRES_LOCK_TIMEOUT_MS = 5000
"""How long a PostgreSQL statement waits for a lock before failing (as SQLite's busy timeout): a table
locked by another session makes a write fail, and the server say so, instead of hanging."""
WRITE_ATTEMPTS = 5
"""A write that loses a lock race (SQLite busy, PostgreSQL deadlock or serialization failure) is retried."""
_WRITE = "conquest_write"
"""Execution option marking a connection whose transactions write (SQLite: BEGIN IMMEDIATE)."""
_MIGRATION_LOCK = 0x636F6E71
"""PostgreSQL advisory lock key held while migrating, so two servers starting at once migrate once."""
_SQLITE_FILE = "conquest_sqlite_file"
"""Connection info key: the device and inode of the SQLite file the connection opened."""
_RETRYABLE_SQLSTATES = {"40001", "40P01"}  # serialization_failure, deadlock_detected


class Database:
    """One database engine, shared between threads (each call uses its own session)."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._writer = engine.execution_options(**{_WRITE: True})
        self.writes = 0
        """Write transactions committed through this store: a reader's cache keyed on it is never older
        than this process's last write (``server.arena.service``)."""

    def close(self) -> None:
        self._engine.dispose()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    @property
    def url(self) -> str:
        """The URL it was opened with, password included (to open it again in another process)."""
        return self._engine.url.render_as_string(hide_password=False)

    @property
    def dialect(self) -> str:
        """ "sqlite" or "postgresql"."""
        return self._engine.dialect.name

    def _migrate(self) -> None:
        config = Config()
        config.set_main_option("script_location", str(MIGRATIONS))
        with self._writer.connect() as connection:
            sqlite = self.dialect == "sqlite"
            if sqlite:  # a revision copying a table (batch mode) drops the old one: no cascade, no refusal
                _sqlite_foreign_keys(connection, on=False)
            try:
                with connection.begin():
                    if self.dialect == "postgresql":  # a second server waits for the first one's migration
                        connection.execute(text("SET LOCAL lock_timeout = 0"))
                        connection.execute(
                            text("SELECT pg_advisory_xact_lock(:key)"), {"key": _MIGRATION_LOCK}
                        )
                    config.attributes["connection"] = connection
                    command.upgrade(config, "head")
                    if sqlite and (broken := connection.exec_driver_sql("PRAGMA foreign_key_check").all()):
                        raise RuntimeError(
                            f"the migration left rows whose references are broken: {broken[:5]}; nothing was "
                            "changed: keep running the previous version and report it"
                        )
            finally:
                if sqlite:
                    _sqlite_foreign_keys(connection, on=True)

    def check(self) -> None:
        """Reach the database now (one trivial read).

        Raises:
            DatabaseUnavailable: it cannot be reached (stopped, its file removed, locked past its timeout).
        """
        with unavailable(self.dialect, "cannot be reached"):
            self._read(lambda session: session.execute(text("SELECT 1")))

    def _read(self, work: Callable[[Session], T]) -> T:
        with Session(self._engine) as session, session.begin():
            return work(session)

    def _write(self, work: Callable[[Session], T], attempts: int = WRITE_ATTEMPTS) -> T:
        """Run ``work`` in one write transaction, retrying it (up to ``attempts`` in all) when it lost a
        lock race."""
        for attempt in range(attempts):
            try:
                with Session(self._writer) as session, session.begin():
                    result = work(session)
                self.writes += 1
                return result
            except DBAPIError as error:
                if attempt == attempts - 1 or not _is_lock_race(error):
                    raise
                time.sleep(0.05 * 2**attempt)
        raise AssertionError("unreachable: the last attempt returns or raises")


@contextmanager
def unavailable(dialect: str, what: str) -> Iterator[None]:
    """The driver's errors for a database it cannot use (stopped, out of reach, its file removed, locked
    past its timeout) raised as play's ``DatabaseUnavailable``: "the <dialect> database <what>: <why>"."""
    try:
        yield
    except (OperationalError, InterfaceError) as down:
        raise DatabaseUnavailable(f"the {dialect} database {what}: {down.orig or down}") from down


def _sqlite_foreign_keys(connection: Connection, on: bool) -> None:
    """SQLite's foreign keys on or off for ``connection``: set outside any transaction (inside one SQLite
    ignores it), so on the driver's connection, which begins none of its own (``configure_sqlite``)."""
    driver = connection.connection.driver_connection
    assert driver is not None, "an open connection has its driver's"
    driver.execute(f"PRAGMA foreign_keys={'ON' if on else 'OFF'}")


def configure_sqlite(engine: Engine) -> None:
    """WAL (readers never block the writer), foreign keys enforced, and a wait instead of "database is
    locked"; transactions begun by us so that writes can take the lock up front (BEGIN IMMEDIATE).

    A database file removed while the server runs is not written on unseen: an open connection would go
    on writing to the removed file, and a new one would create an empty file in its place. Each connection
    notes the file it opened; one whose file is no longer at the path is dropped when next taken from the
    pool, and no connection is opened while no file is there (``sqlite3.OperationalError``, which the
    callers see as the database being unavailable). A file put back (moved back, restored from a backup)
    is used from the next connection on."""
    database = engine.url.database or ""
    path = Path(database) if database and database != ":memory:" and "mode=memory" not in database else None
    if path is not None and path.parent.is_dir():
        path.touch(exist_ok=True)  # a new database is made here, as the store opens (an empty file is one)

    @event.listens_for(engine, "do_connect")
    def on_do_connect(*_: Any) -> None:
        if path is not None and not path.exists():
            raise sqlite3.OperationalError(
                f"the SQLite database file {path} is missing (removed while the server ran?): put it back "
                "or restore it from a backup; the server does not create an empty one in its place"
            )

    @event.listens_for(engine, "checkout")
    def on_checkout(_dbapi_connection: Any, record: Any, _proxy: Any) -> None:
        if path is not None and record.info.get(_SQLITE_FILE) != _file_identity(path):
            raise DisconnectionError(f"the SQLite database file {path} was removed or replaced")

    @event.listens_for(engine, "connect")
    def on_connect(dbapi_connection: Any, record: Any) -> None:
        dbapi_connection.isolation_level = None  # pysqlite must not issue its own (deferred) BEGIN
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
        cursor.close()
        if path is not None:
            record.info[_SQLITE_FILE] = _file_identity(path)

    @event.listens_for(engine, "begin")
    def on_begin(connection: Connection) -> None:
        # A deferred transaction that reads and then writes can fail with SQLITE_BUSY without waiting;
        # an immediate one takes the write lock first, so ratings are read by the one writer.
        writes = connection.get_execution_options().get(_WRITE, False)
        connection.exec_driver_sql("BEGIN IMMEDIATE" if writes else "BEGIN")


def _file_identity(path: Path) -> tuple[int, int] | None:
    """The file at ``path`` (device and inode), or None when there is none."""
    try:
        status = path.stat()
    except FileNotFoundError:
        return None
    return status.st_dev, status.st_ino


def configure_postgresql(engine: Engine) -> None:
    """A lock wait ends after POSTGRES_LOCK_TIMEOUT_MS with an error, as SQLite's busy timeout does."""

    @event.listens_for(engine, "connect")
    def on_connect(dbapi_connection: Any, _record: Any) -> None:
        autocommit = dbapi_connection.autocommit
        dbapi_connection.autocommit = True  # a session setting, outside any transaction
        cursor = dbapi_connection.cursor()
        cursor.execute(f"SET lock_timeout = {POSTGRES_LOCK_TIMEOUT_MS}")
        cursor.close()
        dbapi_connection.autocommit = autocommit


def _is_lock_race(error: DBAPIError) -> bool:
    sqlstate = getattr(error.orig, "sqlstate", None)
    if sqlstate in _RETRYABLE_SQLSTATES:
        return True
    message = str(error.orig).lower()
    return "database is locked" in message or "database is busy" in message


def utc_now() -> datetime:
    return datetime.now(UTC)
