"""The connection: one bidirectional stream, many games, a deadline per decision, automatic reconnect.

A bot is one ``Bot`` subclass with a ``decide(game, turn)`` method; ``Client`` does everything else:
Hello, queues, per-game state keyed by game id, running ``decide`` off the event loop so a slow
strategy never holds up another game's reply, answering with a safe default when ``decide`` overruns
its deadline, fails or is rejected, and reconnecting with backoff (same identity, so the server hands
back the seats) after the connection drops.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import random
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import grpc

from conquest.v1 import bot_pb2, bot_pb2_grpc, game_pb2, r2210_pb2
from conquest_sdk.game import Game, Turn
from conquest_sdk.r2210 import Turn2210

CLIENT_NAME = "conquest-python-sdk"
CLIENT_VERSION = "0.1.0"

RETRYABLE = {"shutting_down"}
"""Fatal error codes worth reconnecting after (the rest mean the Hello itself was refused)."""

log = logging.getLogger("conquest_sdk")


STOP_RECONNECT_S = 30.0
"""How long a stopped client, disconnected with games in progress, tries to reconnect to finish them (a
server keeps a seat for its reconnect grace, 30 s by default); then it gives them up and ends, so a bot
whose server is gone for good does not reconnect forever once told to stop."""


class Bot:
    """Subclass and override ``decide``; the other hooks are optional.

    ``decide`` may be a plain method (run in a worker thread) or ``async def`` (run on the event loop:
    then it must not block).
    """

    name = "python-bot"
    """Display name used when no token is given."""
    timebank_share = 0.0
    """Fraction of the timebank a single decision may use on top of its own time (0..1)."""
    live_events = False
    """True: ``on_events`` is also called as each turn passes while others play (Hello.live_events);
    False: a game's events are told just before the bot's next ``decide`` and before ``on_game_over``."""

    def decide(self, game: Game, turn: Turn) -> game_pb2.Action:
        raise NotImplementedError("override decide(game, turn) and return an Action")

    def decide_2210(self, game: Game, turn: Turn2210) -> r2210_pb2.Action2210:
        """A RISK 2210 A.D. decision (``game.r2210`` holds its rules and board): override to play 2210;
        this one answers ``turn.default()``, a safe legal choice (the SDK warns once a game that it does)."""
        return turn.default()

    def on_game_started(self, game: Game) -> None:
        """A new game: ``game`` holds the seat, players, rules and map."""

    def on_events(self, game: Game, events: Sequence[game_pb2.GameEvent]) -> None:
        """Public events of ``game``, in order (those that came with a DecisionRequest are told before
        ``decide`` is called for it)."""

    def on_game_over(self, game: Game, result: bot_pb2.GameOver) -> None:
        """``game`` ended; ``result.results[game.seat]`` is this bot's place and outcome."""


class SessionError(Exception):
    """The server refused the session (a fatal Error message); reconnecting would not help."""


class Client:
    """Plays ``bot`` on the server at ``address`` until ``games`` games are over (0: until ``stop()``).

    Identity: ``token`` for a registered bot, else ``name`` for practice play. ``pace_ms``: answer no
    sooner than that many ms after a request arrived (0: at once), never past the decision's deadline, so
    that a visitor can follow a demo's game live. ``on_game_over(game, result)`` is called as each game
    ends (``game`` is None for a game this client did not know), e.g. to print its result at once.
    """

    def __init__(
        self,
        bot: Bot,
        address: str,
        *,
        token: str = "",
        name: str = "",
        queues: Sequence[str] = (),
        games: int = 0,
        capacity: int = 1,
        safety_ms: int = 25,
        max_backoff_s: float = 5.0,
        pace_ms: int = 0,
        on_game_over: Callable[[Game | None, bot_pb2.GameOver], None] | None = None,
    ) -> None:
        self.bot = bot
        self.address = address
        self.token = token
        self.name = name or bot.name
        self.queues = list(queues)
        self.games_wanted = games
        self.capacity = max(1, min(capacity, games) if games else capacity)
        self.safety_ms = safety_ms
        """Kept back from every deadline for the network and this process."""
        self.max_backoff_s = max_backoff_s
        self.pace_ms = pace_ms
        """No answer leaves sooner than this after its request arrived (0: at once)."""
        self.on_game_over = on_game_over
        self.games: dict[str, Game] = {}
        self.results: list[bot_pb2.GameOver] = []
        self.welcome: bot_pb2.Welcome | None = None
        self.reconnects = 0
        self._started = 0
        self._lost = 0
        self._stopping = False
        self._stopped_at = 0.0
        self._done = asyncio.Event()
        self._turns: dict[str, Turn | Turn2210] = {}
        """The last request of each game, to retry a rejected decision with a safe default."""
        self._retried: set[tuple[str, int]] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        self._outbox: asyncio.Queue[bot_pb2.ConnectRequest | None] = asyncio.Queue()
        self._executor = ThreadPoolExecutor(max_workers=2 * self.capacity, thread_name_prefix="decide")

    # ------------------------------------------------------------------ lifecycle

    async def run(self) -> list[bot_pb2.GameOver]:
        """Connect and play; returns the GameOver of every game played.

        Raises:
            SessionError: the server refused the session (bad Hello, unknown queue, ...).
        """
        backoff = 0.1
        try:
            while not self._finished():
                try:
                    await self._session()
                except grpc.aio.AioRpcError as error:
                    if self._finished():
                        break
                    log.warning("no connection (%s: %s)", error.code().name, error.details())
                if self._finished():
                    break
                if self._stopping and time.monotonic() > self._stopped_at + STOP_RECONNECT_S:
                    for game_id in list(self.games):
                        self._lose(game_id, f"stopped, and no server answered for {STOP_RECONNECT_S:.0f} s")
                    break
                if self.welcome is not None:
                    backoff = 0.1  # the last attempt got in: start the backoff over
                    self.welcome = None
                delay = backoff * random.uniform(0.5, 1.0)
                log.info("reconnecting to %s in %.2fs", self.address, delay)
                await asyncio.sleep(delay)
                backoff = min(2 * backoff, self.max_backoff_s)
                self.reconnects += 1
        finally:
            for task in self._tasks:
                task.cancel()
            self._executor.shutdown(wait=False, cancel_futures=True)
        return self.results

    def stop(self) -> None:
        """Clean shutdown: leave the queues, finish the games in progress, then close. Disconnected, it
        tries to reconnect for ``STOP_RECONNECT_S`` to finish them, then gives them up."""
        if not self._stopping:
            self._stopped_at = time.monotonic()
        self._stopping = True
        for queue in self.queues:
            self._send(bot_pb2.ConnectRequest(leave_queue=bot_pb2.LeaveQueue(queue=queue)))
        self._check_done()

    @property
    def stopping(self) -> bool:
        """True once ``stop()`` was called."""
        return self._stopping

    def _finished(self) -> bool:
        return self._done.is_set()

    def _check_done(self) -> None:
        over = len(self.results) + self._lost
        if (self._stopping or (self.games_wanted and over >= self.games_wanted)) and not self.games:
            self._done.set()

    def _wants_games(self) -> bool:
        return not self._stopping and (not self.games_wanted or self._started < self.games_wanted)

    def _send(self, message: bot_pb2.ConnectRequest | None) -> None:
        self._outbox.put_nowait(message)

    # ------------------------------------------------------------------ the stream

    async def _session(self) -> None:
        self._outbox = asyncio.Queue()
        hello = bot_pb2.Hello(
            token=self.token,
            name="" if self.token else self.name,
            client_name=CLIENT_NAME,
            client_version=CLIENT_VERSION,
            capacity=self.capacity,
            live_events=self.bot.live_events,
        )
        self._send(bot_pb2.ConnectRequest(hello=hello))
        async with grpc.aio.insecure_channel(self.address) as channel:
            call = bot_pb2_grpc.BotServiceStub(channel).Connect(_drain(self._outbox))
            reader = asyncio.create_task(self._read(call))
            done = asyncio.create_task(self._done.wait())
            await asyncio.wait({reader, done}, return_when=asyncio.FIRST_COMPLETED)
            done.cancel()
            # The request stream ends either way: finished, this half-closes it; dropped, it ends gRPC's task
            # that writes it, which the call's end leaves waiting on the outbox (a task left per reconnect).
            self._send(None)
            if reader.done():
                reader.result()  # re-raise a dropped connection
                return
            call.cancel()
            reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await reader

    async def _read(self, call: Any) -> None:
        async for message in call:
            kind = message.WhichOneof("message")
            handler = getattr(self, f"_on_{kind}")
            handler(getattr(message, kind))
        # Once this client's games are over the server may close first (a practice server that played them).
        log.log(logging.INFO if self._finished() else logging.WARNING, "the server closed the stream")

    # ------------------------------------------------------------------ server messages

    def _on_welcome(self, welcome: bot_pb2.Welcome) -> None:
        self.welcome = welcome
        resumed = set(welcome.resumed_game_ids)
        log.info("connected as %s (session %s, resumed %s)", welcome.bot_name, welcome.session_id, resumed)
        for game_id in list(self.games):
            if game_id not in resumed:
                self._lose(game_id, "it was not resumed after the reconnect")
        if self._wants_games():
            # The server seats at most ``games`` from this join, so no game is started and abandoned
            # between the last wanted one starting and the LeaveQueue arriving.
            left = self.games_wanted - self._started if self.games_wanted else 0
            for queue in self.queues:
                self._send(bot_pb2.ConnectRequest(join_queue=bot_pb2.JoinQueue(queue=queue, games=left)))
        self._check_done()

    def _lose(self, game_id: str, why: str) -> None:
        """Stop waiting for ``game_id``: it is counted as played and lost (no GameOver will come)."""
        if self.games.pop(game_id, None) is not None:
            log.warning("game %s: %s; counting it as lost", game_id, why)
            self._turns.pop(game_id, None)
            self._lost += 1

    def _on_game_started(self, started: bot_pb2.GameStarted) -> None:
        game = Game(started)
        known = self.games.get(game.game_id)
        if known is not None:  # a resumed game is announced again: keep the bot's notes
            game.notes = known.notes
            self.games[game.game_id] = game
            return
        self.games[game.game_id] = game
        self._started += 1
        log.info("game %s started: seat %d of %s", game.game_id, game.seat, game.players)
        if game.r2210 is not None and _plays_2210_by_default(self.bot):
            log.warning(
                "%s has no decide_2210(): it plays RISK 2210 A.D. game %s with the default actions; write "
                "decide_2210(game, turn) in %s to play it (conquest_sdk.actions_2210)",
                self.name,
                game.game_id,
                type(self.bot).__name__,
            )
        if not self._wants_games():
            for queue in self.queues:
                self._send(bot_pb2.ConnectRequest(leave_queue=bot_pb2.LeaveQueue(queue=queue)))
        self.bot.on_game_started(game)

    def _on_decision_request(self, request: bot_pb2.DecisionRequest) -> None:
        received = time.monotonic()
        self._tell_events(request.game_id, request.events)  # they happened before this request
        task = asyncio.create_task(self._answer(request, received, self._outbox))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _on_decision_rejected(self, rejected: bot_pb2.DecisionRejected) -> None:
        key = (rejected.game_id, rejected.request_id)
        log.warning("game %s request %d rejected: %s", *key, rejected.reason)
        turn = self._turns.get(rejected.game_id)
        if not rejected.can_retry or key in self._retried or turn is None:
            return
        if turn.request.request_id != rejected.request_id:
            return
        self._retried.add(key)
        self._decision(
            turn, turn.default() if isinstance(turn, Turn2210) else turn.legal.default(), self._outbox
        )

    def _on_game_events(self, events: bot_pb2.GameEvents) -> None:
        self._tell_events(events.game_id, events.events)

    def _tell_events(self, game_id: str, events: Sequence[game_pb2.GameEvent]) -> None:
        game = self.games.get(game_id)
        if game is not None and events:
            self.bot.on_events(game, events)

    def _on_game_over(self, over: bot_pb2.GameOver) -> None:
        game = self.games.pop(over.game_id, None)
        self._turns.pop(over.game_id, None)
        self._retried = {k for k in self._retried if k[0] != over.game_id}
        self.results.append(over)
        if game is not None:
            mine = over.results[game.seat]
            log.info(
                "game %s over: place %d (%s)",
                game.game_id,
                mine.place,
                bot_pb2.SeatOutcome.Name(mine.outcome),
            )
            self.bot.on_game_over(game, over)
        if self.on_game_over is not None:
            self.on_game_over(game, over)
        self._check_done()

    def _on_queue_status(self, status: bot_pb2.QueueStatus) -> None:
        # Joined and waiting is news; leaving is the bot's own doing (LeaveQueue, or its games are played).
        line = queue_status_line(status, self._queue_players(status.queue))
        log.log(logging.INFO if status.joined else logging.DEBUG, "%s", line)

    def _queue_players(self, queue: str) -> int:
        """Seats per game of ``queue`` as the Welcome listed it (0: not listed)."""
        listed = self.welcome.queues if self.welcome is not None else ()
        return next((q.players for q in listed if q.name == queue), 0)

    def _on_error(self, error: bot_pb2.Error) -> None:
        if error.fatal and error.code not in RETRYABLE:
            raise SessionError(f"{error.code}: {error.message}")
        if error.code == "shutting_down" and self._finished():
            # Played out or stopped, with no game left: the server going away is no concern of this client.
            log.info("the server is shutting down; this client's games are over, it does not reconnect")
            return
        log.warning("server error %s: %s", error.code, error.message)
        if error.code == "not_resumed":  # a game the Welcome listed as resumed will not come back
            self._lose(error.game_id, "the server will not resume it")
            self._check_done()

    # ------------------------------------------------------------------ decisions

    def _budget_s(self, request: bot_pb2.DecisionRequest) -> float:
        allowed = request.time_allowed_ms + self.bot.timebank_share * request.timebank_ms
        return (allowed - self.safety_ms - request.last_latency_ms / 2) / 1000

    async def _answer(
        self,
        request: bot_pb2.DecisionRequest,
        received: float,
        outbox: asyncio.Queue[bot_pb2.ConnectRequest | None],
    ) -> None:
        budget = self._budget_s(request) - (time.monotonic() - received)
        turn: Turn | Turn2210 = (
            Turn2210(request, budget) if request.HasField("r2210") else Turn(request, budget)
        )
        self._turns[request.game_id] = turn
        game = self.games.get(request.game_id)
        if game is None:
            log.warning("request for unknown game %s: answering with the default", request.game_id)
            self._decision(
                turn, turn.default() if isinstance(turn, Turn2210) else turn.legal.default(), outbox
            )
            return
        action: game_pb2.Action | r2210_pb2.Action2210
        if isinstance(turn, Turn2210):
            action = await self._decide_2210(game, turn)
        else:
            game.observation = request.observation
            action = await self._decide(game, turn)
        await self._pace(turn, received)
        self._decision(turn, action, outbox)

    async def _pace(self, turn: Turn | Turn2210, received: float) -> None:
        """Hold a decided answer until ``pace_ms`` after its request arrived, but never past the time the
        decision itself was given: pacing must not cost a timeout."""
        if self.pace_ms <= 0:
            return
        wait = min(received + self.pace_ms / 1000 - time.monotonic(), turn.time_left())
        if wait > 0:
            await asyncio.sleep(wait)

    async def _decide_2210(self, game: Game, turn: Turn2210) -> r2210_pb2.Action2210:
        """The bot's 2210 action, or the safe default when it overruns, fails or returns no action."""
        loop = asyncio.get_running_loop()
        try:
            pending = loop.run_in_executor(self._executor, self.bot.decide_2210, game, turn)
            action = await asyncio.wait_for(pending, timeout=max(turn.time_left(), 0.0))
        except Exception:
            log.exception("game %s: decide_2210() failed or overran; sending the default", game.game_id)
            return turn.default()
        if not isinstance(action, r2210_pb2.Action2210) or action.WhichOneof("kind") is None:
            log.error(
                "game %s: decide_2210() returned %r, not an Action2210; sending the default",
                game.game_id,
                action,
            )
            return turn.default()
        return action

    async def _decide(self, game: Game, turn: Turn) -> game_pb2.Action:
        """The bot's action, or the safe default when it overruns, fails or returns no action."""
        try:
            pending: Awaitable[game_pb2.Action]
            if inspect.iscoroutinefunction(self.bot.decide):
                pending = self.bot.decide(game, turn)
            else:
                loop = asyncio.get_running_loop()
                pending = loop.run_in_executor(self._executor, self.bot.decide, game, turn)
            action = await asyncio.wait_for(pending, timeout=max(turn.time_left(), 0.0))
        except TimeoutError:
            log.warning(
                "game %s: decide() overran %.0f ms; sending the default", game.game_id, 1000 * turn.budget_s
            )
            return turn.legal.default()
        except Exception:
            log.exception("game %s: decide() failed; sending the default", game.game_id)
            return turn.legal.default()
        if not isinstance(action, game_pb2.Action) or action.WhichOneof("kind") is None:
            log.error(
                "game %s: decide() returned %r, not an Action; sending the default", game.game_id, action
            )
            return turn.legal.default()
        return action

    def _decision(
        self,
        turn: Turn | Turn2210,
        action: game_pb2.Action | r2210_pb2.Action2210,
        outbox: asyncio.Queue[bot_pb2.ConnectRequest | None],
    ) -> None:
        request = turn.request
        decision = bot_pb2.Decision(game_id=request.game_id, request_id=request.request_id)
        if isinstance(action, r2210_pb2.Action2210):
            decision.r2210.CopyFrom(action)
        else:
            decision.action.CopyFrom(action)
        outbox.put_nowait(bot_pb2.ConnectRequest(decision=decision))


def _plays_2210_by_default(bot: Bot) -> bool:
    """True when ``bot`` keeps ``Bot.decide_2210``, which answers every RISK 2210 A.D. request with the
    safe default (a class or an instance may override it)."""
    return getattr(bot.decide_2210, "__func__", None) is Bot.decide_2210


def queue_status_line(status: bot_pb2.QueueStatus, players: int = 0) -> str:
    """What a QueueStatus means, in words: the server sends one when you join or leave a queue and every
    10 s while you wait there for a game, so a bot in an empty queue says why it waits.

    ``players``: seats per game of the queue (``Welcome.queues``; 0: unknown). When the status counts fewer
    bot ``seats`` than that, house opponents take the others (``conquest practice``): no other bot, and no
    rating, is waited for.
    """
    if not status.joined:
        return f"queue {status.queue}: left"
    if not status.seats:  # a server older than QueueStatus.seats
        return f"queue {status.queue}: joined; {_count(status.waiting, 'bot')} in the queue"
    waited = f"waited {status.waited_ms / 1000:.0f} s" if status.waited_ms else "joined"
    house = max(players - status.seats, 0)
    if house or status.seats == 1:  # no game is played by one player: house opponents take the rest
        return _house_queue_line(status, waited, house)
    filled = f"{min(status.ready, status.seats)} of {status.seats} seats filled"
    missing = status.seats - status.ready
    if missing > 0:
        return (
            f"queue {status.queue}: {waited}; {filled}, a game starts when {_count(missing, 'more bot')} "
            f"{'joins' if missing == 1 else 'join'} (on `conquest practice` built-in opponents fill the "
            "other seats at once)"
        )
    if not status.waited_ms:
        return f"queue {status.queue}: {waited}; {filled}"
    return (
        f"queue {status.queue}: {waited}; {_count(status.ready, 'bot')} ready for a game of {status.seats}: "
        "a table forms among bots near each other's rating, a window that widens as they wait"
    )


def _house_queue_line(status: bot_pb2.QueueStatus, waited: str, house: int) -> str:
    """``queue_status_line`` of a queue whose other seats are the server's house opponents (``house`` of
    them; 0: how many is unknown)."""
    if house == 1:
        house_seats = "a house opponent takes the other seat"
    elif house:
        house_seats = f"house opponents take the other {house} seats"
    else:
        house_seats = "house opponents take the other seats"
    head = f"queue {status.queue}: {waited}; "
    if status.seats > 1:
        head += f"{min(status.ready, status.seats)} of {status.seats} bot seats filled, "
    head += house_seats
    missing = status.seats - status.ready
    if missing > 0 and status.seats == 1:  # the status counts only a bot with a game slot free
        return f"{head}: a game starts when one of your games in progress ends (--capacity: games at once)"
    if missing > 0:
        joins = "joins" if missing == 1 else "join"
        return f"{head}: a game starts when {_count(missing, 'more bot')} {joins}"
    if not status.waited_ms:
        return f"{head}: a game starts at once"
    return (
        f"{head}, yet no game starts: the server seats no new games now (a `conquest practice --games N` "
        "server seats N games in all: restart it to play more)"
    )


def _count(n: int, noun: str) -> str:
    """``n`` and ``noun``, plural unless ``n`` is 1: "1 bot", "2 bots"."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


async def _drain(
    outbox: asyncio.Queue[bot_pb2.ConnectRequest | None],
) -> AsyncIterator[bot_pb2.ConnectRequest]:
    """The request stream: whatever is put in ``outbox``, until None."""
    while (message := await outbox.get()) is not None:
        yield message
