"""Persistence: bots and tokens, games and replays, OpenSkill ratings, challenges and tournaments — SQLite
(embedded) or PostgreSQL. One module per aggregate, combined into one ``Store`` (``store.py``); ``auth``
implements play's ``Authenticator`` and ``Ratings`` over it, speaking play's language through
``server.records`` only (storage never imports ``server.play``).

>>> store = Store.open("sqlite:///conquest.sqlite3", admin_token=config_admin_token)  # doctest: +SKIP
>>> token = store.register_bot("alice", admin_token=config_admin_token).token  # shown once
>>> store.authenticate(token).name  # doctest: +SKIP
'alice'
"""

from server.storage.bots import Bot, Registration
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
from server.storage.games import BotStats, GameSummary
from server.storage.ratings import RatingChange, Standing
from server.storage.store import Store
from server.storage.tournaments import EntrantRecord, TableRecord, TournamentRecord

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
