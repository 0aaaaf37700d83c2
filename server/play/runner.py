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
import functools
import time
from collections.abc import AsyncIterator, Callable, Sequence
from datetime import UTC, datetime
from typing import Final

import structlog

from conquest.v1 import arena_pb2, bot_pb2, game_pb2
from engine import (
    Action,
    ActionError,
    Board,
    GameState,
    MalformedActionError,
    Phase,
    PlayerStatus,
    Termination,
    default_action,
    new_game,
)
from engine.events import Event, public_view, secret_holder
from engine.legal import LegalActions
from engine.observe import Observation, observe
from engine.replay import Replay
from engine.rules import Rules
from server.ops.config import QueueConfig, TimeControl
from server.ops.histogram import Buckets
from server.ops.metrics import Metrics
from server.play import wire
from server.play.mailbox import Alarm
from server.play.replays import GameRecord, ReplayWriter, seed_commitment
from server.play.seats import Connection, HouseSeat, RemoteSeat, Seat
from server.play.session import Outgoing, Session
from server.records import GameResult, SeatOutcome, SeatResult

ANNOTATION_LIMIT = 200
REQUEST_FATES = ("open", "answered", "timed out", "replaced", "cancelled")
OPEN = REQUEST_FATES.index("open")
LOG_KEPT = 16
"""Events logged for the seats beyond which sending a request also drops those every seat was sent."""
PHASE_LABELS = {phase: phase.name.lower() for phase in Phase}
"""A phase's name in metric labels and stored round trips (``Enum.name`` is a property: slow per call)."""
SHUTDOWN = "server_shutdown"
ALL_FORFEITED = "all_forfeited"
Outcome = bot_pb2.SeatOutcome
Spectator = asyncio.Queue[arena_pb2.WatchGameResponse | None]
"""A spectator's stream: a snapshot, event batches, GameOver, then None when the stream ends."""

log = structlog.get_logger("conquest.runner")


@functools.cache
def _map_info(board: Board) -> game_pb2.MapInfo:
    return wire.map_info(board)


@functools.cache
def _rules_info(rules: Rules, seats: int) -> game_pb2.RulesInfo:
    return wire.rules_info(rules, seats)


@functools.cache
def _serialized_map_info(board: Board) -> bytes:
    return _map_info(board).SerializeToString()


@functools.cache
def _serialized_rules_info(rules: Rules, seats: int) -> bytes:
    return _rules_info(rules, seats).SerializeToString()


@functools.cache
def _serialized_time_control(control: TimeControl) -> bytes:
    return control.to_pb().SerializeToString()


# Looked up once: compiled code looks a module's attribute up (``time.monotonic``, ``builtins.round``)
# on every call, and these run several times a decision.
_monotonic: Final = time.monotonic
_perf_counter: Final = time.perf_counter
_round: Final = round


def _observation(view: Observation, arrays: wire.PublicArrays) -> bytes:
    """``view`` serialized, its public arrays from the game's ``arrays``."""
    return wire.serialized_observation_part(view) + arrays.serialized(view)


def decision_request(
    game_id: str,
    request_id: int,
    state: GameState,
    legal: LegalActions,
    arrays: wire.PublicArrays,
    time_allowed_ms: int,
    timebank_ms: int,
    last_latency_ms: int,
    strikes: int,
    events: Sequence[bytes] = (),
) -> bytes:
    """The serialized ConnectResponse with the DecisionRequest for the seat to act (pinned by the golden
    fixtures in tests/server/golden). The game's public ``arrays`` and the serialized ``events`` go in as
    they are: only what differs between requests is built."""
    request = wire.serialized_decision_request(
        game_id,
        request_id,
        _observation(observe(state, state.to_act), arrays),
        legal,
        time_allowed_ms,
        timebank_ms,
        last_latency_ms,
        strikes,
        events,
    )
    return wire.serialized_response("decision_request", request)


def seat_outcome(state: GameState, seat: int, forfeit: Outcome.ValueType | None) -> Outcome.ValueType:
    """How ``seat``'s finished game ended for it: a forfeit overrides what the board says."""
    if forfeit is not None:
        return forfeit
    if state.status[seat] == PlayerStatus.ELIMINATED:
        return Outcome.SEAT_OUTCOME_ELIMINATED
    if state.end_reason == Termination.CONQUEST:
        return Outcome.SEAT_OUTCOME_WON
    if state.end_reason in (Termination.HEADQUARTERS, Termination.MISSION):
        return Outcome.SEAT_OUTCOME_WON if state.places[seat] == 1 else Outcome.SEAT_OUTCOME_SURVIVED
    return Outcome.SEAT_OUTCOME_TURN_CAP


class _Asking:
    """The open DecisionRequest: the seat asked, what it may do, and its times (``time.monotonic()``).
    A plain class: compiled, a dataclass's generated __init__ would be interpreted, once per decision."""

    def __init__(
        self,
        index: int,
        seat: RemoteSeat,
        legal: LegalActions,
        started: float,
        deadline: float,
        sent_at: float,
    ) -> None:
        self.index = index
        self.seat = seat
        self.legal = legal
        self.started = started
        """When the seat began to be asked: its clock runs from here, across a resend."""
        self.deadline = deadline
        self.sent_at = sent_at
        """When the request was last sent: round trips count from here."""


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
        self.replay = Replay(queue.rules, seed, [s.name for s in self.seats], game_id=game_id)
        self.reason = ""
        self._asked = bytearray()
        """The seat each request was sent to, by request id - 1 (ids count from 1 in each game)."""
        self._fates = bytearray()
        """What became of each request, as an index into ``REQUEST_FATES``: kept for every request of
        the game to explain stale replies, so one byte each."""
        self._sequence = 0
        """Sequence number of the next event."""
        self._log: list[bytes] = []
        """The public view of every event from sequence ``_log_start`` on, serialized once for every seat
        it goes to: what some seat was not sent yet."""
        self._log_start = 0
        self._own_views: dict[int, tuple[int, bytes]] = {}
        """sequence -> (seat, its own view) for the logged events that hide something from the others."""
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
        self._spectators: dict[Spectator, int] = {}
        """spectator -> the sequence number of the first event it has not seen in its snapshot."""
        self._game_over: bot_pb2.GameOver | None = None
        self.log = log.bind(game_id=game_id, queue=queue.name)
        self._record_events(setup_events)

    # ------------------------------------------------------------------ running

    async def run(self) -> None:
        """Play the game. A bot's answer is applied by its stream's reader (``submit``), which sends the
        next request itself when a bot is to act next; this task plays the rest: house seats, forfeited
        seats, deadlines, reconnects, a stop, and the game's end."""
        self.log.info("game_started", players=[s.name for s in self.seats])
        for index, seat in enumerate(self.seats):
            seat_send(seat, self.game_started(index))
        try:
            while not self.state.is_over():
                if self._failure is not None:
                    raise self._failure
                if self._stopping or self._all_forfeited():
                    if self._asking is not None:
                        self._close_request(self._asking.seat, "cancelled")
                        self._asking = None
                    self._cut_short(SHUTDOWN if self._stopping else ALL_FORFEITED)
                    break
                if self._asking is not None:
                    await self._watch(self._asking)
                else:
                    await self._play_unasked()
        finally:
            if self.state.is_over():
                await self._finish()
            for spectator in self._spectators:
                spectator.put_nowait(None)
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
            self._send_events(but=self.state.to_act, live=True)  # its events ride in its next request

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
        """Send the seat its DecisionRequest and make sure this game's task wakes by its deadline."""
        started = _monotonic()
        seat.clock.defending = legal.phase == Phase.DEFEND  # its own short allowance, mid-turn
        deadline = started + seat.clock.budget_ms() / 1000
        sent_at = self._send_request(index, seat, legal, started)
        self._asking = asking = _Asking(index, seat, legal, started, deadline, sent_at)
        self._alarm.wake_by(self._wake_time(asking))

    def _wake_time(self, asking: _Asking) -> float:
        """When the game's task must look at ``asking``: its deadline, or its seat's grace window's end."""
        away_since = asking.seat.disconnected_at
        if away_since is None:
            return asking.deadline
        return min(asking.deadline, away_since + self._grace)

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
        if now >= asking.deadline:
            self._answered(self._time_out(asking), "")
            return
        # Only a reconnect after this request was sent needs it sent again: a seat that dropped and came
        # back while another seat was deciding was sent its GameStarted, and its next request comes anyway.
        if seat.resumed and seat.connection is not None:
            self._close_request(seat, "replaced")
            asking.sent_at = self._send_request(asking.index, seat, asking.legal, asking.started)
        await self._alarm.wait(self._wake_time(asking))

    def _answered(self, action: Action, annotation: str, events: list[Event] | None = None) -> None:
        """The asked seat's action (its answer, or a default): applied (unless ``events`` are given:
        applied already) and recorded; nobody is asked until the next request."""
        self._asking = None
        self._apply(action, annotation, events)

    def _take(self, asking: _Asking, decision: bot_pb2.Decision, received_at: float) -> None:
        """Judge the answer to the open request: apply it, or reject it (a retry may follow while time is
        left); once it is applied or timed out, ask the next seat if it is a bot's."""
        seat = asking.seat
        if received_at > asking.deadline:
            self._reject(seat, decision.request_id, "it arrived after its deadline", asking.deadline, "late")
            self._answered(self._time_out(asking), "")
        else:
            phase = PHASE_LABELS[self.state.phase]
            try:  # the engine's checked path: every rule and id check applies, nothing changes on error
                action = wire.action_from_pb(decision.action)
                applying = _perf_counter()
                events = self.state.apply(action, asking.index, asking.legal)  # what the request carried
                self._engine_step.observe(_perf_counter() - applying)
            except ActionError as bad:
                kind = "malformed" if isinstance(bad, MalformedActionError) else "illegal"
                self._reject(seat, decision.request_id, str(bad), asking.deadline, kind)
                return
            round_trip = received_at - asking.sent_at
            round_trips = self._round_trips.get(phase)
            if round_trips is None:
                round_trips = self._round_trips[phase] = self.metrics.decision_round_trip.labels(phase)
            round_trips.observe(round_trip)
            seat.record_round_trip(phase, round_trip)
            self._close_request(seat, "answered")
            seat.clock.charge(_round((received_at - asking.started) * 1000))
            seat.last_latency_ms = _round(round_trip * 1000)
            self._answered(action, decision.annotation, events)
        state = self.state
        if not state.is_over() and not self._stopping:
            index = state.to_act
            next_seat = self.seats[index]
            if isinstance(next_seat, RemoteSeat) and next_seat.forfeit is None:
                self._ask(index, next_seat, state.legal_actions())  # no hand-off to the game's task
                return
        self._alarm.wake()  # a house or forfeited seat's move, a stop, or the end: the game task's

    def _send_request(self, index: int, seat: RemoteSeat, legal: LegalActions, started: float) -> float:
        """Send a DecisionRequest with the time left since ``started``; returns when it was sent."""
        self._asked.append(index)
        self._fates.append(OPEN)
        request_id = len(self._asked)
        seat.open_request = request_id
        seat.resumed = False
        now = _monotonic()
        elapsed_ms = _round((now - started) * 1000)
        allowed = seat.clock.time_allowed_ms()
        held_oldest = seat.next_event <= self._log_start  # so sending to it may let the log's start move
        message = decision_request(
            self.game_id,
            request_id,
            self.state,
            legal,
            self._arrays,
            time_allowed_ms=max(0, allowed - elapsed_ms),
            timebank_ms=max(0, seat.clock.timebank_ms - max(0, elapsed_ms - allowed)),
            last_latency_ms=seat.last_latency_ms,
            strikes=seat.strikes,
            events=self._unsent_events(index, seat),
        )
        seat.send(message)
        if held_oldest and len(self._log) > LOG_KEPT:  # a long turn or setup: the turn's end trims later
            self._forget_sent_events()
        return now

    def _close_request(self, seat: RemoteSeat, outcome: str) -> None:
        self._fates[seat.open_request - 1] = REQUEST_FATES.index(outcome)
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
        seat.send(
            bot_pb2.ConnectResponse(
                error=bot_pb2.Error(
                    code="seat_forfeited",
                    message=f"game {self.game_id}: seat {index} forfeited after {why}; it plays on with "
                    "default actions and you get no more DecisionRequests for it",
                    fatal=False,
                    game_id=self.game_id,
                )
            )
        )

    def _reject(self, seat: RemoteSeat, request_id: int, reason: str, deadline: float, kind: str) -> None:
        """Send DecisionRejected; ``kind`` (malformed, illegal, late, stale) labels the metric."""
        self.metrics.rejections.labels(kind).inc()
        seat.rejections += 1
        left_ms = max(0, _round((deadline - _monotonic()) * 1000)) if seat.open_request else 0
        self.log.info("decision_rejected", bot=seat.name, request_id=request_id, reason=reason)
        seat.send(
            bot_pb2.ConnectResponse(
                decision_rejected=bot_pb2.DecisionRejected(
                    game_id=self.game_id,
                    request_id=request_id,
                    reason=reason,
                    can_retry=seat.open_request == request_id and left_ms > 0,
                    time_left_ms=left_ms,
                )
            )
        )

    # ------------------------------------------------------------------ from sessions

    def submit(self, index: int, decision: bot_pb2.Decision, received_at: float) -> None:
        """A Decision from the bot holding seat ``index``; anything but an answer to its open request is
        rejected here and never reaches the game."""
        seat = self.seats[index]
        assert isinstance(seat, RemoteSeat)
        request_id = decision.request_id
        asking = self._asking
        if asking is not None and asking.seat is seat and request_id == seat.open_request:
            try:
                self._take(asking, decision, received_at)
            except Exception as bug:  # the game's, not the stream's: its task ends it, the stream goes on
                self._failure = bug
                self._alarm.wake()
            return
        asked, outcome = -1, ""
        if 0 < request_id <= len(self._asked):
            asked, outcome = self._asked[request_id - 1], REQUEST_FATES[self._fates[request_id - 1]]
        if asked == index and outcome == "timed out":
            why = "it arrived after its deadline; the default action was played"
        elif asked == index:
            why = f"request {request_id} was already {outcome}"
        elif asked >= 0:
            why = f"request {request_id} was not sent to your seat ({index})"
        else:
            why = f"there is no request {request_id} in this game"
        if seat.open_request:
            why += f"; your open request is {seat.open_request}"
        late = asked == index and outcome == "timed out"
        self._reject(seat, request_id, f"decision not applied: {why}", 0.0, "late" if late else "stale")

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
        seat.next_event = self._sequence  # GameStarted's observation already shows what happened while away
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

    def watch(self) -> Spectator:
        """A spectator's stream of this game: a snapshot of the board now, then the public events from
        there on (every hand's card ids hidden), then GameOver."""
        spectator: Spectator = asyncio.Queue()
        next_sequence = self._sequence
        spectator.put_nowait(
            arena_pb2.WatchGameResponse(
                snapshot=arena_pb2.GameSnapshot(
                    game_id=self.game_id,
                    queue=self.queue.name,
                    players=self._players(),
                    rules=_rules_info(self.queue.rules, len(self.seats)),
                    map=_map_info(self.state.board),
                    observation=wire.observation(observe(self.state, -1)),
                    next_sequence=next_sequence,
                    live=True,
                )
            )
        )
        if self._game_over is not None:  # over and told: nothing more will come
            spectator.put_nowait(arena_pb2.WatchGameResponse(game_over=self._game_over))
            spectator.put_nowait(None)
        else:
            self._spectators[spectator] = next_sequence
        return spectator

    def unwatch(self, spectator: Spectator) -> None:
        self._spectators.pop(spectator, None)

    # ------------------------------------------------------------------ messages

    def _players(self) -> list[bot_pb2.Player]:
        return [bot_pb2.Player(seat=i, name=s.name) for i, s in enumerate(self.seats)]

    def game_started(self, index: int) -> bytes:
        """The serialized ConnectResponse with the seat's GameStarted; the map, rules and time control go
        in serialized once per server."""
        started = wire.serialized_game_started(
            self.game_id,
            index,
            self._players(),
            _serialized_rules_info(self.queue.rules, len(self.seats)),
            _serialized_map_info(self.state.board),
            self.queue.name,
            _serialized_time_control(self.queue.time_control),
            self.commitment,
            _observation(observe(self.state, index), self._arrays),
        )
        return wire.serialized_response("game_started", started)

    def _record_events(self, events: list[Event]) -> None:
        """Log ``events`` for the seats (sent in their next DecisionRequest or GameEvents) and send them
        to every spectator at once, cards hidden."""
        if not events:
            return
        first = self._sequence
        self._sequence += len(events)
        shared = []
        for sequence, event in enumerate(events, first):
            holder = secret_holder(event)
            if holder is None:
                shared.append(wire.serialized_event(event, sequence))
                continue
            # That seat sees its own cards or choice, the others see blanks.
            shared.append(wire.serialized_event(public_view(event, None), sequence))
            self._own_views[sequence] = (holder, wire.serialized_event(event, sequence))
        self._log.extend(shared)
        for spectator, start in self._spectators.items():
            unseen = [game_pb2.GameEvent.FromString(e) for e in shared[max(0, start - first) :]]
            if unseen:
                spectator.put_nowait(
                    arena_pb2.WatchGameResponse(
                        events=bot_pb2.GameEvents(game_id=self.game_id, events=unseen)
                    )
                )

    def _unsent_events(self, index: int, seat: RemoteSeat) -> list[bytes]:
        """The logged events ``seat`` was not sent yet, its own cards shown; now counted as sent."""
        first = max(seat.next_event, self._log_start)
        batch = self._log[first - self._log_start :]
        for sequence, (holder, own) in self._own_views.items():
            if holder == index and sequence >= first:
                batch[sequence - first] = own
        seat.next_event = self._sequence
        return batch

    def _send_events(self, but: int = -1, live: bool = False) -> None:
        """Send every connected seat except ``but`` its unsent events as one GameEvents (``live``: only
        the seats whose bots asked for live events; the others get theirs in their next request)."""
        for index, seat in enumerate(self.seats):
            if (
                isinstance(seat, RemoteSeat)
                and seat.connection is not None
                and index != but
                and seat.next_event < self._sequence
                and (seat.connection.live_events or not live)
            ):
                batch = wire.serialized_game_events(self.game_id, self._unsent_events(index, seat))
                seat.send(wire.serialized_response("game_events", batch))
        self._forget_sent_events()

    def _forget_sent_events(self) -> None:
        """Drop the logged events every connected seat has been sent."""
        sent = min(
            (s.next_event for s in self.seats if isinstance(s, RemoteSeat) and s.connection is not None),
            default=self._sequence,
        )
        if sent > self._log_start:
            del self._log[: sent - self._log_start]
            self._log_start = sent
            self._own_views = {k: v for k, v in self._own_views.items() if k >= sent}

    async def _finish(self) -> None:
        state = self.state
        self.reason = self.reason or state.end_reason
        forfeits = [s.forfeit if isinstance(s, RemoteSeat) else None for s in self.seats]
        outcomes = [seat_outcome(state, i, f) for i, f in enumerate(forfeits)]
        self.replay.places = list(state.places)
        self.replay.fingerprint = state.fingerprint()
        results = [
            bot_pb2.SeatResult(seat=i, name=s.name, place=state.places[i], outcome=outcomes[i])
            for i, s in enumerate(self.seats)
        ]
        over = bot_pb2.GameOver(
            game_id=self.game_id, results=results, seed=self.seed, reason=self.reason, turns=state.turn
        )
        record = GameRecord(self.replay, self._result(outcomes))
        try:  # recorded before anyone is told
            where = await asyncio.to_thread(self.writer.write, record)
        except Exception:  # the players still get their GameOver; the operator gets the error
            self.log.exception("game_record_failed")
            where = "not (fully) recorded"
        game_over = bot_pb2.ConnectResponse(game_over=over)
        self._send_events()
        for seat in self.seats:
            seat_send(seat, game_over)
        self._game_over = over
        for spectator in self._spectators:
            spectator.put_nowait(arena_pb2.WatchGameResponse(game_over=over))
        self.log.info(
            "game_over", reason=self.reason, turns=state.turn, places=list(state.places), replay=where
        )

    def _result(self, outcomes: list[Outcome.ValueType]) -> GameResult:
        """The result to store: rated when the queue is and every seat is a distinct registered bot."""
        seats = [
            SeatResult(
                name=seat.name,
                place=self.state.places[i],
                outcome=SeatOutcome(Outcome.Name(outcomes[i]).removeprefix("SEAT_OUTCOME_").lower()),
                bot_id=seat.bot_id if isinstance(seat, RemoteSeat) else None,
                timeouts=seat.timeouts if isinstance(seat, RemoteSeat) else 0,
                rejections=seat.rejections if isinstance(seat, RemoteSeat) else 0,
                crashes=seat.crashes if isinstance(seat, RemoteSeat) else 0,
                round_trips=seat.round_trips if isinstance(seat, RemoteSeat) else {},
            )
            for i, seat in enumerate(self.seats)
        ]
        bot_ids = [s.bot_id for s in seats]
        return GameResult(
            queue=self.queue.name,
            seats=seats,
            seed_commitment=self.commitment,
            started_at=self.started_at,
            finished_at=datetime.now(UTC),
            turns=self.state.turn,
            reason=self.reason,
            rated=self.queue.rated and None not in bot_ids and len(set(bot_ids)) == len(bot_ids),
        )


def seat_send(seat: Seat, message: Outgoing) -> None:
    if isinstance(seat, RemoteSeat):
        seat.send(message)


def route_decision(
    games: dict[str, int], runners: dict[str, GameRunner], decision: bot_pb2.Decision, received_at: float
) -> bool:
    """Hand ``decision`` to its game as from the seat the bot holds there (``games``: game id -> seat);
    False, and nothing handed on, when the bot holds no seat in that game."""
    game_id = decision.game_id
    seat = games.get(game_id)
    runner = runners.get(game_id)
    if seat is None or runner is None:
        return False
    runner.submit(seat, decision, received_at)
    return True


async def read_stream(
    requests: AsyncIterator[bot_pb2.ConnectRequest],
    session: Session,
    runners: dict[str, GameRunner],
    handle: Callable[[Session, bot_pb2.ConnectRequest, float], None],
) -> None:
    """Read a bot's stream to its end: each Decision straight to its game, the rest (and a Decision for
    no game of the bot's) to ``handle`` (the lobby), with the ``time.monotonic()`` it was received at.
    Compiled, as it runs for every decision."""
    async for request in requests:
        received_at = _monotonic()
        if request.WhichOneof("message") != "decision" or not route_decision(
            session.games, runners, request.decision, received_at
        ):
            handle(session, request, received_at)
