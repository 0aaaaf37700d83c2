"""``locked(db_url)``: another connection holds the games table, as another process would hold the
database (SQLite: BEGIN EXCLUSIVE on the file; PostgreSQL: LOCK TABLE games)."""

from __future__ import annotations

import sqlite3
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
