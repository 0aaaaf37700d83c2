"""The environment's observation vectors, built straight from the engine's ``GameState`` (compiled with
mypyc): ``Observer.observation(state, seat, third_army)`` equals the plain construction
``Layout.observation(view_of(observe(state, seat)), third_army)`` (``conquest_sdk.encoding`` over
``server.train.inputs``, what the SDK builds from a DecisionRequest), pinned for every ruleset, decision by
decision, by ``tests/train/test_train_fast.py``. The tricks:

- the vector is read from the state itself (what ``engine.observe`` would give the seat: its own hand,
  mission and headquarters as ``seen_headquarters`` shows them), not from an ``Observation``;
- each seat keeps its last vector and the values written into it, and only what changed since that seat's
  last observation is rewritten (a few floats a step); the vector handed out is a copy;
- what may have changed is read off the events of the actions played (``note``), not found by comparing
  the state: a step re-reads the two or three territories its action named, and the hands and statuses
  only after an event that changes them.
"""

from __future__ import annotations

from typing import Any, Final, cast

import numpy as np
import numpy.typing as npt

from conquest_sdk.encoding import Layout
from engine.actions import Phase, PlayerStatus
from engine.events import (
    Captured,
    CardsTaken,
    Claimed,
    Dealt,
    Drew,
    Eliminated,
    Event,
    Fortified,
    Occupied,
    Placed,
    Rolled,
    Traded,
)
from engine.observe import seen_headquarters
from engine.rules import Objective
from engine.state import GameState

_ALIVE: Final = PlayerStatus.ALIVE
_HEADQUARTERS: Final = Objective.HEADQUARTERS
_EVERY_TERRITORY: Final = -1
_HANDS_OR_STATUSES: Final = -2
_SEAT_EVENTS: Final = frozenset({Drew, Traded, CardsTaken, Eliminated})
"""The events that change a hand or a seat's status (every such change is told by one of them)."""
_TERRITORY_FIELDS: Final[dict[type, tuple[int, ...]]] = {
    Rolled: (0, 1),
    Captured: (1, 2),
    Occupied: (0, 1),
    Fortified: (0, 1),
    Placed: (1,),
    Claimed: (1,),
    Traded: (3,),  # -1 when no bonus applied
    Dealt: (),  # every territory
}
"""By event type: the fields naming the territories whose owner or armies it changed (every such change
is told by one of these, ``engine.events``); pinned by ``test_train_fast.py``."""


class Observer:
    """Every seat's observation vector in games of ``layout``, one game at a time: ``reset`` when a new game
    starts, and ``note`` the events of every action played."""

    def __init__(self, layout: Layout) -> None:
        t, s = layout.territories, layout.seats
        self._t = t
        self._s = s
        self._o = s + 1
        self._size = layout.observation_size
        at = layout.observation_offsets
        self._armies = at["armies"]
        self._hand = at["hand"]
        self._hand_sizes = at["hand_sizes"]
        self._alive = at["alive"]
        self._phase = at["phase"] + 1  # the wire's Phase number is the engine's + 1
        self._turn_seat = at["turn_seat"]
        self._third = at["third_army"]
        self._pending_source = at["pending_source"]
        self._pending_target = at["pending_target"]
        self._scalars = at["scalars"]
        self._own_hq = at["own_headquarters"]
        self._other_hq = at["other_headquarters"]
        self._mission = at["mission"]
        self._missions = layout.missions
        # By viewing seat, then owner 0..seats (the third army last): that owner's one-hot column.
        self._columns = [[(owner - seat) % s for owner in range(s)] + [s] for seat in range(s)]
        self.reset()

    def reset(self) -> None:
        """Forget every seat's last vector (a new game)."""
        self._kept = [_Kept(self._size, self._t, self._s) for _ in range(self._s)]
        self._touched: list[int] = []
        """The territories named by every event since the game started (-1: all of them; -2: a hand or a
        status changed), in order: each seat's kept vector has read the first ``_Kept.read``."""

    def note(self, events: list[Event]) -> None:
        """The events of the action just played: the territories they name are the only ones whose owner or
        armies each seat's kept vector must read again (every change to the board is told by an event)."""
        touched = self._touched
        first = len(touched)  # what this action names starts here (seats may have read up to it)
        for event in events:
            kind = type(event)
            fields = _TERRITORY_FIELDS.get(kind)
            if fields is not None:
                named = cast(tuple[Any, ...], event)
                if len(fields) == 2:
                    source: int = named[fields[0]]
                    target: int = named[fields[1]]
                    end = len(touched)
                    # The rolls of one attack name the same two territories again and again: once is enough.
                    if end - 2 < first or touched[end - 2] != source or touched[end - 1] != target:
                        touched.append(source)
                        touched.append(target)
                elif fields:
                    territory: int = named[fields[0]]
                    if territory >= 0:
                        touched.append(territory)
                else:
                    touched.append(_EVERY_TERRITORY)
            if kind in _SEAT_EVENTS:
                touched.append(_HANDS_OR_STATUSES)

    def observation(self, state: GameState, seat: int, third_army: bool) -> npt.NDArray[np.float32]:
        """``Layout.observation(view_of(observe(state, seat)), third_army)``, given every action's events
        since ``reset`` (``note``)."""
        kept = self._kept[seat]
        v = kept.floats
        s = self._s
        touched = self._touched
        end = len(touched)
        start = kept.read
        board = hands = start < 0 or end - start > self._t
        if not board:
            for k in range(start, end):
                territory = touched[k]
                if territory >= 0:
                    self._territory(state, seat, kept, territory)
                elif territory == _EVERY_TERRITORY:
                    board = True
                else:
                    hands = True
        if board:
            self._reread_board(state, seat, kept)
        kept.read = end
        if hands:
            self._reread_hands(state, seat, kept)
        phase = state.phase
        if phase is not kept.phase:
            kept.phase_slot = _one_hot(v, kept.phase_slot, self._phase + int(phase))
            kept.phase = phase
        turn_seat: int = state.turn_seat
        kept.turn_seat = _one_hot(
            v, kept.turn_seat, self._turn_seat + (turn_seat - seat) % s if turn_seat >= 0 else -1
        )
        if third_army != kept.third:
            v[self._third] = 1.0 if third_army else 0.0
            kept.third = third_army
        source = target = -1
        count = 0
        attack = state.pending_attack
        occupy = state.pending_occupy
        if attack is not None:
            source, target, count = attack.source, attack.target, attack.dice
        elif occupy is not None:
            source, target, count = occupy[0], occupy[1], occupy[2]
        kept.source = _one_hot(v, kept.source, self._pending_source + source if source >= 0 else -1)
        kept.target = _one_hot(v, kept.target, self._pending_target + target if source >= 0 else -1)
        scalars = kept.scalars
        at = self._scalars
        _scalar(v, scalars, at, 0, count)
        _scalar(v, scalars, at, 1, state.turn)
        _scalar(v, scalars, at, 2, len(state.deck))
        trades: int = state.trades_done
        if trades != scalars[3]:  # the next set's value follows from the sets traded
            _scalar(v, scalars, at, 3, trades)
            _scalar(v, scalars, at, 4, state.next_trade_value())
        _scalar(v, scalars, at, 5, state.reinforcements)
        if state.rules.objective is _HEADQUARTERS:
            headquarters = seen_headquarters(state, seat)
            if headquarters != kept.headquarters:
                for slot in kept.headquarter_slots:
                    v[slot] = 0.0
                slots = [
                    (self._own_hq if k == seat else self._other_hq) + territory
                    for k, territory in enumerate(headquarters)
                    if territory >= 0
                ]
                for slot in slots:
                    v[slot] = 1.0
                kept.headquarters, kept.headquarter_slots = headquarters, slots
        if self._missions:
            mission: int = state.missions[seat]
            kept.mission = _one_hot(v, kept.mission, self._mission + mission if mission >= 0 else -1)
        vector: npt.NDArray[np.float32] = kept.vector.copy()
        return vector

    def _reread_hands(self, state: GameState, seat: int, kept: _Kept) -> None:
        """``seat``'s hand, every seat's hand size and who is still playing."""
        v, s = kept.floats, self._s
        hands: list[list[int]] = state.hands
        hand = hands[seat]
        if hand != kept.hand:
            at = self._hand
            for card in kept.hand:
                v[at + card] = 0.0
            for card in hand:
                v[at + card] = 1.0
            kept.hand = list(hand)
        statuses: list[PlayerStatus] = state.status
        sizes, alive = kept.hand_sizes, kept.alive
        for k in range(s):
            other = (seat + k) % s
            size = len(hands[other])
            if size != sizes[k]:
                v[self._hand_sizes + k] = float(size)
                sizes[k] = size
            living = statuses[other] is _ALIVE
            if living != alive[k]:
                v[self._alive + k] = 1.0 if living else 0.0
                alive[k] = living

    def _reread_board(self, state: GameState, seat: int, kept: _Kept) -> None:
        """Every territory's owner and armies (a seat's first look, or one after many changes)."""
        if state.owner != kept.owners or state.armies != kept.armies:
            for territory in range(self._t):
                self._territory(state, seat, kept, territory)

    def _territory(self, state: GameState, seat: int, kept: _Kept, territory: int) -> None:
        """Rewrite ``territory``'s owner and armies in ``seat``'s kept vector where they changed."""
        v = kept.floats
        new: int = state.owner[territory]
        seen = kept.owners
        old = seen[territory]
        if old != new:
            o, s, columns = self._o, self._s, self._columns[seat]
            if old >= 0:
                v[territory * o + columns[min(old, s)]] = 0.0
            if new >= 0:
                v[territory * o + columns[min(new, s)]] = 1.0
            seen[territory] = new
        count: int = state.armies[territory]
        seen = kept.armies
        if seen[territory] != count:
            v[self._armies + territory] = float(count)
            seen[territory] = count


class _Kept:
    """One seat's last observation vector and the values written into it (-1: no one-hot written)."""

    def __init__(self, size: int, territories: int, seats: int) -> None:
        buffer = bytearray(4 * size)
        self.vector: npt.NDArray[np.float32] = np.frombuffer(buffer, np.float32)
        self.floats = memoryview(buffer).cast("f")  # writes through it land in ``vector``
        self.owners = [-1] * territories
        self.armies = [0] * territories
        self.hand: list[int] = []
        self.hand_sizes = [0] * seats
        self.alive = [False] * seats
        self.read = -1
        """How many of ``Encoder._touched`` this vector has read (-1: none, the board is read whole)."""
        self.phase: Phase | None = None
        self.phase_slot = -1
        self.turn_seat = -1
        self.third = False
        self.source = -1
        self.target = -1
        self.scalars = [0, 0, 0, -1, 0, 0]  # sets traded -1: the next set's value is written first time
        self.headquarters: tuple[int, ...] = ()
        self.headquarter_slots: list[int] = []
        self.mission = -1


def _one_hot(v: memoryview[float], old: int, new: int) -> int:
    """Move a one-hot from slot ``old`` to slot ``new`` (-1: none) and return ``new``."""
    if old != new:
        if old >= 0:
            v[old] = 0.0
        if new >= 0:
            v[new] = 1.0
    return new


def _scalar(v: memoryview[float], scalars: list[int], at: int, k: int, value: int) -> None:
    """Write scalar ``k`` if it changed."""
    if value != scalars[k]:
        v[at + k] = float(value)
        scalars[k] = value
