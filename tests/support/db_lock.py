"""``locked(db_url)``: another connection holds the games table, as another process would hold the
database (SQLite: BEGIN EXCLUSIVE on the file; PostgreSQL: LOCK TABLE games); ``locker(path)``: another
process holding a SQLite file, for a server in a process of its own."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import create_engine, make_url, text


@contextmanager
def locked(db_url: str) -> Iterator[None]:
    url = make_url(db_url)
    if url.get_backend_name() == "sqlite":
        holder = sqlite3.connect(url.database or "", isolation_level=None)
        holder.execute("BEGIN EXCLUSIVE")
        try:
            yield
        finally:
            holder.close()
        return
    engine = create_engine(db_url)
    try:
        with engine.begin() as connection:
            connection.execute(text("LOCK TABLE games IN ACCESS EXCLUSIVE MODE"))
            yield
    finally:
        engine.dispose()


LOCKER = """
import sqlite3, sys
connection = sqlite3.connect(sys.argv[1], isolation_level=None)
connection.execute("BEGIN EXCLUSIVE")
print("locked", flush=True)
sys.stdin.read()
"""


def locker(path: str) -> subprocess.Popen[str]:
    """A process holding an exclusive lock on the SQLite file at ``path`` (taken when this returns) until
    its stdin is closed."""
    command = [sys.executable, "-c", LOCKER, path]
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None and process.stdout.readline() == "locked\n"
    return process
