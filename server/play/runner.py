"""One game: ask the seat to act, enforce its deadline, apply, tell everyone.

A bot's answer is applied where it arrives, in its stream's reader (``GameRunner.submit``), which also
sends the next DecisionRequest when a bot is to act next: a decision crosses no task of its game. The
game's own asyncio task plays the rest (house and forfeited seats, timeouts, reconnects, the end).

The runner owns time (``time.monotonic``); the engine never waits. A misbehaving bot is data, not an
error: an illegal decision is rejected (retry while time is left), a timeout gets the engine's default
action and a strike, and a forfeited seat plays on passively with defaults.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime
from typing import Final

import structlog

from conquest.v1 import bot_pb2
from engine import (
    Action,
    ActionError,
    MalformedActionError,
    Phase,
    default_action,
    new_game,
)
from engine.events import Event
from engine.legal import LegalActions
from engine.replay import Replay
from server.ops.config import QueueConfig
from server.ops.histogram import Buckets
from server.ops.logs import SAMPLED
from server.ops.metrics import Metrics
from server.play import convert, messages, wire
from server.play.event_log import EventLog
from server.play.mailbox import Alarm, Departure
from server.play.replays import GameRecord, ReplayWriter, seed_commitment
from server.play.request_log import RequestLog
from server.play.results import Outcome, game_over, game_result, seat_outcomes
from server.play.seats import Connection, HouseSeat, RemoteSeat, Seat
from server.play.session import Outgoing
from server.play.spectators import Spectator, Spectators
from server.records import ALL_FORFEITED, SHUTDOWN

ANNOTATION_LIMIT = 200
PHASE_LABELS = {phase: phase.name.lower() for phase in Phase}
"""A phase's name in metric labels and stored round trips (``Enum.name`` is a property: slow per call)."""

log = structlog.get_logger("conquest.runner")


# Looked up once: compiled code looks a module's attribute up (``time.monotonic``, ``builtins.round``)
# on every call, and these run several times a decision.
_monotonic: Final = time.monotonic
_perf_counter: Final = time.perf_counter
_round: Final = round


UNSENT_RECHECK_S = 0.005
"""How often a game whose request the server has not written yet looks again (its own delay: the bot's
clock has not started)."""


class _Asking:
    """The open DecisionRequest: the seat asked, what it may do, and its times (``time.monotonic()``).
    A plain class: compiled, a dataclass's generated __init__ would be interpreted, once per decision.

    The bot's clock runs from its request's departure (``first.sent_at``: stamped as the stream's writer
    hands it to the transport) to its answer's arrival (stamped as the stream's reader takes it), so the
    server's own delays before the write and before the read are not the bot's (issue 34)."""

    def __init__(
        self,
        index: int,
        seat: RemoteSeat,
        legal: LegalActions,
        queued: float,
        budget_s: float,
        sent: Departure,
    ) -> None:
        self.index = index
        self.seat = seat
        self.legal = legal
        self.queued = queued
        """When the request was put in the seat's send queue: the clock's start while it is not written."""
        self.budget_s = budget_s
        """The allowance plus the timebank when it was asked, in seconds."""
        self.first = sent
        """The request as first sent: the seat's clock runs from its departure, across a resend."""
        self.last = sent
        """The request as last sent (again after a reconnect): round trips count from its departure."""

    def deadline(self) -> float:
        """The answer must arrive by then: the budget from the request's departure (from its queueing while
        it has not left)."""
        sent_at = self.first.sent_at
        return (sent_at if sent_at != 0.0 else self.queued) + self.budget_s


class GameRunner:
    """Plays one game from GameStarted to GameOver and hands its record to ``writer``."""

    def __init__(
        self,
        game_id: str,
        queue: QueueConfig,
        seats: Sequence[Seat],
        seed: int,
        writer: ReplayWriter,
        on_finish: Callable[[GameRunner], None] = lambda runner: None,
        metrics: Metrics | None = None,
    ) -> None:
        self.game_id = game_id
        self.queue = queue
        self.seats = list(seats)
        self.seed = seed
        self.commitment = seed_commitment(seed, game_id)
        self.writer = writer
        self.on_finish = on_finish
        self.metrics = metrics or Metrics()
        self._engine_step = self.metrics.engine_step.labels()
        """Its counts, looked up once: an observation on them is a compiled call, not two Python ones."""
        self._round_trips: dict[str, Buckets] = {}
        """``metrics.decision_round_trip``'s counts by phase label, each looked up once (as above)."""
        self.state, setup_events = new_game(queue.rules, len(self.seats), seed)
        self._names = [s.name for s in self.seats]
        self.replay = Replay(
            queue.rules, seed, self._names, game_id=game_id, dice_version=self.state.dice.version
        )
        self.reason = ""
        self._requests = RequestLog()
        self._event_log = EventLog(game_id, self.seats)
        self._arrays = wire.PublicArrays()
        self._events_turn = 0
        """The turn when GameEvents were last sent to the seats not being asked (once per turn)."""
        self._stopping = False
        self._asking: _Asking | None = None
        self._alarm = Alarm()
        """Wakes this game's task: for a deadline, a grace window's end, a (re)connect or a stop, or when
        the reader hands the game back (``submit``)."""
        self._failure: Exception | None = None
        """A bug met while a stream's reader played this game on: its task raises it (the game ends)."""
        self._grace = queue.time_control.reconnect_grace_ms / 1000
        self.started_at = datetime.now(UTC)
        self._spectators = Spectators(game_id)
        self.log = log.bind(game_id=game_id, queue=queue.name)
        self._record_events(setup_events)

    # ------------------------------------------------------------------ running

    async def run(self, opening: Callable[[], Awaitable[None]] | None = None) -> None:
        """Play the game, once ``opening`` (its record kept running: ``Lobby.on_game_start``) is done. A
        bot's answer is applied by its stream's reader (``submit``), which sends the next request itself
        when a bot is to act next; this task plays the rest: house seats, forfeited seats, deadlines,
        reconnects, a stop, and the game's end."""
        # try/except, not try/finally: a compiled ``finally`` that an exception passes through leaves that
        # exception as the thread's handled one (mypyc 2.4), and every later compiled ``finally`` left
        # normally (``Alarm.wait``'s, this one's) raises it again: one game's bug would end every later game.
        try:
            if opening is not None:
                await opening()
            self.log.info("game_started", players=self._names)
            for index, seat in enumerate(self.seats):
                seat_send(seat, self.game_started(index))
            await self._play()
        except BaseException:
            self._ended()
            raise
        await self._finish()
        self._ended()

    async def _play(self) -> None:
        """Play until the game is over (or cut short: ``stop``, every seat forfeited)."""
        while not self.state.is_over():
            if self._failure is not None:
                raise self._failure
            if self._stopping or self._all_forfeited():
                if self._asking is not None:
                    self._close_request(self._asking.seat, "cancelled")
                    self._asking = None
                self._cut_short(SHUTDOWN if self._stopping else ALL_FORFEITED)
                return
            if self._asking is not None:
                await self._watch(self._asking)
            else:
                await self._play_unasked()

    def _ended(self) -> None:
        """Told to the spectators and the lobby, whether the game finished or its task failed."""
        self._spectators.end()
        self.on_finish(self)

    def stop(self) -> None:
        """End the game at once (server shutdown): ranked as at a turn cap reached now."""
        self._stopping = True
        self._alarm.wake()

    def _apply(self, action: Action, annotation: str, events: list[Event] | None = None) -> None:
        """Record ``action``; apply it unless the checked path already did (its ``events`` given)."""
        if annotation:
            self.replay.annotations[len(self.replay.actions)] = annotation[:ANNOTATION_LIMIT]
        self.replay.actions.append(action)
        if events is None:
            started = _perf_counter()
            events = self.state.apply_unchecked(action)
            self._engine_step.observe(_perf_counter() - started)
        self._record_events(events)
        if self.state.turn != self._events_turn and not self.state.is_over():
            self._events_turn = self.state.turn
            self._event_log.send(but=self.state.to_act, live=True)  # its events ride in its next request

    def _all_forfeited(self) -> bool:
        return all(isinstance(s, RemoteSeat) and s.forfeit is not None for s in self.seats)

    def _cut_short(self, reason: str) -> None:
        """End the game now, ranked as at the turn cap: the cap is lowered to the current turn and the
        rest of that turn is played with defaults, so the recorded replay still re-simulates exactly."""
        rules = dataclasses.replace(self.state.rules, turn_cap=max(self.state.turn, 1))
        self.state.rules = rules
        self.replay.rules = rules
        while not self.state.is_over():
            self._apply(default_action(self.state.legal_actions()), "")
        self.reason = reason
        self.log.info("game_cut_short", reason=reason, turn=self.state.turn)

    async def _play_unasked(self) -> None:
        """Play a house seat's or a forfeited seat's move, or ask the bot to act."""
        index = self.state.to_act
        seat = self.seats[index]
        if isinstance(seat, HouseSeat):
            await asyncio.sleep(0)  # let the other games and streams run between house moves
            self._apply(seat.policy(self.state), "")
            return
        legal = self.state.legal_actions()
        if seat.forfeit is not None:
            await asyncio.sleep(0)
            self._apply(default_action(legal), "")
            return
        self._ask(index, seat, legal)

    def _ask(self, index: int, seat: RemoteSeat, legal: LegalActions) -> None:
        """Send the seat its DecisionRequest and make sure this game's task wakes by its deadline (at the
        earliest: the deadline moves on to the budget from the request's departure once it is written)."""
        seat.clock.defending = legal.phase == Phase.DEFEND  # its own short allowance, mid-turn
        sent = self._send_request(index, seat, legal, None)  # the clock starts as the request leaves
        budget_s = seat.clock.budget_ms() / 1000
        self._asking = asking = _Asking(index, seat, legal, _monotonic(), budget_s, sent)
        self._alarm.wake_by(self._wake_time(asking))

    def _wake_time(self, asking: _Asking) -> float:
        """When the game's task must look at ``asking``: its deadline, or its seat's grace window's end."""
        away_since = asking.seat.disconnected_at
        if away_since is None:
            return asking.deadline()
        return min(asking.deadline(), away_since + self._grace)

    async def _watch(self, asking: _Asking) -> None:
        """What only this task does while a bot is asked: play the default at the deadline or the end of
        its grace window, send the request again after a reconnect; then wait until there is more to do
        (the answer, if it comes first, is the reader's: ``submit``)."""
        seat = asking.seat
        now = _monotonic()
        if seat.disconnected_at is not None and now >= seat.disconnected_at + self._grace:
            outcome = Outcome.SEAT_OUTCOME_FORFEIT_DISCONNECT
            self._forfeit(seat, outcome, "disconnected too long", "disconnect")
            self._answered(default_action(asking.legal), "")
            return
        wake = self._wake_time(asking)
        if now >= asking.deadline():
            first = asking.first
            if first.sent_at != 0.0 or first.held_by_reader():
                self._answered(self._time_out(asking), "")
                return
            # Not written yet, and not for want of a reader: the server's own delay, not the bot's time.
            wake = now + UNSENT_RECHECK_S
        # Only a reconnect after this request was sent needs it sent again: a seat that dropped and came
        # back while another seat was deciding was sent its GameStarted, and its next request comes anyway.
        if seat.resumed and seat.connection is not None:
            self._close_request(seat, "replaced")
            asking.last = sent = self._send_request(asking.index, seat, asking.legal, asking)
            if asking.first.sent_at == 0.0:  # it never left before: the clock starts with this send
                asking.first = sent
            wake = self._wake_time(asking)
        await self._alarm.wait(wake)

    def _answered(self, action: Action, annotation: str, events: list[Event] | None = None) -> None:
        """The asked seat's action (its answer, or a default): applied (unless ``events`` are given:
        applied already) and recorded; nobody is asked until the next request."""
        self._asking = None
        self._apply(action, annotation, events)

    def _take(self, asking: _Asking, decision: bot_pb2.Decision, received_at: float) -> bool:
        """Judge the answer to the open request: apply it, or reject it (a retry may follow while time is
        left: False); once it is applied or timed out (True), ask the next seat if it is a bot's."""
        seat = asking.seat
        deadline = asking.deadline()
        if received_at > deadline:
            self._reject(seat, decision.request_id, "it arrived after its deadline", deadline, "late")
            self._answered(self._time_out(asking), "")
        else:
            phase = PHASE_LABELS[self.state.phase]
            try:  # the engine's checked path: every rule and id check applies, nothing changes on error
                action = convert.action_from_pb(decision.action)
                applying = _perf_counter()
                events = self.state.apply(action, asking.index, asking.legal)  # what the request carried
                self._engine_step.observe(_perf_counter() - applying)
            except ActionError as bad:
                kind = "malformed" if isinstance(bad, MalformedActionError) else "illegal"
                self._reject(seat, decision.request_id, str(bad), deadline, kind)
                return False
            round_trip = _since(received_at, asking.last, asking.queued)
            round_trips = self._round_trips.get(phase)
            if round_trips is None:
                round_trips = self._round_trips[phase] = self.metrics.decision_round_trip.labels(phase)
            round_trips.observe(round_trip)
            seat.record_round_trip(phase, round_trip)
            self._close_request(seat, "answered")
            seat.clock.charge(_round(_since(received_at, asking.first, asking.queued) * 1000))
            seat.last_latency_ms = _round(round_trip * 1000)
            self._answered(action, decision.annotation, events)
        state = self.state
        if not state.is_over() and not self._stopping:
            index = state.to_act
            next_seat = self.seats[index]
            if isinstance(next_seat, RemoteSeat) and next_seat.forfeit is None:
                self._ask(index, next_seat, state.legal_actions())  # no hand-off to the game's task
                return True
        self._alarm.wake()  # a house or forfeited seat's move, a stop, or the end: the game task's
        return True

    def _send_request(
        self, index: int, seat: RemoteSeat, legal: LegalActions, asked: _Asking | None
    ) -> Departure:
        """Send a DecisionRequest: a first send (``asked`` None), whose clock starts as it leaves, carries
        the time control's own figures (the whole allowance, issue 34: "never announce less than the
        configured allowance"); a resend after a reconnect the time left of ``asked``'s. Returns its
        ``Departure``, stamped as it is written."""
        request_id = self._requests.open(index)
        seat.open_request = request_id
        seat.resumed = False
        elapsed_ms = 0 if asked is None else _round(_since(_monotonic(), asked.first, asked.queued) * 1000)
        allowed = seat.clock.time_allowed_ms()
        message = messages.decision_request(
            self.game_id,
            request_id,
            self.state,
            legal,
            self._arrays,
            time_allowed_ms=max(0, allowed - elapsed_ms),
            timebank_ms=max(0, seat.clock.timebank_ms - max(0, elapsed_ms - allowed)),
            last_latency_ms=seat.last_latency_ms,
            strikes=seat.strikes,
            events=self._event_log.unsent(index, seat),
        )
        return seat.send_request(message)

    def _close_request(self, seat: RemoteSeat, fate: str) -> None:
        self._requests.close(seat.open_request, fate)
        seat.open_request = 0

    def _time_out(self, asking: _Asking) -> Action:
        """The default action for ``asking``, its seat charged its whole budget and given a strike."""
        index, seat = asking.index, asking.seat
        request_id = seat.open_request
        self._close_request(seat, "timed out")
        seat.clock.charge(seat.clock.budget_ms())
        seat.timeouts += 1
        self.metrics.timeouts.labels(self.queue.name).inc()
        if seat.disconnected_at is None:  # while away, only the grace window counts against a bot
            seat.strikes += 1
            self.log.info(
                "decision_timeout", bot=seat.name, seat=index, request_id=request_id, strikes=seat.strikes
            )
            if seat.strikes >= self.queue.time_control.max_strikes:
                self._forfeit(
                    seat, Outcome.SEAT_OUTCOME_FORFEIT_TIMEOUT, f"{seat.strikes} timeouts", "timeout"
                )
        return default_action(asking.legal)

    def _forfeit(self, seat: RemoteSeat, outcome: Outcome.ValueType, why: str, reason: str) -> None:
        """Forfeit the seat; ``reason`` ("timeout" or "disconnect") labels the metric."""
        self.metrics.forfeits.labels(reason).inc()
        if seat.open_request:
            self._close_request(seat, "timed out")
        seat.forfeit = outcome
        index = self.seats.index(seat)
        self.log.info("seat_forfeited", bot=seat.name, seat=index, why=why)
        seat.send(messages.seat_forfeited(self.game_id, index, why))

    def _reject(self, seat: RemoteSeat, request_id: int, reason: str, deadline: float, kind: str) -> None:
        """Send DecisionRejected; ``kind`` (malformed, illegal, late, stale) labels the metric."""
        self.metrics.rejections.labels(kind).inc()
        seat.rejections += 1
        left_ms = max(0, _round((deadline - _monotonic()) * 1000)) if seat.open_request else 0
        SAMPLED.info(self.log, "decision_rejected", bot=seat.name, request_id=request_id, reason=reason)
        can_retry = seat.open_request == request_id and left_ms > 0
        seat.send(messages.decision_rejected(self.game_id, request_id, reason, can_retry, left_ms))

    # ------------------------------------------------------------------ from sessions

    def submit(self, index: int, decision: bot_pb2.Decision, received_at: float) -> bool:
        """A Decision from the bot holding seat ``index``; anything but an answer to its open request is
        rejected here and never reaches the game. True when it closed the open request."""
        seat = self.seats[index]
        assert isinstance(seat, RemoteSeat)
        request_id = decision.request_id
        asking = self._asking
        if asking is not None and asking.seat is seat and request_id == seat.open_request:
            try:
                return self._take(asking, decision, received_at)
            except Exception as bug:  # the game's, not the stream's: its task ends it, the stream goes on
                self._failure = bug
                self._alarm.wake()
                return False
        if self.state.is_over():  # its GameOver is on its way (the game is being recorded)
            self.metrics.rejections.labels("game_over").inc()
            seat.send(
                messages.game_over_error(self.game_id, self.reason or self.state.end_reason, request_id)
            )
            return False
        why, late = self._requests.why_not_applied(request_id, index, seat.open_request)
        self._reject(seat, request_id, why, 0.0, "late" if late else "stale")
        return False

    def detach(self, index: int) -> None:
        """The bot of seat ``index`` disconnected: its grace window starts now."""
        seat = self.seats[index]
        assert isinstance(seat, RemoteSeat)
        seat.crashes += 1
        seat.connection = None
        seat.disconnected_at = _monotonic()
        self._alarm.wake()
        self.log.info("seat_disconnected", bot=seat.name, seat=index)

    def attach(self, index: int, connection: Connection) -> None:
        """A reconnected bot takes seat ``index`` back: GameStarted again, then a fresh request if due."""
        seat = self.seats[index]
        assert isinstance(seat, RemoteSeat)
        seat.connection = connection
        seat.disconnected_at = None
        seat.resumed = True
        seat.next_event = self._event_log.sequence  # GameStarted's observation shows what happened meanwhile
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
        """A spectator's stream of this game (at most ``limit`` messages unread): a snapshot of the board
        now, then the public events from there on (every hand's card ids hidden), then GameOver."""
        sequence = self._event_log.sequence
        return self._spectators.add(
            messages.snapshot(self.game_id, self.queue, self._names, self.state, sequence), limit
        )

    def unwatch(self, spectator: Spectator) -> None:
        self._spectators.remove(spectator)

    # ------------------------------------------------------------------ messages

    def game_started(self, index: int) -> bytes:
        """The serialized ConnectResponse with seat ``index``'s GameStarted."""
        return messages.game_started(
            self.game_id, index, self.queue, self._names, self.commitment, self.state, self._arrays
        )

    def _record_events(self, events: list[Event]) -> None:
        """Log ``events`` for the seats (sent in their next DecisionRequest or GameEvents) and send them
        to every spectator at once, cards hidden."""
        if events:
            self._spectators.send_events(self._event_log.record(events))

    async def _finish(self) -> None:
        state = self.state
        self.reason = self.reason or state.end_reason
        outcomes = seat_outcomes(state, self.seats)
        self.replay.places = list(state.places)
        self.replay.fingerprint = state.fingerprint()
        over = game_over(self.game_id, self.seed, self.reason, state, self.seats, outcomes)
        result = game_result(
            self.queue, state, self.seats, outcomes, self.commitment, self.started_at, self.reason
        )
        try:  # recorded before anyone is told
            where = await asyncio.to_thread(self.writer.write, GameRecord(self.replay, result))
        except Exception:  # the players still get their GameOver; the operator gets the error
            self.log.exception("game_record_failed")
            where = "not (fully) recorded"
        game_over_message = bot_pb2.ConnectResponse(game_over=over)
        self._event_log.send()
        for seat in self.seats:
            seat_send(seat, game_over_message)
        self._spectators.send_game_over(over)
        self.log.info(
            "game_over", reason=self.reason, turns=state.turn, places=list(state.places), replay=where
        )


def _since(now: float, sent: Departure, queued: float) -> float:
    """Seconds from ``sent``'s departure (its queueing if it has not left) to ``now``, never below 0."""
    sent_at = sent.sent_at
    elapsed = now - (sent_at if sent_at != 0.0 else queued)
    return elapsed if elapsed > 0.0 else 0.0


def seat_send(seat: Seat, message: Outgoing) -> None:
    if isinstance(seat, RemoteSeat):
        seat.send(message)
