"""The play process's live games as the dashboard process sees them: a client of its Arena API.

The dashboard serves HTTP in a process of its own (``server.web.process``) so that no web request holds
the play process's event loop or GIL; what it shows of the games being played it reads the way any
spectator does, over gRPC: ``ListLiveGames`` (one call at a time, its answer kept ``LIVE_CACHE_S``, so a
thousand visitors cost the play process one call in that time) and ``WatchGame`` (one stream per
visitor following a game, at most ``MAX_WATCHERS`` at once). In a cluster, any replica streams any game
(relaying it from its host); a game that changes replica (a host draining or killed) is followed to its new
host: the stream goes on with a new snapshot, which the page draws afresh.

Every call shows the secret the play process handed the dashboard process at its start (request metadata
``server.ops.calls.DASHBOARD_METADATA``), so the play process counts the feed under limits of its own
(``FEED_RATE``, ``FEED_BURST``, ``FEED_STREAMS``), not under its address's, which local bots share.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator

import grpc

from conquest.v1 import arena_pb2, arena_pb2_grpc
from server.ops.calls import DASHBOARD_METADATA

LIVE_CACHE_S = 0.5
"""Seconds a ListLiveGames answer is shown before it is asked for again."""
MAX_WATCHERS = 200
"""Live games followed at once over all visitors; one more is refused (``TooManyWatchersError``)."""
CALL_TIMEOUT_S = 10.0
"""Seconds the play process has to answer ListLiveGames."""
FOLLOW_S = 15.0
"""Seconds a game that changes replica is looked for (WatchGame called again) before the visitor is told."""
RETRY_S = 0.5
"""Seconds between WatchGame calls while no replica can stream a game changing replica."""
FEED_STREAMS = MAX_WATCHERS + MAX_WATCHERS // 4
"""WatchGame streams the play process lets the feed hold open at once: its ``MAX_WATCHERS``, and a margin
for the streams it has let go of that the play process has not seen end yet."""
FEED_RATE = MAX_WATCHERS / RETRY_S
"""Arena calls a second the play process lets the feed make: every watcher calling WatchGame again each
``RETRY_S`` while its game changes replica (ListLiveGames, at most every 0.1 s, is lost in it)."""
FEED_BURST = 2 * MAX_WATCHERS
"""Arena calls the feed may make at once: every watcher's WatchGame, and each one's again."""
_CHANGING_REPLICA = (grpc.StatusCode.ABORTED, grpc.StatusCode.FAILED_PRECONDITION)
"""WatchGame's answers for a game changing replica: it moved (call again), or no replica plays it yet."""


class PlayUnavailableError(Exception):
    """The game server did not answer (the message says which call and why)."""


class GameMovingError(Exception):
    """The game changed replica in the cluster and no replica streamed it again within ``FOLLOW_S`` (the
    message, the play process's, says why)."""


class TooManyWatchersError(Exception):
    """``MAX_WATCHERS`` live games are followed already (the message says so and what to do)."""


class LiveFeed:
    """The live games of the game server at ``address`` (host:port of its gRPC API). ``token``: the secret
    the game server handed this dashboard, shown with every call ("": none, the feed's calls are counted as
    any from its address)."""

    def __init__(self, address: str, max_watchers: int = MAX_WATCHERS, token: str = "") -> None:
        self.address = address
        self.max_watchers = max_watchers
        self._metadata = ((DASHBOARD_METADATA, token),) if token else ()
        self.watchers = 0
        self.ids: set[str] = set()
        """The ids of the games being played at the last look (updated in place)."""
        self._channel = grpc.aio.insecure_channel(address)
        self._stub = arena_pb2_grpc.ArenaServiceStub(self._channel)
        self._games = arena_pb2.ListLiveGamesResponse()
        self._asked_at = -LIVE_CACHE_S
        self._asking: asyncio.Task[arena_pb2.ListLiveGamesResponse] | None = None

    async def games(self, max_age: float = LIVE_CACHE_S) -> arena_pb2.ListLiveGamesResponse:
        """Every game being played, as ListLiveGames answered at most ``max_age`` seconds ago.

        Raises:
            PlayUnavailableError: the game server did not answer.
        """
        if time.monotonic() - self._asked_at < max_age:
            return self._games
        if self._asking is None:  # every visitor asking meanwhile waits for the same answer
            self._asking = asyncio.create_task(self._ask())
            self._asking.add_done_callback(self._asked)
        return await asyncio.shield(self._asking)

    async def _ask(self) -> arena_pb2.ListLiveGamesResponse:
        try:
            games: arena_pb2.ListLiveGamesResponse = await self._stub.ListLiveGames(
                arena_pb2.ListLiveGamesRequest(), timeout=CALL_TIMEOUT_S, metadata=self._metadata
            )
        except grpc.aio.AioRpcError as error:
            raise PlayUnavailableError(
                f"the game server at {self.address} did not list its live games "
                f"({error.code().name}: {error.details()}); retry in a few seconds"
            ) from None
        self._games, self._asked_at = games, time.monotonic()
        self.ids.clear()
        self.ids.update(g.game_id for g in games.games)
        return games

    def _asked(self, task: asyncio.Task[arena_pb2.ListLiveGamesResponse]) -> None:
        self._asking = None
        if not task.cancelled():
            task.exception()  # retrieved: every waiter has been given it

    async def watch(self, game_id: str) -> AsyncGenerator[arena_pb2.WatchGameResponse] | None:
        """WatchGame's stream of a game being played, or None when no such game is being played. Reading
        the stream raises ``GameMovingError`` when the game changed replica and could not be followed.

        Raises:
            PlayUnavailableError: the game server did not answer.
            TooManyWatchersError: ``max_watchers`` streams are open already.
        """
        if game_id not in self.ids:  # a game that started since the last look is found by a fresh one
            await self.games(max_age=0.1)
        if game_id not in self.ids:
            return None
        if self.watchers >= self.max_watchers:
            raise TooManyWatchersError(
                f"{self.watchers} live games are being followed on this dashboard already (at most "
                f"{self.max_watchers} at once); retry in a minute, or open the game's replay once it is over"
            )
        return self._follow(game_id)

    async def _follow(self, game_id: str) -> AsyncGenerator[arena_pb2.WatchGameResponse]:
        self.watchers += 1  # counted from the first read: a stream never read holds nothing
        lost_at = 0.0  # since when the game, changing replica, has not been streamed (0: it is)
        try:
            while True:
                call = self._stub.WatchGame(
                    arena_pb2.WatchGameRequest(game_id=game_id), metadata=self._metadata
                )
                try:
                    async for message in call:
                        lost_at = 0.0
                        yield message
                    return
                except grpc.aio.AioRpcError as error:
                    if error.code() not in _CHANGING_REPLICA:
                        return  # the game server went away: the visitor's stream ends
                    lost_at = lost_at or time.monotonic()
                    if time.monotonic() - lost_at > FOLLOW_S:
                        raise GameMovingError(error.details()) from None
                    if error.code() == grpc.StatusCode.FAILED_PRECONDITION:
                        await asyncio.sleep(RETRY_S)  # no replica plays it yet
                finally:
                    call.cancel()
        finally:
            self.watchers -= 1

    async def close(self) -> None:
        await self._channel.close()
