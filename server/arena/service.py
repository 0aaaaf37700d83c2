"""The ArenaService servicer: request fields in, ``server.arena.api`` does the work, errors out as status
codes.

Database work runs in a worker thread so a slow query never delays a game's decisions on the event loop.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, NoReturn, TypeVar

import grpc

from conquest.v1 import arena_pb2, arena_pb2_grpc
from server.arena.api import Arena, MissingAdminTokenError, NoDatabaseError, admin_token
from server.arena.competitions import NotConnectedError
from server.ops.calls import cut_off, unread
from server.play.admission import Refused
from server.play.mailbox import deliver
from server.storage import (
    AdminTokenError,
    AlreadyExistsError,
    InvalidInputError,
    NotFoundError,
    QuotaExceededError,
    RevokedTokenError,
    StorageError,
)

SERVICE_NAME = arena_pb2.DESCRIPTOR.services_by_name["ArenaService"].full_name
T = TypeVar("T")
Context = grpc.aio.ServicerContext[Any, Any]

_STATUS: list[tuple[type[StorageError], grpc.StatusCode]] = [
    (NotFoundError, grpc.StatusCode.NOT_FOUND),
    (AlreadyExistsError, grpc.StatusCode.ALREADY_EXISTS),
    (InvalidInputError, grpc.StatusCode.INVALID_ARGUMENT),
    (MissingAdminTokenError, grpc.StatusCode.UNAUTHENTICATED),
    (AdminTokenError, grpc.StatusCode.PERMISSION_DENIED),
    (RevokedTokenError, grpc.StatusCode.FAILED_PRECONDITION),  # rotating a revoked bot's token
    (NoDatabaseError, grpc.StatusCode.FAILED_PRECONDITION),
    (NotConnectedError, grpc.StatusCode.FAILED_PRECONDITION),  # a challenged bot is not connected
    (QuotaExceededError, grpc.StatusCode.RESOURCE_EXHAUSTED),
]


def status_code(error: StorageError) -> grpc.StatusCode:
    """The status code an Arena error is answered with (INTERNAL for one without a mapping)."""
    return next((code for kind, code in _STATUS if isinstance(error, kind)), grpc.StatusCode.INTERNAL)


async def _abort(context: Context, error: StorageError) -> NoReturn:
    await context.abort(status_code(error), str(error))
    raise AssertionError("unreachable: abort raises")


class ArenaService(arena_pb2_grpc.ArenaServiceServicer):
    def __init__(self, arena: Arena) -> None:
        self.arena = arena
        self.admission = arena.lobby.admission
        """The server's count of open streams per client, shared with the BotService."""

    async def _blocking(self, context: Context, work: Callable[..., T], *args: Any) -> T:
        try:
            return await asyncio.to_thread(work, *args)
        except StorageError as error:
            await _abort(context, error)

    async def _admin(self, context: Context, work: Callable[[str, str], T], name: str) -> T:
        try:
            token = admin_token(context.invocation_metadata() or ())
        except MissingAdminTokenError as error:
            await _abort(context, error)
        return await self._blocking(context, work, name, token)

    async def RegisterBot(
        self, request: arena_pb2.RegisterBotRequest, context: Context
    ) -> arena_pb2.RegisterBotResponse:
        return await self._admin(context, self.arena.register_bot, request.name)

    async def RotateToken(
        self, request: arena_pb2.RotateTokenRequest, context: Context
    ) -> arena_pb2.RotateTokenResponse:
        try:  # on the event loop: it closes the bot's sessions too (the store's work goes to a thread)
            token = admin_token(context.invocation_metadata() or ())
            return await self.arena.rotate_token(request.name, token)
        except StorageError as error:
            await _abort(context, error)

    async def RevokeBot(
        self, request: arena_pb2.RevokeBotRequest, context: Context
    ) -> arena_pb2.RevokeBotResponse:
        try:  # on the event loop: it closes the bot's sessions too (the store's work goes to a thread)
            token = admin_token(context.invocation_metadata() or ())
            return await self.arena.revoke_bot(request.name, token)
        except StorageError as error:
            await _abort(context, error)

    async def ListBots(
        self, request: arena_pb2.ListBotsRequest, context: Context
    ) -> arena_pb2.ListBotsResponse:
        return await self._blocking(context, self.arena.list_bots)

    async def GetLeaderboard(
        self, request: arena_pb2.GetLeaderboardRequest, context: Context
    ) -> arena_pb2.GetLeaderboardResponse:
        return await self._blocking(context, self.arena.leaderboard, request.queue, request.limit)

    async def GetRatingHistory(
        self, request: arena_pb2.GetRatingHistoryRequest, context: Context
    ) -> arena_pb2.GetRatingHistoryResponse:
        return await self._blocking(context, self.arena.rating_history, request.bot, request.queue)

    async def GetBotStats(
        self, request: arena_pb2.GetBotStatsRequest, context: Context
    ) -> arena_pb2.GetBotStatsResponse:
        return await self._blocking(context, self.arena.bot_stats, request.bot, request.queue)

    async def ListGames(
        self, request: arena_pb2.ListGamesRequest, context: Context
    ) -> arena_pb2.ListGamesResponse:
        return await self._blocking(context, self.arena.list_games, request.queue, request.bot, request.limit)

    async def ListLiveGames(
        self, request: arena_pb2.ListLiveGamesRequest, context: Context
    ) -> arena_pb2.ListLiveGamesResponse:
        try:
            return self.arena.live_games(request.queue)
        except StorageError as error:
            await _abort(context, error)

    async def GetGame(self, request: arena_pb2.GetGameRequest, context: Context) -> arena_pb2.GetGameResponse:
        return await self._blocking(context, self.arena.game, request.game_id)

    async def GetReplay(
        self, request: arena_pb2.GetReplayRequest, context: Context
    ) -> arena_pb2.GetReplayResponse:
        return await self._blocking(context, self.arena.replay_json, request.game_id)

    async def WatchGame(  # type: ignore[override]  # writes with context.write: the stubs know generators only
        self, request: arena_pb2.WatchGameRequest, context: Context
    ) -> None:
        # Written with context.write from a bounded mailbox: a spectator that stops reading is cut off.
        try:
            with self.admission.stream(context.peer()):
                watching = self.arena.watch_mailbox(request.game_id)
                if watching is None:
                    for message in await self._blocking(context, self.arena.recorded_stream, request.game_id):
                        await context.write(message)
                    return
                runner, spectator = watching
                try:
                    delivered = await deliver(spectator, context.write)
                finally:  # the spectator may hang up before the game ends
                    runner.unwatch(spectator)
                if not delivered:
                    self.arena.lobby.metrics.streams_cut.labels("unread").inc()
                    await cut_off(context, unread(self.arena.lobby.config))
        except Refused as refused:
            self.arena.lobby.metrics.streams_cut.labels(refused.code).inc()
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, str(refused))

    async def CreateChallenge(
        self, request: arena_pb2.CreateChallengeRequest, context: Context
    ) -> arena_pb2.CreateChallengeResponse:
        try:
            return await self.arena.create_challenge(request, context.invocation_metadata() or ())
        except StorageError as error:
            await _abort(context, error)

    async def CreateTournament(
        self, request: arena_pb2.CreateTournamentRequest, context: Context
    ) -> arena_pb2.CreateTournamentResponse:
        try:
            return await self.arena.create_tournament(request, context.invocation_metadata() or ())
        except StorageError as error:
            await _abort(context, error)

    async def GetTournament(
        self, request: arena_pb2.GetTournamentRequest, context: Context
    ) -> arena_pb2.GetTournamentResponse:
        return await self._blocking(context, self.arena.tournament, request.name)

    async def ListTournaments(
        self, request: arena_pb2.ListTournamentsRequest, context: Context
    ) -> arena_pb2.ListTournamentsResponse:
        return await self._blocking(context, self.arena.tournaments)
