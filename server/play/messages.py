"""What a game's runner sends, built from the game: GameStarted and DecisionRequest (written by
``server.play.wire``, serialized), a spectator's snapshot, a forfeit's Error and DecisionRejected.
Compiled: a DecisionRequest is built for every decision."""

from __future__ import annotations

import functools
from collections.abc import Sequence

from conquest.v1 import arena_pb2, bot_pb2, game_pb2
from engine import Board, GameState
from engine.legal import LegalActions
from engine.observe import Observation, observe
from engine.rules import Rules
from server.ops.config import QueueConfig, TimeControl
from server.play import convert, wire


@functools.cache
def _map_info(board: Board) -> game_pb2.MapInfo:
    return convert.map_info(board)


@functools.cache
def _rules_info(rules: Rules, seats: int) -> game_pb2.RulesInfo:
    return convert.rules_info(rules, seats)


@functools.cache
def _serialized_map_info(board: Board) -> bytes:
    return _map_info(board).SerializeToString()


@functools.cache
def _serialized_rules_info(rules: Rules, seats: int) -> bytes:
    return _rules_info(rules, seats).SerializeToString()


@functools.cache
def _serialized_time_control(control: TimeControl) -> bytes:
    return control.to_pb().SerializeToString()


def _observation(view: Observation, arrays: wire.PublicArrays) -> bytes:
    """``view`` serialized, its public arrays from the game's ``arrays``."""
    return wire.serialized_observation_part(view) + arrays.serialized(view)


def players(names: Sequence[str]) -> list[bot_pb2.Player]:
    return [bot_pb2.Player(seat=i, name=name) for i, name in enumerate(names)]


def game_started(
    game_id: str,
    seat: int,
    queue: QueueConfig,
    names: Sequence[str],
    commitment: str,
    state: GameState,
    arrays: wire.PublicArrays,
) -> bytes:
    """The serialized ConnectResponse with ``seat``'s GameStarted; the map, rules and time control go
    in serialized once per server."""
    started = wire.serialized_game_started(
        game_id,
        seat,
        players(names),
        _serialized_rules_info(queue.rules, len(names)),
        _serialized_map_info(state.board),
        queue.name,
        _serialized_time_control(queue.time_control),
        commitment,
        _observation(observe(state, seat), arrays),
        state.dice.version,
    )
    return wire.serialized_response("game_started", started)


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


def snapshot(
    game_id: str, queue: QueueConfig, names: Sequence[str], state: GameState, next_sequence: int
) -> arena_pb2.GameSnapshot:
    """A live game as a spectator first sees it: the board now, every hand's card ids hidden."""
    return arena_pb2.GameSnapshot(
        game_id=game_id,
        queue=queue.name,
        players=players(names),
        rules=_rules_info(queue.rules, len(names)),
        map=_map_info(state.board),
        observation=wire.observation(observe(state, -1)),
        next_sequence=next_sequence,
        live=True,
    )


def _game_error(game_id: str, code: str, message: str) -> bot_pb2.ConnectResponse:
    """A non-fatal Error about one game."""
    error = bot_pb2.Error(code=code, message=message, fatal=False, game_id=game_id)
    return bot_pb2.ConnectResponse(error=error)


def seat_forfeited(game_id: str, seat: int, why: str) -> bot_pb2.ConnectResponse:
    return _game_error(
        game_id,
        "seat_forfeited",
        f"game {game_id}: seat {seat} forfeited after {why}; it plays on with default actions and you get "
        "no more DecisionRequests for it",
    )


def not_resumed(game_id: str, why: str) -> bot_pb2.ConnectResponse:
    """The Error for a game a Welcome listed as resumed whose seat will not come back (cluster mode)."""
    return _game_error(
        game_id,
        "not_resumed",
        f"game {game_id}, listed in your Welcome's resumed_game_ids, is not resumed: {why}; nothing more "
        "comes for it, so stop waiting for it",
    )


def game_over_error(game_id: str, reason: str, request_id: int) -> bot_pb2.ConnectResponse:
    """The Error for a Decision that came after its game ended (the game's runner, while it records the
    game, and the lobby, once it has forgotten it, answer alike)."""
    return _game_error(
        game_id,
        "game_over",
        f"game {game_id!r} is over ({reason}): request {request_id} was not applied; its GameOver gives "
        "the result",
    )


def decision_rejected(
    game_id: str, request_id: int, reason: str, can_retry: bool, time_left_ms: int
) -> bot_pb2.ConnectResponse:
    rejected = bot_pb2.DecisionRejected(
        game_id=game_id,
        request_id=request_id,
        reason=reason,
        can_retry=can_retry,
        time_left_ms=time_left_ms,
    )
    return bot_pb2.ConnectResponse(decision_rejected=rejected)
