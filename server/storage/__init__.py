"""Persistence: bots and tokens, games and replays, OpenSkill ratings — SQLite (embedded) or PostgreSQL.

>>> store = Store.open("sqlite:///conquest.sqlite3", admin_token=config_admin_token)  # doctest: +SKIP
>>> token = store.register_bot("alice", admin_token=config_admin_token).token  # shown once
>>> store.authenticate(token).name  # doctest: +SKIP
'alice'
"""

from server.storage.errors import (
    AdminTokenError,
    AlreadyExistsError,
    AuthError,
    InvalidInputError,
    NotFoundError,
    QuotaExceededError,
    RevokedTokenError,
    RotatedTokenError,
    StorageError,
    UnknownTokenError,
)
from server.storage.store import (
    Bot,
    BotStats,
    EntrantRecord,
    GameSummary,
    RatingChange,
    Registration,
    Standing,
    Store,
    TableRecord,
    TournamentRecord,
)

__all__ = [
    "AdminTokenError",
    "AlreadyExistsError",
    "AuthError",
    "Bot",
    "BotStats",
    "EntrantRecord",
    "GameSummary",
    "InvalidInputError",
    "NotFoundError",
    "QuotaExceededError",
    "RatingChange",
    "Registration",
    "RevokedTokenError",
    "RotatedTokenError",
    "Standing",
    "StorageError",
    "Store",
    "TableRecord",
    "TournamentRecord",
    "UnknownTokenError",
]
