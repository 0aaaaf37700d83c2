"""How a finished game ended for each seat, told two ways: the GameOver its players and spectators are sent,
and the GameResult stored with its replay."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

from conquest.v1 import bot_pb2
from engine import GameState, PlayerStatus, Termination
from server.ops.config import QueueConfig
from server.play.seats import RemoteSeat, Seat
from server.records import ABORTED, GameResult, SeatOutcome, SeatResult

Outcome = bot_pb2.SeatOutcome


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


def seat_outcomes(state: GameState, seats: Sequence[Seat]) -> list[Outcome.ValueType]:
    """Every seat's ``seat_outcome``, in seat order."""
    forfeits = [s.forfeit if isinstance(s, RemoteSeat) else None for s in seats]
    return [seat_outcome(state, i, f) for i, f in enumerate(forfeits)]


class Finished(Protocol):
    """What the result of a finished game needs: a classic ``GameState``, or ``Finished2210``."""

    @property
    def places(self) -> Sequence[int]: ...

    @property
    def turn(self) -> int: ...


@dataclass(frozen=True, slots=True)
class Finished2210:
    """A finished RISK 2210 A.D. game's result: its places and, as its turns, the years played."""

    places: Sequence[int]
    turn: int


def game_over(
    game_id: str,
    seed: int,
    reason: str,
    state: Finished,
    seats: Sequence[Seat],
    outcomes: list[Outcome.ValueType],
) -> bot_pb2.GameOver:
    """The GameOver of the finished game in ``state``; it reveals the ``seed``."""
    results = [
        bot_pb2.SeatResult(seat=i, name=s.name, place=state.places[i], outcome=outcomes[i])
        for i, s in enumerate(seats)
    ]
    return bot_pb2.GameOver(game_id=game_id, results=results, seed=seed, reason=reason, turns=state.turn)


def game_result(
    queue: QueueConfig,
    state: Finished,
    seats: Sequence[Seat],
    outcomes: list[Outcome.ValueType],
    commitment: str,
    started_at: datetime,
    reason: str,
) -> GameResult:
    """The result to store: rated when the queue is and every seat is a distinct registered bot."""
    results = [
        SeatResult(
            name=seat.name,
            place=state.places[i],
            outcome=SeatOutcome(Outcome.Name(outcomes[i]).removeprefix("SEAT_OUTCOME_").lower()),
            bot_id=seat.bot_id if isinstance(seat, RemoteSeat) else None,
            timeouts=seat.timeouts if isinstance(seat, RemoteSeat) else 0,
            rejections=seat.rejections if isinstance(seat, RemoteSeat) else 0,
            crashes=seat.crashes if isinstance(seat, RemoteSeat) else 0,
            round_trips=seat.round_trips if isinstance(seat, RemoteSeat) else {},
        )
        for i, seat in enumerate(seats)
    ]
    bot_ids = [s.bot_id for s in results]
    return GameResult(
        queue=queue.name,
        seats=results,
        seed_commitment=commitment,
        started_at=started_at,
        finished_at=datetime.now(UTC),
        turns=state.turn,
        reason=reason,
        rated=queue.rated and None not in bot_ids and len(set(bot_ids)) == len(bot_ids),
    )


def result_to_dict(result: GameResult) -> dict[str, Any]:
    """A GameResult as JSON values (a pending marker's content)."""
    return {
        "queue": result.queue,
        "seats": [
            {
                "name": s.name,
                "place": s.place,
                "outcome": s.outcome.value,
                "bot_id": s.bot_id,
                "timeouts": s.timeouts,
                "rejections": s.rejections,
                "crashes": s.crashes,
                "round_trips": {phase: list(counts) for phase, counts in s.round_trips.items()},
            }
            for s in result.seats
        ],
        "seed_commitment": result.seed_commitment,
        "started_at": result.started_at.isoformat(),
        "finished_at": result.finished_at.isoformat(),
        "turns": result.turns,
        "reason": result.reason,
        "rated": result.rated,
    }


def result_from_dict(data: dict[str, Any]) -> GameResult:
    """``result_to_dict``'s inverse. Raises: KeyError, ValueError, TypeError."""
    return GameResult(
        queue=str(data["queue"]),
        seats=[
            SeatResult(
                name=str(s["name"]),
                place=int(s["place"]),
                outcome=SeatOutcome(s["outcome"]),
                bot_id=s["bot_id"],
                timeouts=int(s["timeouts"]),
                rejections=int(s["rejections"]),
                crashes=int(s["crashes"]),
                round_trips={str(p): [int(c) for c in counts] for p, counts in s["round_trips"].items()},
            )
            for s in data["seats"]
        ],
        seed_commitment=str(data["seed_commitment"]),
        started_at=datetime.fromisoformat(data["started_at"]),
        finished_at=datetime.fromisoformat(data["finished_at"]),
        turns=int(data["turns"]),
        reason=str(data["reason"]),
        rated=bool(data["rated"]),
    )


def aborted_result(
    header: dict[str, Any],
    places: Sequence[int],
    outcomes: Sequence[Outcome.ValueType],
    turns: int,
    finished_at: datetime,
) -> GameResult:
    """The unrated ``aborted`` result of a game a crash cut off, finished by defaults: its seats from the
    ``.live`` record's ``header``, each with its place and outcome."""
    bot_ids = header.get("bot_ids") or [None] * len(places)
    seats = [
        SeatResult(
            name=str(name),
            place=places[i],
            outcome=SeatOutcome(Outcome.Name(outcomes[i]).removeprefix("SEAT_OUTCOME_").lower()),
            bot_id=bot_ids[i],
        )
        for i, name in enumerate(header["seats"])
    ]
    return GameResult(
        queue=str(header["queue"]),
        seats=seats,
        seed_commitment=str(header["seed_commitment"]),
        started_at=datetime.fromisoformat(header["started_at"]),
        finished_at=finished_at,
        turns=turns,
        reason=ABORTED,
        rated=False,
    )
