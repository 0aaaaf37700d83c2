"""The environment's fast room: the observation vector, the action mask and the action of an index, built
straight from the engine's ``GameState`` and ``LegalActions`` (compiled with mypyc).

The plain construction is ``conquest_sdk.encoding`` over ``server.train.inputs``: ``Layout.observation(
view_of(observe(state, seat)), third_army)``, ``Layout.mask(choices_of(legal))`` and ``engine_action(
Layout.decode(index, choices_of(legal)))``, what the SDK builds from a DecisionRequest. ``Encoder`` gives the
same arrays and actions (pinned for every ruleset, decision by decision, by
``tests/train/test_train_fast.py``) without the intermediate objects, and with these tricks:

- the observation is read from the state itself (what ``engine.observe`` would give the seat: its own hand,
  mission and headquarters as ``seen_headquarters`` shows them), not from an ``Observation``;
- each seat keeps its last vector and the values written into it, and only what changed since that seat's
  last observation is rewritten (a few floats a step); the vector handed out is a copy;
- a decision whose legal actions give the same mask as the last decision's (same phase, same choices; an
  attack's source armies do not show in the mask) gets the same read-only mask array;
- the masks are written into a ``bytearray`` kept for each phase, where only the indices that differ from
  that phase's last mask are rewritten, and handed to numpy with one ``np.frombuffer``;
- the masked-in indices are listed, ascending, as the mask is made (``indices``: a random agent's draw
  needs no numpy call);
- the actions an index names on its own (claim, headquarters, attack, defence, end) are made once;
- ``Room`` does what the environment does at each step (the open decision's legal actions, mask and
  indices made once, a seat's observation, the unchecked play of a masked-in index) in one compiled call.
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np
import numpy.typing as npt

from conquest_sdk.encoding import ATTACK_MODES, BUCKETS, TRADE_SLOTS, Choices, Layout
from engine.actions import (
    Action,
    Fortify,
    Occupy,
    Phase,
    Place,
    PlayerStatus,
    TradeCards,
)
from engine.legal import LegalActions
from engine.observe import seen_headquarters
from engine.state import GameState
from server.train.inputs import engine_action

_PLACE, _TRADE, _OCCUPY, _FORTIFY = 1, 2, 3, 4
_ALIVE: Final = PlayerStatus.ALIVE
_READ = {"place": _PLACE, "trade_cards": _TRADE, "occupy": _OCCUPY, "fortify": _FORTIFY}
"""The action blocks whose counts or cards come from the legal actions: how ``action`` reads them."""
_FROMBUFFER: Final = np.frombuffer
_INT8: Final = np.int8
_ALL_BUCKETS: Final = (0, 1, 2)
_ENDS: Final = (0, 2)
_MOST: Final = (2,)


def _buckets(least: int, most: int) -> tuple[int, ...]:
    """``conquest_sdk.encoding.buckets`` (the buckets that give distinct counts in least..most), natively."""
    if least < most:
        return _ALL_BUCKETS if least < (least + most) // 2 < most else _ENDS
    return _MOST


def _bucket_count(least: int, most: int, bucket: int) -> int:
    """``conquest_sdk.encoding.bucket_count`` (the army count ``bucket`` stands for), natively."""
    if bucket == 0:
        return least
    return (least + most) // 2 if bucket == 1 else most


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
        self._move_buckets = [(), *(_buckets(1, most) for most in (1, 2, 3))]
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
        """Forget every seat's last vector and the last mask (a new game)."""
        self._kept = [_Kept(self._size, self._t, self._s) for _ in range(self._s)]
        self._last_legal: LegalActions | None = None
        self._last_mask: npt.NDArray[np.int8] = np.zeros(0, np.int8)
        self._last_bytes = b""
        self._work = [_Work(self._actions) for _ in Phase]
        self._last_indices: tuple[int, ...] = ()

    # ------------------------------------------------------------------ observation

    def observation(self, state: GameState, seat: int, third_army: bool) -> npt.NDArray[np.float32]:
        """``Layout.observation(view_of(observe(state, seat)), third_army)``."""
        kept = self._kept[seat]
        v = kept.floats
        t, o, s = self._t, self._o, self._s
        owners: list[int] = state.owner
        seen: list[int] = kept.owners
        if owners != seen:
            columns = self._columns[seat]
            for territory in range(t):
                old, new = seen[territory], owners[territory]
                if old != new:
                    if old >= 0:
                        v[territory * o + columns[min(old, s)]] = 0.0
                    if new >= 0:
                        v[territory * o + columns[min(new, s)]] = 1.0
                    seen[territory] = new
        armies: list[int] = state.armies
        seen = kept.armies
        if armies != seen:
            at = self._armies
            for territory in range(t):
                count = armies[territory]
                if seen[territory] != count:
                    v[at + territory] = float(count)
                    seen[territory] = count
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
        kept.phase = _one_hot(v, kept.phase, self._phase + int(state.phase))
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
        for k, value in enumerate(
            (
                count,
                state.turn,
                len(state.deck),
                state.trades_done,
                state.next_trade_value(),
                state.reinforcements,
            )
        ):
            if value != scalars[k]:
                v[at + k] = float(value)
                scalars[k] = value
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

    # ------------------------------------------------------------------ actions

    def mask(self, legal: LegalActions) -> npt.NDArray[np.int8]:
        """``Layout.mask(choices_of(legal))``, read-only; ``indices`` is then its masked-in indices."""
        last = self._last_legal
        if last is not None and _same_mask(legal, last):
            return self._last_mask
        on: list[int] = []
        t = self._t
        for territory in legal.claim:
            on.append(self._claim + territory)
        for territory in legal.headquarters:
            on.append(self._headquarters + territory)
        if legal.place_territories:
            kept = _buckets(legal.place_min, legal.place_max)
            for territory in legal.place_territories:
                at = self._place + BUCKETS * territory
                for b in kept:
                    on.append(at + b)
        for k in range(min(len(legal.trades), TRADE_SLOTS)):
            on.append(self._trade + k)
        for option in legal.attacks:
            at = self._attack_first[option[0] * t + option[1]]
            for k in range(option[2] * ATTACK_MODES):
                on.append(at + k)
        for k in range(legal.defend_max):
            on.append(self._defend + k)
        if legal.occupy_max:
            for b in _buckets(legal.occupy_min, legal.occupy_max):
                on.append(self._occupy + b)
        for free in legal.fortify:
            kept = self._move_buckets[min(free.max_armies, 3)]
            for target in free.targets:
                at = self._fortify_first[free.source * t + target]
                for b in kept:
                    on.append(at + b)
        if legal.can_end:
            on.append(self._end)
        for k in range(1, len(on)):
            if on[k] <= on[k - 1]:  # written out of order, or twice: not seen in the engine's listings
                on = sorted(set(on))
                break
        # The phase's own buffer holds the last mask made in that phase: only the indices that differ from
        # it are written (an attack's options change little from one roll to the next).
        work = self._work[int(legal.phase)]
        _rewrite(work.out, work.on, on)
        work.on = on
        on_bytes = bytes(work.out)
        mask: npt.NDArray[np.int8] = _FROMBUFFER(on_bytes, _INT8)  # read-only: bytes
        self._last_legal, self._last_mask, self._last_bytes = legal, mask, on_bytes
        self._last_indices = tuple(on)
        return mask

    def indices(self) -> tuple[int, ...]:
        """The masked-in indices of the last ``mask``, ascending (``np.flatnonzero`` of it)."""
        return self._last_indices

    def action(self, index: int, legal: LegalActions) -> Action:
        """``engine_action(Layout.decode(index, choices_of(legal)))`` for a masked-in ``index``."""
        fixed = self._fixed[index]
        if fixed is not None:
            return fixed
        how, local = self._how[index], self._local[index]
        if how == _PLACE:
            return Place(local // BUCKETS, _bucket_count(legal.place_min, legal.place_max, local % BUCKETS))
        if how == _OCCUPY:
            return Occupy(_bucket_count(legal.occupy_min, legal.occupy_max, local))
        if how == _TRADE:
            return TradeCards(legal.trades[local], -1)
        source, target = self.layout.fortify_pairs[local // BUCKETS]
        most = next((f.max_armies for f in legal.fortify if f.source == source and target in f.targets), 1)
        return Fortify(source, target, _bucket_count(1, most, local % BUCKETS))


class Room:
    """What ``ConquestEnv`` does at every step, for one game at a time: the open decision's legal actions,
    mask and masked-in indices (made once a decision), a seat's observation, and the play of an index."""

    def __init__(self, layout: Layout) -> None:
        self.encoder = Encoder(layout)
        self._actions = layout.actions
        no_mask: npt.NDArray[np.int8] = np.frombuffer(bytes(layout.actions), np.int8)  # read-only: bytes
        self._no_mask = no_mask
        self._game: GameState | None = None
        self._legal: LegalActions | None = None
        self._mask = no_mask
        self._on = b""
        self._indices: tuple[int, ...] = ()
        self._finished = 0
        self.decisions = 0
        """Decisions taken in this game so far."""

    def reset(self, game: GameState) -> None:
        """A new game."""
        self.encoder.reset()
        self._game = game
        self._legal = None
        self._finished = len(game.eliminated)
        self.decisions = 0

    def state(self) -> GameState:
        game = self._game
        if game is None:
            raise RuntimeError("call reset() before using the environment")
        return game

    def legal(self) -> LegalActions:
        """The legal actions of the seat to act (made once per decision)."""
        legal = self._legal
        if legal is None:
            legal = self.state().legal_actions()
            encoder = self.encoder
            self._mask = encoder.mask(legal)
            self._on, self._indices = encoder._last_bytes, encoder._last_indices
            self._legal = legal
        return legal

    def mask(self) -> npt.NDArray[np.int8]:
        """The mask of the seat to act (read-only)."""
        self.legal()
        return self._mask

    def no_mask(self) -> npt.NDArray[np.int8]:
        """The all-zero mask of a seat not to act (read-only)."""
        return self._no_mask

    def indices(self) -> tuple[int, ...]:
        """The masked-in indices of the seat to act, ascending (``np.flatnonzero(mask())``)."""
        self.legal()
        return self._indices

    def observe(self, seat: int) -> dict[str, npt.NDArray[Any]]:
        """``seat``'s observation: its vector (fresh) and its mask (all zero when not to act)."""
        game = self.state()
        if seat == game.to_act:
            legal = self.legal()
            return {
                "observation": self.encoder.observation(game, seat, legal.army >= 0),
                "action_mask": self._mask,
            }
        return {"observation": self.encoder.observation(game, seat, False), "action_mask": self._no_mask}

    def play(self, action: object) -> int:
        """Play index ``int(action)`` for the seat to act if it is masked in (unchecked: every masked-in
        index is legal): the seat to act next, or -1 when the game ended or a seat was eliminated; -2 when
        it is not masked in (nothing played)."""
        if action is None:
            return -2
        index = action if isinstance(action, int) else int(action)  # type: ignore[call-overload]
        legal = self.legal()
        if not (0 <= index < self._actions and self._on[index]):
            return -2
        game = self.state()
        game.apply_unchecked(self.encoder.action(index, legal))
        self._legal = None
        self.decisions += 1
        if game.is_over() or len(game.eliminated) != self._finished:
            self._finished = len(game.eliminated)
            return -1
        return game.to_act

    def played(self) -> None:
        """The seat to act played an action by other means than ``play``."""
        self._legal = None
        self.decisions += 1
        self._finished = len(self.state().eliminated)


class _Work:
    """A mask being kept up to date: its bytes and its masked-in indices, ascending."""

    def __init__(self, actions: int) -> None:
        self.out = bytearray(actions)
        self.on: list[int] = []


def _rewrite(out: bytearray, old: list[int], new: list[int]) -> None:
    """Turn ``out`` from the mask of indices ``old`` into that of ``new`` (both ascending)."""
    i = j = 0
    n, m = len(old), len(new)
    while i < n and j < m:
        a, b = old[i], new[j]
        if a == b:
            i += 1
            j += 1
        elif a < b:
            out[a] = 0
            i += 1
        else:
            out[b] = 1
            j += 1
    for k in range(i, n):
        out[old[k]] = 0
    for k in range(j, m):
        out[new[k]] = 1


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
        self.phase = -1
        self.turn_seat = -1
        self.third = False
        self.source = -1
        self.target = -1
        self.scalars = [0] * 6
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


def _same_mask(legal: LegalActions, last: LegalActions) -> bool:
    """``legal`` gives the mask ``last`` gave: the same phase and choices, the attacks' source armies aside
    (the mask shows their dice only)."""
    if (
        legal.phase is not last.phase
        or legal.can_end != last.can_end
        or legal.defend_max != last.defend_max
        or legal.occupy_min != last.occupy_min
        or legal.occupy_max != last.occupy_max
        or legal.place_min != last.place_min
        or legal.place_max != last.place_max
        or len(legal.trades) != len(last.trades)
        or legal.claim != last.claim
        or legal.headquarters != last.headquarters
        or legal.place_territories != last.place_territories
        or legal.fortify != last.fortify
    ):
        return False
    attacks, before = legal.attacks, last.attacks
    if len(attacks) != len(before):
        return False
    for k in range(len(attacks)):
        a, b = attacks[k], before[k]
        if a.source != b.source or a.target != b.target or a.max_dice != b.max_dice:
            return False
    return True
