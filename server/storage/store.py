"""The store: one facade over the store of each aggregate, so callers write ``store.x(...)`` for any of them.

``Store.open(url)`` migrates the database to the latest schema and returns a store that is safe to share
between threads (each call uses its own session). A SQLite file is the embedded default
(``sqlite:///path``); PostgreSQL is reached by URL (``postgresql+psycopg://user:pass@host/db``).

Each aggregate keeps its methods, records and queries in its own module: ``bots`` (bots and tokens),
``games`` (results, replays, round trips), ``ratings`` (skills, rating history, leaderboards),
``challenges`` and ``tournaments``; ``database`` holds the engine and the transactions they share.
"""

from __future__ import annotations

from sqlalchemy import create_engine

from server.storage.bots import BotStore
from server.storage.challenges import ChallengeStore
from server.storage.cluster import ClusterStore
from server.storage.database import configure_postgresql, configure_sqlite
from server.storage.games import GameStore
from server.storage.ratings import RatingStore
from server.storage.tournaments import TournamentStore


class Store(BotStore, GameStore, ClusterStore, RatingStore, ChallengeStore, TournamentStore):
    """Bots, games (finished and running), replays, ratings, challenges and tournaments in one database.
    Use ``Store.open(url)``."""

    @classmethod
    def open(cls, url: str, *, admin_token: str | None = None) -> Store:
        """Connect, migrate the schema to the latest revision, and return the store.

        ``admin_token`` (from the server config) is required by register, rotate and revoke; without it
        those operations are refused.
        """
        engine = create_engine(url, pool_pre_ping=True)
        if engine.dialect.name == "sqlite":
            configure_sqlite(engine)
        elif engine.dialect.name == "postgresql":
            configure_postgresql(engine)
        store = cls(engine, admin_token)
        store._migrate()
        return store
