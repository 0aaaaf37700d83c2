"""The read-only web dashboard: a Starlette app served by uvicorn, in a process of its own
(``server.web.process``) so that no web request slows the games.

Every page reads what the Arena API returns (its protobuf answers as JSON): the records through a
``server.arena.ledger.Ledger`` over the database, the games being played through a ``LiveFeed``
(``server.web.live``), a client of the game server's ArenaService: ListLiveGames, and WatchGame's
spectator stream (public events only, every hidden card -1) sent to the browser as server-sent events.
The pages are plain files in ``server/web/static`` (no build step).

JSON endpoints (docs/dashboard.md): ``/api/queues``, ``/api/cluster``, ``/api/leaderboard?queue=``,
``/api/games?queue=&bot=&tournament=``, ``/api/games/<id>``, ``/api/games/<id>/replay``,
``/api/games/<id>/watch`` (SSE), ``/api/bots/<name>``, ``/api/tournaments``, ``/api/tournaments/<name>``,
``/api/odds?attackers=&defenders=&dice=&repeat_until=``.

Every connection passes ``server.web.connections`` (a deadline for each request, a cut for an answer left
unread, bounds on the connections of one client address and of all), every request ``server.web.guard``
(a rate limit and a bound on the live games followed per client address, the security headers), the
odds and a replay's steps are computed in a worker process behind a bounded queue
(``server.web.heavy``), and a replay's answer is kept (``ReplayCache``: a finished game never changes).
The limits are ``server.web.limits.WebLimits``, set from the ``[server]`` settings ``dashboard_*``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

import grpc
import structlog
import uvicorn
from google.protobuf.json_format import MessageToDict
from google.protobuf.message import Message
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from server.arena.ledger import MAX_GAMES, Ledger, NoDatabaseError
from server.arena.service import status_code
from server.ops.ratelimit import RateLimit
from server.storage import InvalidInputError, NotFoundError, StorageError
from server.web.connections import OpenConnections, open_file_limit, protocol_of
from server.web.guard import Guard
from server.web.heavy import RETRY_AFTER, BusyError, HeavyWork, odds_job, replay_job
from server.web.layout_2210 import LAYOUT_2210
from server.web.limits import CLIENT_WATCHES, WebLimits
from server.web.live import GameMovingError, LiveFeed, PlayUnavailableError, TooManyWatchersError
from server.web.replay_view import STATIC

T = TypeVar("T")
log = structlog.get_logger("conquest.dashboard")

_HTTP_STATUS = {
    grpc.StatusCode.NOT_FOUND: 404,
    grpc.StatusCode.INVALID_ARGUMENT: 400,
    grpc.StatusCode.FAILED_PRECONDITION: 409,
}
"""The HTTP status of an Arena error, through the status code the gRPC API answers it with."""


def as_json(message: Message) -> dict[str, Any]:
    """A protobuf answer of the Arena as JSON (field names as in the .proto, zero values included)."""
    return MessageToDict(message, preserving_proto_field_name=True, always_print_fields_with_no_presence=True)


def _error(error: StorageError) -> JSONResponse:
    return JSONResponse({"error": str(error)}, status_code=_HTTP_STATUS.get(status_code(error), 500))


def _number(request: Request, name: str, default: int, low: int, high: int) -> int:
    """A whole-number query parameter.

    Raises:
        InvalidInputError: not a whole number in ``low..high`` (the message says so).
    """
    text = request.query_params.get(name, str(default))
    try:
        value = int(text)
    except ValueError:
        value = low - 1
    if not low <= value <= high:
        raise InvalidInputError(f"{name} = {text!r}: give a whole number from {low} to {high}")
    return value


REPLAY_CACHE_BYTES = 64 * 2**20
"""Bytes of replay answers kept (the most recently asked for)."""


class ReplayCache:
    """The latest replay answers by game id, at most ``limit`` bytes in all."""

    def __init__(self, limit: int = REPLAY_CACHE_BYTES) -> None:
        self.limit = limit
        self.size = 0
        self.answers: OrderedDict[str, bytes] = OrderedDict()

    def get(self, game_id: str) -> bytes | None:
        answer = self.answers.get(game_id)
        if answer is not None:
            self.answers.move_to_end(game_id)
        return answer

    def put(self, game_id: str, answer: bytes) -> None:
        if len(answer) > self.limit or game_id in self.answers:
            return
        self.answers[game_id] = answer
        self.size += len(answer)
        while self.size > self.limit:
            self.size -= len(self.answers.popitem(last=False)[1])


def _busy(error: BusyError | PlayUnavailableError | TooManyWatchersError) -> Response:
    return JSONResponse({"error": str(error)}, status_code=503, headers={"Retry-After": str(RETRY_AFTER)})


class Dashboard:
    """The dashboard's routes over the records of ``ledger`` and the live games of ``feed``; ``asgi`` is
    the app to serve (the routes behind the guard, which holds each client to ``limit`` and to
    ``watch_limit`` live games at once)."""

    def __init__(
        self,
        ledger: Ledger,
        feed: LiveFeed,
        limit: RateLimit | None = None,
        heavy: HeavyWork | None = None,
        watch_limit: int = CLIENT_WATCHES,
    ) -> None:
        self.ledger = ledger
        self.feed = feed
        self.heavy = heavy or HeavyWork()
        self.replays = ReplayCache()
        self.app = Starlette(
            routes=[
                Route("/", self.index),
                Route("/api/queues", self.queues),
                Route("/api/cluster", self.cluster),
                Route("/api/leaderboard", self.leaderboard),
                Route("/api/games", self.games),
                Route("/api/games/{game_id}", self.game),
                Route("/api/games/{game_id}/replay", self.replay),
                Route("/api/games/{game_id}/watch", self.watch),
                Route("/api/bots/{name}", self.bot),
                Route("/api/tournaments", self.tournaments),
                Route("/api/tournaments/{name}", self.tournament),
                Route("/api/odds", self.odds),
                Mount("/static", StaticFiles(directory=str(STATIC)), name="static"),
            ],
        )
        # Starlette would answer /static with a redirect to /static/ built from the Host header the client
        # sent (Host: evil.example sent it to http://evil.example/static/): every path is exact instead.
        self.app.router.redirect_slashes = False
        self.asgi = Guard(self.app, limit, watch_limit)

    async def _answer(self, work: Callable[..., T], *args: Any, blocking: bool = True) -> Response:
        """``work(*args)`` as JSON; database work runs in a worker thread."""
        try:
            result = await asyncio.to_thread(work, *args) if blocking else work(*args)
        except StorageError as error:
            return _error(error)
        return JSONResponse(as_json(result) if isinstance(result, Message) else result)

    async def index(self, request: Request) -> Response:
        return FileResponse(str(STATIC / "index.html"))

    async def queues(self, request: Request) -> Response:
        return await self._answer(self._queues)

    def _queues(self) -> dict[str, Any]:
        configured = list(self.ledger.queues)
        try:
            recorded = self.ledger.store.queues()
        except NoDatabaseError:  # a server without a database still shows its live games
            recorded = []
        return {"queues": configured + sorted(set(recorded) - set(configured))}

    async def cluster(self, request: Request) -> Response:
        """With ``server.cluster``: the replica this dashboard runs beside, every replica (its games,
        whether it is alive, the lease holder, its counts), the running games that changed replica and the
        cluster's totals; as the game server listed its live games (no call of its own)."""
        try:
            live = as_json(await self.feed.games())
        except PlayUnavailableError as error:
            return _busy(error)
        moved = [g for g in live["games"] if g["handovers"]]
        return JSONResponse(
            {
                "replica": live["replica"],
                "replicas": live["replicas"],
                "handed_over": moved,
                "totals": live.get("totals"),  # None on a server alone
            }
        )

    async def leaderboard(self, request: Request) -> Response:
        return await self._answer(self._leaderboard, request.query_params.get("queue", ""))

    def _leaderboard(self, queue: str) -> dict[str, Any]:
        """The Arena's leaderboard, each standing with its μ − 3σ after every rated game (the sparkline)."""
        board = as_json(self.ledger.leaderboard(queue, 0))
        for standing in board["standings"]:
            changes = self.ledger.rating_history(standing["bot"], queue).changes
            standing["history"] = [round(c.mu_after - 3 * c.sigma_after, 3) for c in changes]
        return board

    async def games(self, request: Request) -> Response:
        """Live and finished games, filtered by queue, bot and tournament (a tournament's games are those
        of its queue, ``tournament-<name>``)."""
        queue = request.query_params.get("queue", "")
        bot = request.query_params.get("bot", "")
        tournament = request.query_params.get("tournament", "")
        try:
            limit = _number(request, "limit", 50, 1, MAX_GAMES)
            if tournament:
                if queue:
                    raise InvalidInputError(
                        f"queue {queue!r} and tournament {tournament!r} both given: a tournament's games "
                        "have a queue of their own; filter by one of them"
                    )
                queue = (await asyncio.to_thread(self.ledger.tournament, tournament)).tournament.queue
            finished = await asyncio.to_thread(self.ledger.list_games, queue, bot, limit)  # checks the queue
            playing = await self._live_games()
        except StorageError as error:
            return _error(error)
        except PlayUnavailableError as error:
            return _busy(error)
        live = [  # every queue's live games, so unconfigured ones (tournaments, challenges) filter too
            g
            for g in playing
            if (not queue or g["queue"] == queue) and (not bot or any(p["name"] == bot for p in g["players"]))
        ]
        return JSONResponse({"live": live, "games": as_json(finished)["games"]})

    async def _live_games(self) -> list[dict[str, Any]]:
        """Every game being played (as the game server listed them at most ``LIVE_CACHE_S`` ago)."""
        games: list[dict[str, Any]] = as_json(await self.feed.games())["games"]
        return games

    async def game(self, request: Request) -> Response:
        return await self._answer(self.ledger.game, request.path_params["game_id"])

    async def replay(self, request: Request) -> Response:
        """The viewer's steps of a finished game, computed once in the worker process and kept."""
        game_id = request.path_params["game_id"]
        answer = self.replays.get(game_id)
        if answer is None:
            try:
                record = await asyncio.to_thread(self.ledger.replay_json, game_id)
                answer = await self.heavy.run(replay_job, record.replay_json)
            except StorageError as error:
                return _error(error)
            except BusyError as busy:
                return _busy(busy)
            except ValueError as bad:  # a stored replay the engine cannot replay
                problem = f"the replay of {game_id} cannot be shown: {bad}"
                return JSONResponse({"error": problem}, status_code=500)
            self.replays.put(game_id, answer)
        return Response(answer, media_type="application/json")

    async def watch(self, request: Request) -> Response:
        """Server-sent events of a live game: ``snapshot``, ``events`` batches (``events_2210`` for a RISK
        2210 A.D. game, each with the board after it; its snapshot's ``r2210`` gets the board's ``layout``),
        ``game_over`` (the WatchGame stream); a game that is not being played gets one ``finished`` event
        (its replay is shown instead) or ``missing``. In a cluster a game another replica plays streams the
        same (relayed); one that changes replica goes on with a new ``snapshot`` from its new host, or ends
        with ``moving`` (the game server's words) if no replica streams it again within ``live.FOLLOW_S``."""
        game_id = request.path_params["game_id"]
        try:
            stream = await self.feed.watch(game_id)
        except (PlayUnavailableError, TooManyWatchersError) as busy:
            return _busy(busy)
        headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
        if stream is None:
            try:
                await asyncio.to_thread(self.ledger.game, game_id)
                kind, data = "finished", {"game_id": game_id}
            except StorageError as error:
                kind, data = "missing", {"error": str(error)}
            return StreamingResponse(_once(kind, data), media_type="text/event-stream", headers=headers)

        async def follow() -> AsyncIterator[str]:
            try:
                async for message in stream:
                    kind = message.WhichOneof("message") or ""
                    data = as_json(getattr(message, kind))
                    if kind == "snapshot" and message.snapshot.HasField("r2210"):
                        data["r2210"]["layout"] = LAYOUT_2210  # where the page draws each territory
                    yield _event(kind, data)
            except GameMovingError as moving:
                yield _event("moving", {"game_id": game_id, "error": str(moving)})
            finally:  # the browser may leave before the game ends
                await stream.aclose()

        return StreamingResponse(follow(), media_type="text/event-stream", headers=headers)

    async def bot(self, request: Request) -> Response:
        return await self._answer(self._bot, request.path_params["name"])

    def _bot(self, name: str) -> dict[str, Any]:
        """A bot's registration, rating history per queue, totals, head-to-head record, recent games and
        GetBotStats over all its games (round trips by phase, timeouts, rejections, crashes)."""
        bots = [as_json(b) for b in self.ledger.list_bots().bots if b.name == name]
        games = as_json(self.ledger.list_games("", name, MAX_GAMES))["games"]
        if not bots and not games:
            raise NotFoundError(f"no bot {name!r} is registered or has played a recorded game")
        ratings = {}
        for queue in sorted({g["queue"] for g in games if g["rated"]}):
            ratings[queue] = as_json(self.ledger.rating_history(name, queue))["changes"]
        totals = {"games": 0, "wins": 0, "forfeits": 0}
        rivals: dict[str, dict[str, int]] = {}
        for game in games:
            mine = [s for s in game["seats"] if s["name"] == name]
            for seat in mine:
                totals["games"] += 1
                totals["wins"] += seat["place"] == 1
                totals["forfeits"] += seat["outcome"].startswith("SEAT_OUTCOME_FORFEIT")
                for other in game["seats"]:
                    if other["name"] == name:
                        continue
                    row = rivals.setdefault(other["name"], {"games": 0, "ahead": 0, "behind": 0, "level": 0})
                    row["games"] += 1
                    key = "ahead" if seat["place"] < other["place"] else "behind"
                    row["level" if seat["place"] == other["place"] else key] += 1
        return {
            "bot": bots[0] if bots else None,
            "name": name,
            "totals": totals,
            "ratings": ratings,
            "head_to_head": [{"opponent": k, **v} for k, v in sorted(rivals.items())],
            "games": games[:30],
            "stats": as_json(self.ledger.bot_stats(name, "")) if bots else None,
        }

    async def tournaments(self, request: Request) -> Response:
        return await self._answer(self.ledger.tournaments)

    async def tournament(self, request: Request) -> Response:
        """GetTournament's answer; each unplayed table also gets ``live_game_id``, the game its bots are
        playing now in the tournament's queue (a table is linked to its game only once it is recorded)."""
        try:
            found = await asyncio.to_thread(self.ledger.tournament, request.path_params["name"])
            live = await self._live_games()
        except StorageError as error:
            return _error(error)
        except PlayUnavailableError as error:
            return _busy(error)
        answer = as_json(found)
        queue = answer["tournament"]["queue"]
        playing = {
            frozenset(p["name"] for p in g["players"]): g["game_id"] for g in live if g["queue"] == queue
        }
        for round_ in answer["tournament"]["rounds"]:
            for table in round_["tables"]:
                if not table["game_id"] and len(table["bots"]) > 1:
                    table["live_game_id"] = playing.get(frozenset(table["bots"]), "")
        return JSONResponse(answer)

    async def odds(self, request: Request) -> Response:
        try:
            attackers = _number(request, "attackers", 0, 2, 10_000)
            defenders = _number(request, "defenders", 0, 1, 10_000)
            dice = _number(request, "dice", 3, 1, 3)
            repeat_until = _number(request, "repeat_until", 1, 0, attackers - 1)
            odds = await self.heavy.run(odds_job, attackers, defenders, dice, repeat_until)
        except StorageError as error:
            return _error(error)
        except BusyError as busy:
            return _busy(busy)
        except ValueError as bad:  # odds of an impossible attack
            return JSONResponse({"error": str(bad)}, status_code=400)
        return JSONResponse(odds)


def _event(kind: str, data: dict[str, Any]) -> str:
    return f"event: {kind}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


async def _once(kind: str, data: dict[str, Any]) -> AsyncIterator[str]:
    yield _event(kind, data)


class _Uvicorn(uvicorn.Server):
    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield  # the process running it owns SIGTERM and SIGINT


@dataclass
class RunningDashboard:
    server: uvicorn.Server
    task: asyncio.Task[None]
    port: int
    dashboard: Dashboard
    connections: OpenConnections

    @property
    def url(self) -> str:
        return f"http://localhost:{self.port}/"

    async def stop(self) -> None:
        self.server.should_exit = True
        await self.task
        self.dashboard.heavy.close()
        await self.dashboard.feed.close()


async def start_dashboard(
    ledger: Ledger,
    feed: LiveFeed,
    port: int,
    host: str = "",
    limit: RateLimit | None = None,
    web_limits: WebLimits | None = None,
) -> RunningDashboard:
    """Serve the dashboard of ``ledger`` and ``feed`` (closed when it stops) over HTTP on ``port`` (0: a
    free port) of every interface (``host`` ""), on the running event loop, each client held to
    ``limit`` (the default of ``server.web.guard``) and, with all the others, to ``web_limits`` (the
    defaults of ``server.web.limits``). ``server.web.process`` runs it in its own process.

    Raises:
        OSError: the port cannot be bound (the message names it).
    """
    family = socket.AF_INET6 if not host and socket.has_dualstack_ipv6() else socket.AF_INET
    try:
        sock = socket.create_server(
            (host, port), family=family, dualstack_ipv6=family == socket.AF_INET6, reuse_port=False
        )
    except OSError as bad:
        raise OSError(f"the dashboard cannot listen on port {port}: {bad.strerror}") from None
    web_limits = web_limits or WebLimits()
    dashboard = Dashboard(ledger, feed, limit, watch_limit=web_limits.client_watches)
    connections = OpenConnections(web_limits, open_file_limit())
    config = uvicorn.Config(
        dashboard.asgi,
        http=protocol_of(connections),  # h11 with deadlines and bounds on connections (uvicorn has neither)
        log_config=None,  # structlog configures logging; uvicorn must not replace it
        access_log=False,
        # A client is its socket's address: X-Forwarded-For from a local process would otherwise choose its
        # rate-limit bucket (uvicorn trusts it from the loopback address by default).
        proxy_headers=False,
        lifespan="off",
        timeout_graceful_shutdown=2,
    )
    server = _Uvicorn(config)
    task = asyncio.create_task(server.serve(sockets=[sock]), name="dashboard")
    while not server.started:
        if task.done():
            task.result()  # raises what stopped it
            raise OSError("the dashboard stopped while starting")
        await asyncio.sleep(0.01)
    return RunningDashboard(server, task, sock.getsockname()[1], dashboard, connections)
