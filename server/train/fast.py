"""The environment's fast room: the observation vector, the action mask and the action of an index, built
straight from the engine's ``Observation`` and ``LegalActions`` (compiled with mypyc).

The plain construction is ``conquest_sdk.encoding`` over ``server.train.inputs``: ``Layout.observation(
view_of(obs), third_army)``, ``Layout.mask(choices_of(legal))`` and ``engine_action(Layout.decode(index,
choices_of(legal)))``, what the SDK builds from a DecisionRequest. ``Encoder`` gives the same arrays and
actions (pinned for every ruleset, decision by decision, by ``tests/train/test_train_fast.py``) without the
intermediate objects, and with three tricks:

- each seat keeps its last vector's owners and armies blocks, and only the territories whose owner or
  armies changed since that seat's last observation are rewritten;
- the vectors are written element by element into a ``bytearray`` and handed to numpy with
  ``np.frombuffer`` (one numpy call where the plain construction makes some twenty);
- the actions an index names on its own (claim, headquarters, attack, defence, end) are made once.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from conquest_sdk.encoding import ATTACK_MODES, BUCKETS, TRADE_SLOTS, Choices, Layout, bucket_count, buckets
from engine.actions import (
    Action,
    Fortify,
    Occupy,
    Place,
    PlayerStatus,
    TradeCards,
)
from engine.legal import LegalActions
from engine.observe import Observation
from server.train.inputs import engine_action

_PLACE, _TRADE, _OCCUPY, _FORTIFY = 1, 2, 3, 4
_ALIVE = int(PlayerStatus.ALIVE)
_READ = {"place": _PLACE, "trade_cards": _TRADE, "occupy": _OCCUPY, "fortify": _FORTIFY}
"""The action blocks whose counts or cards come from the legal actions: how ``action`` reads them."""


class Encoder:
    """The encoding of ``layout`` for one game at a time: ``observation`` keeps each seat's last vector, so
    call ``reset`` when a new game starts."""

    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        t, s = layout.territories, layout.seats
        self._t = t
        self._s = s
        self._o = s + 1
        self._size = layout.observation_size
        self._actions = layout.actions
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
        off = layout.offsets
        self._claim = off["claim"]
        self._headquarters = off["choose_headquarters"]
        self._place = off["place"]
        self._trade = off["trade_cards"]
        self._defend = off["choose_defence"]
        self._occupy = off["occupy"]
        self._end = off["end_phase"]
        self._attack_first = [-1] * (t * t)
        for i, (a, b) in enumerate(layout.attack_pairs):
            self._attack_first[a * t + b] = off["attack"] + i * 3 * ATTACK_MODES
        self._fortify_first = [-1] * (t * t)
        for i, (a, b) in enumerate(layout.fortify_pairs):
            self._fortify_first[a * t + b] = off["fortify"] + i * BUCKETS
        self._move_buckets = [(), *(buckets(1, most) for most in (1, 2, 3))]
        """By min(most, 3): the buckets of a move of 1..most armies."""
        # By index: the action when the index alone names it (made by the plain decode), else None and how
        # to read the index (the counts or cards come from the legal actions).
        self._fixed: list[Action | None] = [None] * self._actions
        self._how = [0] * self._actions
        self._local = [0] * self._actions
        starts = sorted(off.items(), key=lambda block: block[1])
        nothing = Choices((), (), (), 0, 0, (), (), 0, 0, 0, (), False, False)
        for (kind, start), (_, end) in zip(starts, [*starts[1:], ("", self._actions)], strict=True):
            for index in range(start, end):
                self._local[index] = index - start
                if kind in _READ:
                    self._how[index] = _READ[kind]
                else:
                    self._fixed[index] = engine_action(layout.decode(index, nothing))
        self.reset()

    def reset(self) -> None:
        """Forget every seat's last vector (a new game)."""
        blank: tuple[int, ...] = (-1,) * self._t
        self._seen_owners = [blank] * self._s
        self._seen_armies = [(0,) * self._t] * self._s
        # By seat: a vector with the owners and armies of _seen_* written in and zeros elsewhere.
        self._bases = [bytearray(4 * self._size) for _ in range(self._s)]

    # ------------------------------------------------------------------ observation

    def observation(self, obs: Observation, third_army: bool) -> npt.NDArray[np.float32]:
        """``Layout.observation(view_of(obs), third_army)``: ``obs`` is the engine's view for a seat."""
        seat: int = obs.seat
        t, o = self._t, self._o
        base = self._bases[seat]
        owners: tuple[int, ...] = obs.owners
        armies: tuple[int, ...] = obs.armies
        if owners != self._seen_owners[seat] or armies != self._seen_armies[seat]:
            view = memoryview(base).cast("f")
            columns = self._columns[seat]
            seen_owners, seen_armies = self._seen_owners[seat], self._seen_armies[seat]
            at = self._armies
            for territory in range(t):
                old, new = seen_owners[territory], owners[territory]
                if old != new:
                    if old >= 0:
                        view[territory * o + columns[min(old, self._s)]] = 0.0
                    if new >= 0:
                        view[territory * o + columns[min(new, self._s)]] = 1.0
                if seen_armies[territory] != armies[territory]:
                    view[at + territory] = float(armies[territory])
            view.release()
            self._seen_owners[seat] = owners
            self._seen_armies[seat] = armies
        out = bytearray(base)
        v = memoryview(out).cast("f")
        s = self._s
        at = self._hand
        for card in obs.hand:
            v[at + card] = 1.0
        hand_sizes: tuple[int, ...] = obs.hand_sizes
        statuses: tuple[PlayerStatus, ...] = obs.statuses
        for k in range(s):
            other = (seat + k) % s
            v[self._hand_sizes + k] = float(hand_sizes[other])
            if int(statuses[other]) == _ALIVE:
                v[self._alive + k] = 1.0
        v[self._phase + int(obs.phase)] = 1.0
        turn_seat: int = obs.turn_seat
        if turn_seat >= 0:
            v[self._turn_seat + (turn_seat - seat) % s] = 1.0
        if third_army:
            v[self._third] = 1.0
        pending: tuple[int, int, int] | None = obs.pending_attack or obs.pending_occupy
        at = self._scalars
        if pending is not None:
            v[self._pending_source + pending[0]] = 1.0
            v[self._pending_target + pending[1]] = 1.0
            v[at] = float(pending[2])
        v[at + 1] = float(obs.turn)
        v[at + 2] = float(obs.deck_size)
        v[at + 3] = float(obs.trades_done)
        v[at + 4] = float(obs.next_trade_value)
        v[at + 5] = float(obs.reinforcements)
        headquarters: tuple[int, ...] = obs.headquarters
        for k, territory in enumerate(headquarters):
            if territory >= 0:
                v[(self._own_hq if k == seat else self._other_hq) + territory] = 1.0
        mission: int = obs.mission
        if mission >= 0 and self._missions:
            v[self._mission + mission] = 1.0
        v.release()
        vector: npt.NDArray[np.float32] = np.frombuffer(out, np.float32)
        return vector

    # ------------------------------------------------------------------ actions

    def mask(self, legal: LegalActions) -> npt.NDArray[np.int8]:
        """``Layout.mask(choices_of(legal))``, read-only."""
        out = bytearray(self._actions)
        t = self._t
        for territory in legal.claim:
            out[self._claim + territory] = 1
        for territory in legal.headquarters:
            out[self._headquarters + territory] = 1
        if legal.place_territories:
            kept = buckets(legal.place_min, legal.place_max)
            for territory in legal.place_territories:
                at = self._place + BUCKETS * territory
                for b in kept:
                    out[at + b] = 1
        for k in range(min(len(legal.trades), TRADE_SLOTS)):
            out[self._trade + k] = 1
        for option in legal.attacks:
            at = self._attack_first[option[0] * t + option[1]]
            for k in range(option[2] * ATTACK_MODES):
                out[at + k] = 1
        for k in range(legal.defend_max):
            out[self._defend + k] = 1
        if legal.occupy_max:
            for b in buckets(legal.occupy_min, legal.occupy_max):
                out[self._occupy + b] = 1
        for free in legal.fortify:
            kept = self._move_buckets[min(free.max_armies, 3)]
            for target in free.targets:
                at = self._fortify_first[free.source * t + target]
                for b in kept:
                    out[at + b] = 1
        if legal.can_end:
            out[self._end] = 1
        mask: npt.NDArray[np.int8] = np.frombuffer(bytes(out), np.int8)  # read-only: bytes
        return mask

    def action(self, index: int, legal: LegalActions) -> Action:
        """``engine_action(Layout.decode(index, choices_of(legal)))`` for a masked-in ``index``."""
        fixed = self._fixed[index]
        if fixed is not None:
            return fixed
        how, local = self._how[index], self._local[index]
        if how == _PLACE:
            return Place(local // BUCKETS, bucket_count(legal.place_min, legal.place_max, local % BUCKETS))
        if how == _OCCUPY:
            return Occupy(bucket_count(legal.occupy_min, legal.occupy_max, local))
        if how == _TRADE:
            return TradeCards(legal.trades[local], -1)
        source, target = self.layout.fortify_pairs[local // BUCKETS]
        most = next((f.max_armies for f in legal.fortify if f.source == source and target in f.targets), 1)
        return Fortify(source, target, bucket_count(1, most, local % BUCKETS))
