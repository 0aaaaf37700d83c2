"""The ArenaService servicer: request fields in, ``server.arena.api`` does the work, errors out as status
codes.

Play comes first (issue 21), so every call's cost to the game server is bounded:

- each client (its address) is held to a token bucket (``RATE`` tokens a second, ``BURST`` at once); a
  call takes one token, or more as it reads more (``games_cost``, ``HEAVY_COST``); a call past the
  bucket is answered ``RESOURCE_EXHAUSTED`` with the seconds to wait, and nothing is read. The refusal
  comes after that wait (at most ``HOLD_S``; ``MAX_HELD`` calls held at once): a client that retries at
  once cannot make refusals cost the server more than its open calls allow;
- database work runs on one reader thread behind a bounded queue (``READ_SLOTS`` calls running or
  waiting; one more is answered ``RESOURCE_EXHAUSTED``), so it never holds the event loop, and a flood
  holds the GIL from one thread, not many;
- a read's answer is kept ``CACHE_S`` seconds, or until this process next writes to the database
  (``Ledger.version``), and calls asking the same meanwhile share it: a flood of one query costs one
  database read a second. A write by another process (``conquest bot register``) shows within ``CACHE_S``.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, NoReturn, TypeVar

import grpc

from conquest.v1 import arena_pb2, arena_pb2_grpc
from server.arena.api import Arena, MissingAdminTokenError, UnwatchableError, admin_token
from server.arena.competitions import NotConnectedError
from server.arena.ledger import DEFAULT_GAMES, NoDatabaseError
from server.ops.bounded import BoundedPool, BusyError
from server.ops.calls import client_of, cut_off, unread
from server.ops.ratelimit import RateLimit
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
RATE = 50.0
"""Tokens a second a client (an address) is given: one-token Arena calls it may keep up."""
BURST = 200
"""Tokens a client may spend at once."""
HEAVY_COST = 10
"""Tokens of a call that reads a whole game: GetReplay, WatchGame of a finished game."""
STATS_COST = 5
"""Tokens of GetBotStats (it reads every game of the bot)."""
HOLD_S = 1.0
"""Seconds at most a refused call is held before its refusal."""
MAX_HELD = 1000
"""Refused calls held at once over all clients; past it, refusals are sent at once."""
READ_SLOTS = 16
"""Calls with database work running or waiting at once, over all clients; the next is refused."""
CACHE_S = 1.0
"""Seconds a read's answer is kept (while this process writes nothing to the database)."""
MAX_CACHED = 256
"""Answers kept at most (the oldest are dropped first)."""
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
    (UnwatchableError, grpc.StatusCode.FAILED_PRECONDITION),  # a game changing replica: retry
    (QuotaExceededError, grpc.StatusCode.RESOURCE_EXHAUSTED),
]


def status_code(error: StorageError) -> grpc.StatusCode:
    """The status code an Arena error is answered with (INTERNAL for one without a mapping)."""
    return next((code for kind, code in _STATUS if isinstance(error, kind)), grpc.StatusCode.INTERNAL)


async def _abort(context: Context, error: StorageError) -> NoReturn:
    await context.abort(status_code(error), str(error))
    raise AssertionError("unreachable: abort raises")


def games_cost(limit: int) -> int:
    """Tokens of ListGames asking for ``limit`` games (0: the default 50): one per hundred, plus one."""
    return 1 + (limit or DEFAULT_GAMES) // 100


class ArenaService(arena_pb2_grpc.ArenaServiceServicer):
    def __init__(self, arena: Arena, limit: RateLimit | None = None) -> None:
        self.arena = arena
        self.limit = limit or RateLimit(RATE, BURST)
        self.reader = BoundedPool(
            lambda: ThreadPoolExecutor(1, thread_name_prefix="arena-reader"),
            READ_SLOTS,
            "reading the database for Arena calls",
        )
        self.held = 0
        """Refused calls waiting for their refusal."""
        self.answers: dict[tuple[Any, ...], tuple[float, asyncio.Future[Any]]] = {}
        """(call, arguments, database version) -> (when it goes stale, the answer being read or read)."""

    async def _admit(self, context: Context, cost: int = 1) -> None:
        """Take ``cost`` tokens of the caller's bucket, or answer RESOURCE_EXHAUSTED."""
        address = client_of(context.peer())
        wait = self.limit.take(address, cost) if cost else 0.0
        if wait:
            if self.held < MAX_HELD:
                self.held += 1
                try:
                    await asyncio.sleep(min(wait, HOLD_S))
                finally:
                    self.held -= 1
            await context.abort(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"too many Arena calls from {address}: at most {self.limit.burst} tokens at once and "
                f"{self.limit.rate:g} a second (a call takes 1; ListGames 1 per 100 games, GetBotStats "
                f"{STATS_COST}, GetReplay and a finished game's WatchGame {HEAVY_COST}); retry in "
                f"{max(1, math.ceil(wait))} s",
            )

    async def _blocking(self, context: Context, work: Callable[..., T], *args: Any, cost: int = 1) -> T:
        """``work(*args)`` on the reader thread, for a caller within its rate (``cost`` tokens)."""
        await self._admit(context, cost)
        try:
            return await self.reader.run(work, *args)
        except StorageError as error:
            await _abort(context, error)
        except BusyError as busy:
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, str(busy))
        raise AssertionError("unreachable: abort raises")

    async def _read(self, context: Context, work: Callable[..., T], *args: Any, cost: int = 1) -> T:
        """``_blocking``, the answer kept ``CACHE_S`` and shared by the calls asking the same meanwhile."""
        await self._admit(context, cost)
        key = (work.__name__, args, self.arena.version)  # the version before the read: never too new
        now = time.monotonic()
        kept = self.answers.get(key)
        if kept is None or kept[0] < now:
            if len(self.answers) >= MAX_CACHED:
                self._forget(now)
            reading = asyncio.ensure_future(self.reader.run(work, *args))
            reading.add_done_callback(lambda done: done.cancelled() or done.exception())  # retrieved
            kept = (now + CACHE_S, reading)
            self.answers[key] = kept
        try:
            answer: T = await asyncio.shield(kept[1])
            return answer
        except StorageError as error:
            await _abort(context, error)
        except BusyError as busy:
            if self.answers.get(key) is kept:  # a refusal is not an answer to keep
                del self.answers[key]
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, str(busy))
        raise AssertionError("unreachable: abort raises")

    def _forget(self, now: float) -> None:
        stale = [key for key, (until, _) in self.answers.items() if until < now]
        for key in stale or list(self.answers)[: len(self.answers) // 2]:
            del self.answers[key]

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
        await self._admit(context)
        try:  # on the event loop: it closes the bot's sessions too (the store's work goes to a thread)
            token = admin_token(context.invocation_metadata() or ())
            return await self.arena.rotate_token(request.name, token)
        except StorageError as error:
            await _abort(context, error)

    async def RevokeBot(
        self, request: arena_pb2.RevokeBotRequest, context: Context
    ) -> arena_pb2.RevokeBotResponse:
        await self._admit(context)
        try:  # on the event loop: it closes the bot's sessions too (the store's work goes to a thread)
            token = admin_token(context.invocation_metadata() or ())
            return await self.arena.revoke_bot(request.name, token)
        except StorageError as error:
            await _abort(context, error)

    async def ListBots(
        self, request: arena_pb2.ListBotsRequest, context: Context
    ) -> arena_pb2.ListBotsResponse:
        return await self._read(context, self.arena.list_bots)

    async def GetLeaderboard(
        self, request: arena_pb2.GetLeaderboardRequest, context: Context
    ) -> arena_pb2.GetLeaderboardResponse:
        return await self._read(context, self.arena.leaderboard, request.queue, request.limit)

    async def GetRatingHistory(
        self, request: arena_pb2.GetRatingHistoryRequest, context: Context
    ) -> arena_pb2.GetRatingHistoryResponse:
        return await self._read(context, self.arena.rating_history, request.bot, request.queue)

    async def GetBotStats(
        self, request: arena_pb2.GetBotStatsRequest, context: Context
    ) -> arena_pb2.GetBotStatsResponse:
        return await self._read(context, self.arena.bot_stats, request.bot, request.queue, cost=STATS_COST)

    async def ListGames(
        self, request: arena_pb2.ListGamesRequest, context: Context
    ) -> arena_pb2.ListGamesResponse:
        cost = games_cost(request.limit)
        return await self._read(
            context, self.arena.list_games, request.queue, request.bot, request.limit, cost=cost
        )

    async def ListLiveGames(
        self, request: arena_pb2.ListLiveGamesRequest, context: Context
    ) -> arena_pb2.ListLiveGamesResponse:
        # Not rate-limited: read from memory, as cheap as a refusal, and the dashboard's process (on the
        # same host as local flooders, with their address) follows the live games with it.
        try:
            return self.arena.live_games(request.queue)
        except StorageError as error:
            await _abort(context, error)

    async def GetGame(self, request: arena_pb2.GetGameRequest, context: Context) -> arena_pb2.GetGameResponse:
        return await self._read(context, self.arena.game, request.game_id)

    async def GetReplay(
        self, request: arena_pb2.GetReplayRequest, context: Context
    ) -> arena_pb2.GetReplayResponse:
        return await self._blocking(context, self.arena.replay_json, request.game_id, cost=HEAVY_COST)

    async def WatchGame(  # type: ignore[override]  # writes with context.write: the stubs know generators only
        self, request: arena_pb2.WatchGameRequest, context: Context
    ) -> None:
        # Written with context.write from a bounded mailbox: a spectator that stops reading is cut off.
        # A game another replica of the cluster plays is relayed from there (server.play.relay_watch).
        await self._admit(context)
        try:
            with self.arena.lobby.admission.stream(context.peer()):  # shared with the BotService
                watching = self.arena.watch_mailbox(request.game_id)
                if watching is None:
                    finished = await self._blocking(
                        context, self.arena.recorded_stream, request.game_id, cost=HEAVY_COST - 1
                    )
                    for message in finished:
                        await context.write(message)
                    return
                try:
                    delivered = await deliver(watching.spectator, context.write)
                finally:  # the spectator may hang up before the game ends
                    watching.unwatch()
                relayed = watching.relayed
                if not delivered or (relayed is not None and relayed.fell_behind):
                    self.arena.lobby.metrics.streams_cut.labels("unread").inc()
                    await cut_off(context, unread(self.arena.lobby.config))
                elif relayed is not None and (moved := await self.arena.moved(relayed)):
                    await context.abort(grpc.StatusCode.ABORTED, moved)
        except Refused as refused:
            self.arena.lobby.metrics.streams_cut.labels(refused.code).inc()
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, str(refused))
        except StorageError as error:  # UnwatchableError: a game changing replica
            await _abort(context, error)

    async def CreateChallenge(
        self, request: arena_pb2.CreateChallengeRequest, context: Context
    ) -> arena_pb2.CreateChallengeResponse:
        await self._admit(context)
        try:
            return await self.arena.create_challenge(request, context.invocation_metadata() or ())
        except StorageError as error:
            await _abort(context, error)

    async def CreateTournament(
        self, request: arena_pb2.CreateTournamentRequest, context: Context
    ) -> arena_pb2.CreateTournamentResponse:
        await self._admit(context)
        try:
            return await self.arena.create_tournament(request, context.invocation_metadata() or ())
        except StorageError as error:
            await _abort(context, error)

    async def GetTournament(
        self, request: arena_pb2.GetTournamentRequest, context: Context
    ) -> arena_pb2.GetTournamentResponse:
        return await self._read(context, self.arena.tournament, request.name)

    async def ListTournaments(
        self, request: arena_pb2.ListTournamentsRequest, context: Context
    ) -> arena_pb2.ListTournamentsResponse:
        return await self._read(context, self.arena.tournaments)
