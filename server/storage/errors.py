"""Typed storage errors; each message says what was wrong and what would be right.

The Arena API maps them to status codes: NotFoundError → NOT_FOUND, AlreadyExistsError → ALREADY_EXISTS,
InvalidInputError → INVALID_ARGUMENT, AuthError → UNAUTHENTICATED (bad bot token) or PERMISSION_DENIED
(AdminTokenError).
"""

from server.records import GameAlreadyRecorded


class StorageError(Exception):
    """Base of every error the store raises on purpose."""


class NotFoundError(StorageError, LookupError):
    """No bot, game or replay by that name or id."""


class AlreadyExistsError(StorageError):
    """A bot name already taken, or a game id already recorded."""


class GameRecordedError(AlreadyExistsError, GameAlreadyRecorded):
    """``record_game`` of a game id recorded before: nothing was written (play's ``GameAlreadyRecorded``)."""


class InvalidInputError(StorageError, ValueError):
    """A request the store refuses as malformed (a bad bot name, a result that contradicts its replay)."""


class AuthError(StorageError, PermissionError):
    """A token that does not grant what was asked. Messages never contain the token."""


class UnknownTokenError(AuthError):
    """No bot has this token."""


class RotatedTokenError(AuthError):
    """The token was replaced by a rotation; the bot must use its new token."""


class RevokedTokenError(AuthError):
    """The token's bot was revoked."""


class AdminTokenError(AuthError):
    """An admin operation without the configured admin token."""


class QuotaExceededError(StorageError):
    """A bot has used its challenge quota for the period; the message says when it frees up."""
