"""The ArenaService servicer: request fields in, ``server.arena.api`` does the work, errors out as status
codes.

Play comes first (issue 21), so every call's cost to the game server is bounded:

- each client (its address) is held to a token bucket (``RATE`` tokens a second, ``BURST`` at once); a
  call takes one token, or more as it reads more (``games_cost``, ``HEAVY_COST``), every call, the
  cheapest too (ListLiveGames, and a call refused for its missing admin token); a call past the
  bucket is answered ``RESOURCE_EXHAUSTED`` with the seconds to wait, and nothing is read. The refusal
  comes ``HOLD_S`` after the call (``MAX_HELD`` calls held at once): a client that retries at once gets
  one refusal a second for each call it keeps open, however cheap the call (a refusal costs the server
  about what a cheap answer does: held only as long as the wait for one token, 1/50 s, 32 open calls
  were refused 1,000 times a second);
- the dashboard process (``server.web.process``), which follows the live games from this host's address,
  is known by the secret it was handed at its start (request metadata ``DASHBOARD_METADATA``) and held to
  a bucket and a stream budget of its own (``DashboardClient``), never its address's: local bots and local
  floods share that address;
- database work runs on one reader thread behind a bounded queue (``READ_SLOTS`` calls running or
  waiting; one more is answered ``RESOURCE_EXHAUSTED``), so it never holds the event loop, and a flood
  holds the GIL from one thread, not many; work that took that thread more CPU than its tokens pay for
  (``WORK_MS_PER_TOKEN`` each) takes the rest of its tokens after it: its client waits that much longer
  for its next call (a ListGames of a thousand games, 11 tokens, took 250-300 ms once a thousand games
  were recorded: at 50 tokens a second, more than a core);
- a read's answer is kept ``CACHE_S`` seconds, or until this process next writes to the database
  (``Ledger.version``), and calls asking the same meanwhile share it: a flood of one query costs one
  database read a second. A write by another process (``conquest bot register``) shows within ``CACHE_S``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hmac
import math
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, NamedTuple, NoReturn, TypeVar

import grpc

from conquest.v1 import arena_pb2, arena_pb2_grpc
from server.arena.api import Arena, MissingAdminTokenError, UnwatchableError, admin_token
from server.arena.competitions import NotConnectedError
from server.arena.ledger import DEFAULT_GAMES, NoDatabaseError
from server.ops.bounded import BoundedPool, BusyError
from server.ops.calls import DASHBOARD_METADATA, client_of, cut_off, unread
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
"""Seconds a refused call is held before its refusal."""
MAX_HELD = 1000
"""Refused calls held at once over all clients; past it, refusals are sent at once."""
READ_SLOTS = 16
"""Calls with database work running or waiting at once, over all clients; the next is refused."""
CACHE_S = 1.0
"""Seconds a read's answer is kept (while this process writes nothing to the database)."""
MAX_CACHED = 256
"""Answers kept at most (the oldest are dropped first)."""
WORK_MS_PER_TOKEN = 2.0
"""Milliseconds of the reader thread's CPU a token pays for: a client at ``RATE`` may have it work a
tenth of a core at most."""
DASHBOARD = "dashboard"
"""The key of the dashboard process's bucket and streams (no client address is spelled so)."""
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


def live_games_cost(games: int) -> int:
    """Tokens of ListLiveGames while ``games`` games are being played: its answer is built afresh for each
    call, so it costs as ListGames does, one per hundred games listed, plus one."""
    return 1 + games // 100


@dataclasses.dataclass(frozen=True)
class DashboardClient:
    """What the play process grants the dashboard process it spawned, known by the secret it handed it
    (``token``, shown in the request metadata ``DASHBOARD_METADATA``): a token bucket and a stream budget
    of its own. Its calls come from this host's address, which local bots and local floods share: counted
    as that address's, its live view's streams took the local bots' stream slots, and a local flood the
    live view's calls."""

    token: str = dataclasses.field(repr=False)
    limit: RateLimit
    streams: int
    """WatchGame streams it may hold open at once."""


class Caller(NamedTuple):
    """Whom a call is counted against."""

    key: str
    """Its bucket's and its streams' key: the client's address, or ``DASHBOARD``."""
    limit: RateLimit
    streams: int
    """Streams it may hold open at once (0: ``server.client_stream_limit``, an address's)."""


class ArenaService(arena_pb2_grpc.ArenaServiceServicer):
    """``dashboard``: the dashboard process's grant (None: no dashboard, and a call showing a dashboard
    secret is refused)."""

    def __init__(
        self, arena: Arena, limit: RateLimit | None = None, dashboard: DashboardClient | None = None
    ) -> None:
        self.arena = arena
        self.limit = limit or RateLimit(RATE, BURST)
        self.dashboard = dashboard
        self.reader = BoundedPool(
            lambda: ThreadPoolExecutor(1, thread_name_prefix="arena-reader"),
            READ_SLOTS,
            "reading the database for Arena calls",
        )
        self.held = 0
        """Refused calls waiting for their refusal."""
        self.answers: dict[tuple[Any, ...], tuple[float, asyncio.Future[Any]]] = {}
        """(call, arguments, database version) -> (when it goes stale, the answer being read or read)."""

    async def _admit(self, context: Context, cost: int = 1) -> Caller:
        """Take ``cost`` tokens of the caller's bucket, or answer RESOURCE_EXHAUSTED; the caller."""
        caller = await self._caller(context)
        await self._take(context, caller, cost)
        return caller

    async def _caller(self, context: Context) -> Caller:
        """The dashboard process, when the call shows its secret; else the client's address. A call showing
        another secret is refused UNAUTHENTICATED, after taking a token of its address's bucket (guesses
        are held to the rate)."""
        address = Caller(client_of(context.peer()), self.limit, 0)
        shown = next((v for k, v in context.invocation_metadata() or () if k == DASHBOARD_METADATA), None)
        if shown is None:
            return address
        secret = shown.encode() if isinstance(shown, str) else shown
        if self.dashboard is not None and hmac.compare_digest(secret, self.dashboard.token.encode()):
            return Caller(DASHBOARD, self.dashboard.limit, self.dashboard.streams)
        await self._take(context, address, 1)
        await context.abort(
            grpc.StatusCode.UNAUTHENTICATED,
            f"the request metadata {DASHBOARD_METADATA} is not this game server's dashboard secret: the game "
            "server makes one at each start and hands it to the dashboard process it spawns, and no other "
            "client has it; send the call without that metadata (it is then counted as any call from "
            f"{address.key}), or restart the dashboard with its game server",
        )
        raise AssertionError("unreachable: abort raises")

    async def _take(self, context: Context, caller: Caller, cost: int) -> None:
        """Take ``cost`` tokens of ``caller``'s bucket, or answer RESOURCE_EXHAUSTED ``HOLD_S`` later."""
        wait = caller.limit.take(caller.key, cost) if cost else 0.0
        if wait:
            if self.held < MAX_HELD:
                self.held += 1
                try:
                    await asyncio.sleep(HOLD_S)
                finally:
                    self.held -= 1
            await context.abort(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"too many Arena calls from {caller.key}: at most {caller.limit.burst} tokens at once and "
                f"{caller.limit.rate:g} a second (a call takes 1; ListGames 1 per 100 games, ListLiveGames 1 "
                f"per 100 games being played, GetBotStats {STATS_COST}, GetReplay and a finished game's "
                f"WatchGame {HEAVY_COST}; and 1 per {WORK_MS_PER_TOKEN:g} ms of database work past that, "
                f"after it); retry in {max(1, math.ceil(wait))} s",
            )

    def _charged(self, caller: Caller, cost: int, work: Callable[..., T]) -> Callable[..., T]:
        """``work``, for the reader thread, charging ``caller`` once it ran for the CPU it took past what its
        ``cost`` tokens paid for (``WORK_MS_PER_TOKEN``), even when the caller has left meanwhile."""
        loop = asyncio.get_running_loop()

        def charged(*args: Any) -> T:
            start = time.thread_time()
            try:
                return work(*args)
            finally:
                unpaid = (time.thread_time() - start) * 1000 / WORK_MS_PER_TOKEN - cost
                if unpaid > 0:
                    loop.call_soon_threadsafe(caller.limit.charge, caller.key, unpaid)

        return charged

    async def _blocking(self, context: Context, work: Callable[..., T], *args: Any, cost: int = 1) -> T:
        """``work(*args)`` on the reader thread, for a caller within its rate (``cost`` tokens, and those
        its work takes past them)."""
        caller = await self._admit(context, cost)
        try:
            return await self.reader.run(self._charged(caller, cost, work), *args)
        except StorageError as error:
            await _abort(context, error)
        except BusyError as busy:
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, str(busy))
        raise AssertionError("unreachable: abort raises")

    async def _read(self, context: Context, work: Callable[..., T], *args: Any, cost: int = 1) -> T:
        """``_blocking``, the answer kept ``CACHE_S`` and shared by the calls asking the same meanwhile (the
        call that reads it pays for its work)."""
        caller = await self._admit(context, cost)
        key = (work.__name__, args, self.arena.version)  # the version before the read: never too new
        now = time.monotonic()
        kept = self.answers.get(key)
        if kept is None or kept[0] < now:
            if len(self.answers) >= MAX_CACHED:
                self._forget(now)
            reading = asyncio.ensure_future(self.reader.run(self._charged(caller, cost, work), *args))
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
        await self._admit(context)  # before the token is read: a call without one is counted too
        try:
            token = admin_token(context.invocation_metadata() or ())
        except MissingAdminTokenError as error:
            await _abort(context, error)
        return await self._blocking(context, work, name, token, cost=0)

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
        # Read from memory, but built for each call: 1,344 calls a second, unlimited, took the server from
        # 0.45 to 0.79 of a core (issue 33). The dashboard's process has a bucket of its own.
        await self._admit(context, live_games_cost(self.arena.live_count()))
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
        caller = await self._admit(context)
        try:  # held with the BotService's streams: the client's address's, or the dashboard's own
            with self.arena.lobby.admission.stream(context.peer(), caller.key, caller.streams):
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
