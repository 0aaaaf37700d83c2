"""One RISK 2210 A.D. game: ask every seat the engine asks (all living seats at once for the bids, a seat
other than the one to move for a reaction or a defence), enforce each request's deadline, apply, tell.

The same duties as ``server.play.runner.GameRunner`` (the lobby, the streams and the recorder use either),
played from the game's own task: a bot's answer is applied where it arrives (``submit``), which wakes the
task to ask the next seats. Off the classic hot path, so built with protobuf's classes (``convert_2210``).

A misbehaving bot is data, not an error: an illegal decision is rejected with what was legal (retry while
time is left), a timeout gets ``engine.r2210.policies.default_action`` (bid nothing, pass a card window,
stop invading, ...) and a strike, and a forfeited seat plays on with defaults. A house seat plays
``aggressive_2210``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime

import structlog

from conquest.v1 import arena_pb2, bot_pb2
from conquest.v1 import r2210_pb2 as pb
from engine.errors import ActionError, MalformedActionError
from engine.r2210.actions import Action2210, Phase
from engine.r2210.events import Event2210, seen_by
from engine.r2210.game import apply, apply_unchecked, new_game_2210
from engine.r2210.legal import Legal2210, legal_for
from engine.r2210.policies import aggressive_2210, default_action
from engine.r2210.replay import Replay2210, advance_2210
from engine.r2210.state import GameState2210
from engine.replay import Reseed
from server.ops.config import QueueConfig
from server.ops.metrics import Metrics
from server.play import convert_2210, messages
from server.play.mailbox import Alarm, Departure
from server.play.replays import GameRecord, ReplayWriter, seed_commitment
from server.play.request_log import RequestLog
from server.play.results import Finished2210, Outcome, game_over, game_result
from server.play.runner import UNSENT_RECHECK_S, GameRunner
from server.play.seats import Connection, HouseSeat, RemoteSeat, Seat
from server.play.spectators import Spectator, Spectators
from server.records import ALL_FORFEITED, SHUTDOWN

ANNOTATION_LIMIT = 200
log = structlog.get_logger("conquest.runner_2210")


class _Ask:
    """An open DecisionRequest: its id, what the seat may do, and its times (``time.monotonic()``). The
    seat's clock runs from the request's departure to the answer's arrival, as a classic game's
    (``server.play.runner``)."""

    def __init__(self, request_id: int, legal: Legal2210, queued: float, budget_s: float) -> None:
        self.request_id = request_id
        self.legal = legal
        self.queued = queued
        """When it was first put in the seat's send queue: the clock's start while it is not written."""
        self.budget_s = budget_s
        self.first: Departure | None = None
        """The request as first sent: the seat's clock runs from its departure, across a resend."""
        self.last: Departure | None = None
        """The request as last sent: round trips count from its departure."""

    def since(self, now: float, last: bool = False) -> float:
        """Seconds from the first (``last``: the latest) send's departure to ``now``, never below 0."""
        sent = self.last if last else self.first
        sent_at = sent.sent_at if sent is not None else 0.0
        return max(0.0, now - (sent_at or self.queued))

    def deadline(self) -> float:
        """The budget from the request's departure (from its queueing while it has not left)."""
        sent_at = self.first.sent_at if self.first is not None else 0.0
        return (sent_at or self.queued) + self.budget_s

    def waits_on_server(self) -> bool:
        """Not written yet, and not for want of a reader: the server's own delay, the clock not started."""
        first = self.first
        return first is not None and first.sent_at == 0.0 and not first.held_by_reader()


class Runner2210:
    """Plays one 2210 game from GameStarted to GameOver and hands its record to ``writer``."""

    def __init__(
        self,
        game_id: str,
        queue: QueueConfig,
        seats: Sequence[Seat],
        seed: int,
        writer: ReplayWriter,
        on_finish: Callable[[Runner2210], None] = lambda runner: None,
        metrics: Metrics | None = None,
    ) -> None:
        if queue.r2210 is None:
            raise ValueError(f"queue {queue.name} is not a RISK 2210 A.D. queue (its r2210 rules are unset)")
        self.game_id = game_id
        self.queue = queue
        self.rules = queue.r2210
        self.seats = list(seats)
        self.seed = seed
        self.commitment = seed_commitment(seed, game_id)
        self.writer = writer
        self.on_finish = on_finish
        self.metrics = metrics or Metrics()
        self.state, setup_events = new_game_2210(self.rules, len(self.seats), seed)
        self._names = [s.name for s in self.seats]
        self.replay = Replay2210(self.rules, seed, self._names, game_id=game_id)
        self.reason = ""
        self.started_at = datetime.now(UTC)
        self._events: list[Event2210] = list(setup_events)
        self._requests = RequestLog()
        """Every request of the game, its seat and fate: a reply that is not applied is told why."""
        self._open: dict[int, _Ask] = {}
        """Open requests by seat: several during the bids."""
        self._stopping = False
        self._failure: Exception | None = None
        self._alarm = Alarm()
        self._grace = queue.time_control.reconnect_grace_ms / 1000
        self._spectators = Spectators(game_id)
        self.log = log.bind(game_id=game_id, queue=queue.name)

    # ------------------------------------------------------------------ running

    async def run(self, opening: Callable[[], Awaitable[None]] | None = None) -> None:
        """Play the game, once ``opening`` (its record kept running: ``Lobby.on_game_start``) is done."""
        try:
            if opening is not None:
                await opening()
            self.log.info("game_started", players=self._names)
            for index, seat in enumerate(self.seats):
                if isinstance(seat, RemoteSeat):
                    seat.send(self.game_started(index))
            await self._play()
        except BaseException:
            self._ended()
            raise
        await self._finish()
        self._ended()

    async def _play(self) -> None:
        while not self.state.is_over():
            if self._failure is not None:
                raise self._failure
            if self._stopping or self._all_forfeited():
                self._cut_short(SHUTDOWN if self._stopping else ALL_FORFEITED)
                return
            if await self._step():
                continue
            wake = min((self._wake_time(i, a) for i, a in self._open.items()), default=time.monotonic() + 1)
            await self._alarm.wait(wake)

    async def _step(self) -> bool:
        """Play one move that needs no bot (a house or forfeited seat's, a timeout's default) and return
        True, or send the requests not sent yet and return False (then wait)."""
        now = time.monotonic()
        for index in self.state.asked:
            seat = self.seats[index]
            if isinstance(seat, HouseSeat):
                await asyncio.sleep(0)  # let the other games and streams run between house moves
                self._record(index, aggressive_2210(self.state, index), "", None)
                return True
            ask = self._open.get(index)
            if seat.forfeit is not None:
                await asyncio.sleep(0)
                self._record(index, default_action(legal_for(self.state, index)), "", None)
                return True
            if ask is None:
                self._ask(index, seat)
                continue
            if seat.disconnected_at is not None and now >= seat.disconnected_at + self._grace:
                self._forfeit(index, seat, Outcome.SEAT_OUTCOME_FORFEIT_DISCONNECT, "disconnected too long")
                self._record(index, default_action(ask.legal), "", None)
                return True
            if now >= ask.deadline() and not ask.waits_on_server():
                self._record(index, self._time_out(index, seat, ask), "", None)
                return True
            if seat.resumed and seat.connection is not None:
                self._send_request(index, seat, ask)
        return False

    def _wake_time(self, index: int, ask: _Ask) -> float:
        seat = self.seats[index]
        away_since = seat.disconnected_at if isinstance(seat, RemoteSeat) else None
        deadline = ask.deadline()
        if ask.waits_on_server():
            deadline = max(deadline, time.monotonic() + UNSENT_RECHECK_S)
        return deadline if away_since is None else min(deadline, away_since + self._grace)

    def _all_forfeited(self) -> bool:
        return all(isinstance(s, RemoteSeat) and s.forfeit is not None for s in self.seats)

    def _cut_short(self, reason: str) -> None:
        """End the game now: every open request cancelled, the rest played with default actions (the
        replay still re-simulates exactly)."""
        for index in list(self._open):
            self._close(index, "cancelled")
        while not self.state.is_over():
            index = self.state.asked[0]
            self._record(index, default_action(legal_for(self.state, index)), "", None)
        self.reason = reason
        self.log.info("game_cut_short", reason=reason, year=self.state.year)

    def catch_up(self, actions: list[tuple[int, Action2210]], reseeds: list[Reseed]) -> None:
        """A game taken over (``server.play.takeover``), before its task starts: its logged ``actions``
        played, each takeover's fresh seed applied where drawn. Their events are kept, not sent (a seat
        resumes with GameStarted and the game as it is now), so event positions go on from the log's.

        Raises:
            ReplayError: an action the log holds is illegal where it stands.
        """
        for events in advance_2210(self.state, actions, reseeds):
            self._events.extend(events)
        self.replay.actions.extend(actions)
        self.replay.reseeds = list(reseeds)

    def stop(self) -> None:
        self._stopping = True
        self._alarm.wake()

    def _ended(self) -> None:
        self._spectators.end()
        self.on_finish(self)

    # ------------------------------------------------------------------ asking

    def _ask(self, index: int, seat: RemoteSeat) -> None:
        legal = legal_for(self.state, index)
        seat.clock.defending = legal.phase == Phase.DEFEND  # its own short allowance, mid-turn
        ask = _Ask(self._requests.open(index), legal, time.monotonic(), seat.clock.budget_ms() / 1000)
        self._open[index] = ask
        self._send_request(index, seat, ask)

    def _send_request(self, index: int, seat: RemoteSeat, ask: _Ask) -> None:
        seat.open_request = ask.request_id
        seat.resumed = False
        # A first send carries the time control's own figures (issue 34: "never announce less than the
        # configured allowance"); a resend after a reconnect the time left since the first left.
        elapsed_ms = 0 if ask.first is None else round(ask.since(time.monotonic()) * 1000)
        allowed = seat.clock.time_allowed_ms()
        events = self._unsent(index, seat)
        request = convert_2210.decision_request_2210(
            self.game_id,
            ask.request_id,
            self.state,
            index,
            ask.legal,
            events,
            time_allowed_ms=max(0, allowed - elapsed_ms),
            timebank_ms=max(0, seat.clock.timebank_ms - max(0, elapsed_ms - allowed)),
            last_latency_ms=seat.last_latency_ms,
            strikes=seat.strikes,
        )
        sent = seat.send_request(bot_pb2.ConnectResponse(decision_request=request).SerializeToString())
        ask.last = sent
        if ask.first is None or ask.first.sent_at == 0.0:  # a first send, or the first never left
            ask.first = sent

    def _unsent(self, index: int, seat: RemoteSeat) -> list[tuple[int, Event2210]]:
        """The events seat ``index`` has not been sent, as it may see them, with their positions; now sent."""
        first, seat.next_event = seat.next_event, len(self._events)
        return [
            (position, seen_by(event, index)) for position, event in enumerate(self._events[first:], first)
        ]

    def _close(self, index: int, fate: str) -> None:
        """Seat ``index``'s open request, if any, is over: ``fate`` says how (``request_log.FATES``)."""
        ask = self._open.pop(index, None)
        if ask is not None:
            self._requests.close(ask.request_id, fate)
        seat = self.seats[index]
        if isinstance(seat, RemoteSeat):
            seat.open_request = 0

    def _time_out(self, index: int, seat: RemoteSeat, ask: _Ask) -> Action2210:
        """The default action for ``ask``, its seat charged its whole budget and given a strike."""
        self._close(index, "timed out")
        seat.clock.charge(seat.clock.budget_ms())
        seat.timeouts += 1
        self.metrics.timeouts.labels(self.queue.name).inc()
        if seat.disconnected_at is None:
            seat.strikes += 1
            self.log.info("decision_timeout", bot=seat.name, seat=index, strikes=seat.strikes)
            if seat.strikes >= self.queue.time_control.max_strikes:
                self._forfeit(index, seat, Outcome.SEAT_OUTCOME_FORFEIT_TIMEOUT, f"{seat.strikes} timeouts")
        return default_action(ask.legal)

    def _forfeit(self, index: int, seat: RemoteSeat, outcome: Outcome.ValueType, why: str) -> None:
        self.metrics.forfeits.labels("timeout" if "timeout" in why else "disconnect").inc()
        self._close(index, "cancelled")
        seat.forfeit = outcome
        self.log.info("seat_forfeited", bot=seat.name, seat=index, why=why)
        seat.send(messages.seat_forfeited(self.game_id, index, why))

    def _record(
        self, index: int, action: Action2210, annotation: str, events: list[Event2210] | None
    ) -> None:
        """Record ``index``'s ``action``, applying it unless the checked path did (``events`` given);
        requests of seats no longer asked are closed."""
        if annotation:
            self.replay.annotations[len(self.replay.actions)] = annotation[:ANNOTATION_LIMIT]
        self.replay.actions.append((index, action))
        if events is None:
            events = apply_unchecked(self.state, action, index)
        first = len(self._events)
        self._events.extend(events)
        if self._spectators.watched:  # built only for someone
            told = list(enumerate(events, first))
            self._spectators.send(convert_2210.watch_events_2210(self.game_id, told, self.state))
        asked = self.state.asked
        for seat in list(self._open):
            if seat not in asked:
                self._close(seat, "cancelled")

    # ------------------------------------------------------------------ from sessions

    def submit(self, index: int, decision: bot_pb2.Decision, received_at: float) -> bool:
        """A Decision from the bot holding seat ``index``. True when it closed its open request."""
        seat = self.seats[index]
        assert isinstance(seat, RemoteSeat)
        ask = self._open.get(index)
        request_id = decision.request_id
        if self.state.is_over():
            seat.send(
                messages.game_over_error(self.game_id, self.reason or self.state.end_reason, request_id)
            )
            return False
        if ask is None or request_id != ask.request_id:
            why, late = self._requests.why_not_applied(request_id, index, seat.open_request)
            if ask is None and not late:
                why += "; " + self._who_is_asked()
            self._reject(seat, request_id, why, None, "late" if late else "stale")
            return False
        if received_at > ask.deadline():
            self._reject(seat, request_id, "it arrived after its deadline", None, "late")
            self._alarm.wake()
            return False
        try:
            if decision.WhichOneof("game") != "r2210":
                raise MalformedActionError(
                    "a RISK 2210 A.D. game's Decision sets r2210 (an Action2210), not the classic action"
                )
            action = convert_2210.action_from_pb_2210(decision.r2210)
            events = apply(self.state, action, index)  # checked: nothing changes on error
        except ActionError as bad:
            kind = "malformed" if isinstance(bad, MalformedActionError) else "illegal"
            self._reject(seat, request_id, str(bad), ask, kind)
            return False
        except Exception as bug:  # the game's, not the stream's: its task ends it, the stream goes on
            self._failure = bug
            self._alarm.wake()
            return False
        round_trip = ask.since(received_at, last=True)
        phase = ask.legal.phase.name.lower()
        self.metrics.decision_round_trip.labels(phase).observe(round_trip)
        seat.record_round_trip(phase, round_trip)
        seat.clock.charge(round(ask.since(received_at) * 1000))
        seat.last_latency_ms = round(round_trip * 1000)
        self._close(index, "answered")
        self._record(index, action, decision.annotation, events)
        self._alarm.wake()
        return True

    def _who_is_asked(self) -> str:
        """What a seat with no open request may do: wait, since only seats the engine asks decide (a seat is
        asked to answer an invasion or a card when its public card counts say it might, with a
        DecisionRequest of its own)."""
        asked = ", ".join(str(s) for s in self.state.asked)
        return (
            f"you are not asked now: the game waits on seat {asked} in {self.state.phase.name}; "
            "answer only a DecisionRequest sent to you (reactions are asked of seats whose card counts "
            "could hold one)"
        )

    def _reject(self, seat: RemoteSeat, request_id: int, reason: str, ask: _Ask | None, kind: str) -> None:
        self.metrics.rejections.labels(kind).inc()
        seat.rejections += 1
        left_ms = max(0, round((ask.deadline() - time.monotonic()) * 1000)) if ask is not None else 0
        seat.send(messages.decision_rejected(self.game_id, request_id, reason, left_ms > 0, left_ms))

    def detach(self, index: int) -> None:
        seat = self.seats[index]
        assert isinstance(seat, RemoteSeat)
        seat.crashes += 1
        seat.connection = None
        seat.disconnected_at = time.monotonic()
        self._alarm.wake()
        self.log.info("seat_disconnected", bot=seat.name, seat=index)

    def attach(self, index: int, connection: Connection) -> None:
        seat = self.seats[index]
        assert isinstance(seat, RemoteSeat)
        seat.connection = connection
        seat.disconnected_at = None
        seat.resumed = True
        seat.next_event = len(self._events)  # GameStarted's observation shows what happened meanwhile
        seat.send(self.game_started(index))
        self._alarm.wake()
        self.log.info("seat_resumed", bot=seat.name, seat=index)

    def is_resumable(self, index: int, identity: str) -> bool:
        seat = self.seats[index]
        return (
            isinstance(seat, RemoteSeat)
            and seat.identity == identity
            and seat.connection is None
            and seat.forfeit is None
            and not self.state.is_over()
        )

    # ------------------------------------------------------------------ spectators

    def watch(self, limit: int) -> Spectator:
        """A spectator's stream: the board now (the snapshot's ``r2210``), then each action's public events
        with the board after them (``WatchEvents2210``), then GameOver."""
        snapshot = arena_pb2.GameSnapshot(
            game_id=self.game_id,
            queue=self.queue.name,
            players=messages.players(self._names),
            next_sequence=len(self._events),
            live=True,
            r2210=self._start(-1),
        )
        return self._spectators.add(snapshot, limit)

    def unwatch(self, spectator: Spectator) -> None:
        self._spectators.remove(spectator)

    # ------------------------------------------------------------------ messages

    def game_started(self, index: int) -> bot_pb2.ConnectResponse:
        started = bot_pb2.GameStarted(
            game_id=self.game_id,
            seat=index,
            players=messages.players(self._names),
            queue=self.queue.name,
            time_control=self.queue.time_control.to_pb(),
            seed_commitment=self.commitment,
            dice_version=self.replay.dice_version,
            r2210=self._start(index),
        )
        return bot_pb2.ConnectResponse(game_started=started)

    def _start(self, index: int) -> pb.Start2210:
        """The rules, board and ``index``'s view now (-1: a spectator's)."""
        return convert_2210.start_2210(self.rules, self.state, index)

    async def _finish(self) -> None:
        state = self.state
        self.reason = self.reason or state.end_reason
        outcomes = [self.outcome(i) for i in range(len(self.seats))]
        self.replay.places = list(state.places)
        self.replay.fingerprint = state.fingerprint()
        finished = Finished2210(list(state.places), state.year)
        over = game_over(self.game_id, self.seed, self.reason, finished, self.seats, outcomes)
        result = game_result(
            self.queue, finished, self.seats, outcomes, self.commitment, self.started_at, self.reason
        )
        try:  # recorded before anyone is told
            where = await asyncio.to_thread(self.writer.write, GameRecord(self.replay, result))
        except Exception:
            self.log.exception("game_record_failed")
            where = "not (fully) recorded"
        for index, seat in enumerate(self.seats):
            if isinstance(seat, RemoteSeat):
                events = [convert_2210.event_2210(e, p) for p, e in self._unsent(index, seat)]
                if events:
                    told = bot_pb2.GameEvents(game_id=self.game_id, events_2210=events)
                    seat.send(bot_pb2.ConnectResponse(game_events=told))
                seat.send(bot_pb2.ConnectResponse(game_over=over))
        self._spectators.send_game_over(over)
        self.log.info("game_over", reason=self.reason, places=finished.places, replay=where)

    def outcome(self, index: int) -> Outcome.ValueType:
        seat = self.seats[index]
        return outcome_2210(self.state, index, seat.forfeit if isinstance(seat, RemoteSeat) else None)


def outcome_2210(state: GameState2210, index: int, forfeit: Outcome.ValueType | None) -> Outcome.ValueType:
    """How seat ``index``'s finished game ended: a forfeit overrides the board; else eliminated, or (after
    year 5 or a conquest) won for first place and survived for the others."""
    if forfeit is not None:
        return forfeit
    if not state.alive[index]:
        return Outcome.SEAT_OUTCOME_ELIMINATED
    return Outcome.SEAT_OUTCOME_WON if state.places[index] == 1 else Outcome.SEAT_OUTCOME_SURVIVED


AnyRunner = GameRunner | Runner2210
"""A running game of either kind: the lobby, the streams and the recorder use their common duties."""
