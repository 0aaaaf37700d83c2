"""The fixed-size encoding a learned policy sees: one observation vector and one flat action mask.

The one piece of code for both sides of training: ``server.train`` (PettingZoo and Gymnasium over the
engine) and ``conquest_sdk.policy`` (a policy playing on the server) each turn what they hold into the same
plain inputs (``Layout``, ``View``, ``Choices``), in the wire's terms, and call the functions here, so a
policy trained offline sees on the ladder exactly the arrays it was trained on. Needs numpy (the SDK's
``train`` extra, or the server's ``conquest-server[train]``); only ``conquest_sdk.policy`` imports this
module. ``docs/training.md`` gives the layouts.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from typing import NamedTuple, Protocol

import numpy as np
import numpy.typing as npt

PHASES = 12
"""Wire Phase numbers 0..11 (PHASE_UNSPECIFIED .. PHASE_ALLIED_ATTACK)."""
STATUS_ALIVE = 1
"""The wire's PLAYER_STATUS_ALIVE."""
TRADE_SLOTS = 32
"""Card sets the mask can offer: the first TRADE_SLOTS of ``LegalActions.trades`` in listed order."""
DEFEND_SLOTS = 3
BUCKETS = 3
"""Army counts per move: the least, the middle ((least + most) // 2) and the most."""
ATTACK_MODES = 2
"""0: roll once; 1: roll on until the target falls or the source is down to 1 army (repeat_until=1)."""


class View(NamedTuple):
    """What one seat sees at a decision, in the wire's numbers (``Observation`` in proto/game.proto)."""

    seat: int
    phase: int
    """Wire Phase number (the engine's Phase + 1)."""
    turn: int
    turn_seat: int
    owners: Sequence[int]
    armies: Sequence[int]
    hand: Sequence[int]
    hand_sizes: Sequence[int]
    statuses: Sequence[int]
    """Wire PlayerStatus numbers by seat, then the third army's when there is one."""
    deck_size: int
    trades_done: int
    next_trade_value: int
    reinforcements: int
    pending_source: int
    pending_target: int
    pending_count: int
    headquarters: Sequence[int]
    mission: int


class Seen(Protocol):
    """The fields of an observation that the wire's ``Observation`` and the engine's share, name and
    meaning (the rest differ in form: see ``view``)."""

    @property
    def turn(self) -> int: ...
    @property
    def turn_seat(self) -> int: ...
    @property
    def owners(self) -> Sequence[int]: ...
    @property
    def armies(self) -> Sequence[int]: ...
    @property
    def hand(self) -> Sequence[int]: ...
    @property
    def hand_sizes(self) -> Sequence[int]: ...
    @property
    def deck_size(self) -> int: ...
    @property
    def trades_done(self) -> int: ...
    @property
    def next_trade_value(self) -> int: ...
    @property
    def reinforcements(self) -> int: ...
    @property
    def headquarters(self) -> Sequence[int]: ...
    @property
    def mission(self) -> int: ...


def view(seat: int, seen: Seen, phase: int, statuses: Sequence[int], pending: tuple[int, int, int]) -> View:
    """The View of ``seen`` for ``seat``, with the fields whose form differs given in the wire's numbers:
    ``phase`` and ``statuses`` (wire Phase and PlayerStatus numbers), ``pending`` (source, target, count;
    (-1, -1, 0) when no attack or move-in is pending). ``conquest_sdk.policy`` calls it on a
    DecisionRequest's Observation, ``server.train`` on the engine's."""
    return View(
        seat,
        phase,
        seen.turn,
        seen.turn_seat,
        seen.owners,
        seen.armies,
        seen.hand,
        seen.hand_sizes,
        statuses,
        seen.deck_size,
        seen.trades_done,
        seen.next_trade_value,
        seen.reinforcements,
        pending[0],
        pending[1],
        pending[2],
        seen.headquarters,
        seen.mission,
    )


class Choices(NamedTuple):
    """What the seat may do (``LegalActions`` in proto/game.proto, free moves one per pair)."""

    claim: Sequence[int]
    headquarters: Sequence[int]
    place_territories: Sequence[int]
    place_min: int
    place_max: int
    trades: Sequence[Sequence[int]]
    """Three card ids per set, in the order the legal actions list them."""
    attacks: Sequence[tuple[int, int, int, int]]
    """(source, target, max_dice, source_armies)."""
    defend_max: int
    occupy_min: int
    occupy_max: int
    fortifies: Sequence[tuple[int, int, int]]
    """(source, target, max_armies)."""
    can_end: bool
    third_army: bool
    """The decision commands the third army (neutral or Allied), not the seat's own."""


Decoded = tuple[str, tuple[int | tuple[int, ...], ...]]
"""An action as (kind, fields): the kind's name in ``engine.actions.ACTION_KINDS`` and the wire's
``Action`` oneof, and its fields in the engine's order."""


class Layout:
    """The fixed sizes and offsets of one game's encoding: the map, the seats, the rules that shape it.

    Action indices, in blocks (T territories, A attack pairs, F free-move pairs):
    claim T | headquarters T | place T x 3 buckets | trade TRADE_SLOTS | attack A x 3 dice x 2 modes |
    defend 3 dice | occupy 3 buckets | fortify F x 3 buckets | end 1.
    """

    def __init__(
        self,
        neighbours: Sequence[Sequence[int]],
        cards: int,
        seats: int,
        missions: int,
        connected_fortify: bool,
    ) -> None:
        t = len(neighbours)
        self.territories = t
        self.cards = cards
        self.seats = seats
        self.missions = missions
        self.attack_pairs = tuple((a, b) for a in range(t) for b in sorted(neighbours[a]))
        """Every (source, target) of adjacent territories: the attacks the map allows."""
        self.fortify_pairs = (
            tuple((a, b) for a in range(t) for b in range(t) if a != b)
            if connected_fortify
            else self.attack_pairs
        )
        sizes = {
            "claim": t,
            "choose_headquarters": t,
            "place": t * BUCKETS,
            "trade_cards": TRADE_SLOTS,
            "attack": len(self.attack_pairs) * 3 * ATTACK_MODES,
            "choose_defence": DEFEND_SLOTS,
            "occupy": BUCKETS,
            "fortify": len(self.fortify_pairs) * BUCKETS,
            "end_phase": 1,
        }
        # Each action block's first index; the size of the flat action space (the mask's length).
        self.offsets, self.actions = _lay_out(sizes)
        self._blocks = tuple(self.offsets.items())
        self._starts = [start for _, start in self._blocks]
        self._attack_first = {
            pair: self.offsets["attack"] + i * 3 * ATTACK_MODES for i, pair in enumerate(self.attack_pairs)
        }
        self._fortify_first = {
            pair: self.offsets["fortify"] + i * BUCKETS for i, pair in enumerate(self.fortify_pairs)
        }
        o = self.seats + 1  # owner columns: the seats from the viewer on, then the third army
        parts = {
            "owners": t * o,
            "armies": t,
            "hand": cards,
            "hand_sizes": seats,
            "alive": seats,
            "phase": PHASES,
            "turn_seat": seats,
            "third_army": 1,
            "pending_source": t,
            "pending_target": t,
            "scalars": 6,
            "own_headquarters": t,
            "other_headquarters": t,
            "mission": missions,
        }
        # Each observation block's start; the length of the observation vector.
        self.observation_offsets, self.observation_size = _lay_out(parts)
        at = self.observation_size
        self._at = tuple(self.observation_offsets.values())
        # For each viewing seat, by territory * (seats + 2) + owner + 1: where the one-hot of that owner
        # goes (owner -1, unclaimed: the spare slot past the end, which ``observation`` drops).
        self._owner_base = np.arange(t, dtype=np.intp) * (seats + 2) + 1
        self._owner_slots = [
            np.array(
                [
                    at if owner < 0 else territory * o + (seats if owner >= seats else (owner - seat) % seats)
                    for territory in range(t)
                    for owner in range(-1, seats + 1)
                ],
                np.intp,
            )
            for seat in range(seats)
        ]

    # ------------------------------------------------------------------ observation

    def observation(self, view: View, third_army: bool) -> npt.NDArray[np.float32]:
        """The observation vector of ``view`` (float32, ``observation_size`` long; docs/training.md).

        Seats are counted from the viewer: owner column 0 is the viewer, 1 the next seat, ...; column
        ``seats`` is the third army."""
        s, seat, off = self.seats, view.seat, self._at
        # One spare slot at the end takes the one-hot of unclaimed territories; the view leaves it out.
        buf = np.zeros(self.observation_size + 1, np.float32)
        buf[self._owner_slots[seat][self._owner_base + np.array(view.owners, np.intp)]] = 1.0
        buf[off[1] : off[1] + self.territories] = view.armies
        for card in view.hand:
            buf[off[2] + card] = 1.0
        for k in range(s):
            other = (seat + k) % s
            buf[off[3] + k] = view.hand_sizes[other]
            buf[off[4] + k] = view.statuses[other] == STATUS_ALIVE
        buf[off[5] + view.phase] = 1.0
        if view.turn_seat >= 0:
            buf[off[6] + (view.turn_seat - seat) % s] = 1.0
        buf[off[7]] = third_army
        if view.pending_source >= 0:
            buf[off[8] + view.pending_source] = 1.0
            buf[off[9] + view.pending_target] = 1.0
        at = off[10]
        buf[at : at + 6] = (
            view.pending_count,
            view.turn,
            view.deck_size,
            view.trades_done,
            view.next_trade_value,
            view.reinforcements,
        )
        for k, territory in enumerate(view.headquarters):
            if territory >= 0:
                buf[off[11 if k == seat else 12] + territory] = 1.0
        if view.mission >= 0 and self.missions:
            buf[off[13] + view.mission] = 1.0
        return buf[:-1]

    # ------------------------------------------------------------------ actions

    def mask(self, choices: Choices) -> npt.NDArray[np.int8]:
        """1 for every action index that is legal now (int8, ``actions`` long).

        Each index names one distinct legal action: count buckets that would repeat a smaller bucket's
        count are left out."""
        off = self.offsets
        out = np.zeros(self.actions, np.int8)
        if choices.claim:
            out[off["claim"] + np.array(choices.claim, np.intp)] = 1
        if choices.headquarters:
            out[off["choose_headquarters"] + np.array(choices.headquarters, np.intp)] = 1
        if choices.place_territories:
            base = off["place"] + BUCKETS * np.array(choices.place_territories, np.intp)
            for b in buckets(choices.place_min, choices.place_max):
                out[base + b] = 1
        if choices.trades:
            out[off["trade_cards"] : off["trade_cards"] + min(len(choices.trades), TRADE_SLOTS)] = 1
        if choices.attacks:
            first = self._attack_first
            for source, target, max_dice, _ in choices.attacks:
                at = first[source, target]
                out[at : at + max_dice * ATTACK_MODES] = 1
        if choices.defend_max:
            out[off["choose_defence"] : off["choose_defence"] + choices.defend_max] = 1
        if choices.occupy_max:
            for b in buckets(choices.occupy_min, choices.occupy_max):
                out[off["occupy"] + b] = 1
        if choices.fortifies:
            first = self._fortify_first
            slots = [
                first[source, target] + b
                for source, target, most in choices.fortifies
                for b in _MOVE_BUCKETS[min(most, 3)]
            ]
            out[slots] = 1
        if choices.can_end:
            out[off["end_phase"]] = 1
        return out

    def decode(self, index: int, choices: Choices) -> Decoded:
        """The action ``index`` stands for under ``choices`` (which give the army counts and card sets).
        The caller checks ``index`` against the mask first: this only reads the layout.

        Raises:
            ValueError: ``index`` is outside 0..actions-1, or names a card set or attack pair that
                ``choices`` do not offer.
        """
        kind, local = self._block(index)
        if kind in ("claim", "choose_headquarters"):
            return kind, (local,)
        if kind == "place":
            territory, b = divmod(local, BUCKETS)
            return kind, (territory, bucket_count(choices.place_min, choices.place_max, b))
        if kind == "trade_cards":
            if local >= len(choices.trades):
                raise ValueError(f"trade slot {local} is empty: {len(choices.trades)} card sets are offered")
            return kind, (tuple(choices.trades[local]), -1)
        if kind == "attack":
            pair, rest = divmod(local, 3 * ATTACK_MODES)
            dice, mode = divmod(rest, ATTACK_MODES)
            source, target = self.attack_pairs[pair]
            return kind, (source, target, dice + 1, mode)
        if kind == "choose_defence":
            return kind, (local + 1,)
        if kind == "occupy":
            return kind, (bucket_count(choices.occupy_min, choices.occupy_max, local),)
        if kind == "fortify":
            pair, b = divmod(local, BUCKETS)
            source, target = self.fortify_pairs[pair]
            most = next((m for s, t, m in choices.fortifies if s == source and t == target), 1)
            return kind, (source, target, bucket_count(1, most, b))
        return kind, ()

    def describe(self, index: int) -> str:
        """``index`` in words, without the decision's counts (for error messages)."""
        if not 0 <= index < self.actions:
            return f"action {index} (the action space is 0..{self.actions - 1})"
        kind, local = self._block(index)
        if kind == "attack":
            pair, rest = divmod(local, 3 * ATTACK_MODES)
            dice, mode = divmod(rest, ATTACK_MODES)
            source, target = self.attack_pairs[pair]
            how = "roll on" if mode else "one roll"
            return f"action {index} (attack {source}->{target} with {dice + 1} dice, {how})"
        if kind in ("place", "fortify"):
            item, b = divmod(local, BUCKETS)
            what = f"territory {item}" if kind == "place" else "{}->{}".format(*self.fortify_pairs[item])
            return f"action {index} ({kind} {what}, {('least', 'middle', 'most')[b]} armies)"
        return f"action {index} ({kind} {local})"

    def _block(self, index: int) -> tuple[str, int]:
        if not 0 <= index < self.actions:
            raise ValueError(f"action {index} is outside the action space 0..{self.actions - 1}")
        kind, start = self._blocks[bisect.bisect_right(self._starts, index) - 1]
        return kind, index - start


def _lay_out(sizes: dict[str, int]) -> tuple[dict[str, int], int]:
    """Each block's start when the blocks follow one another in order, and the total size."""
    starts: dict[str, int] = {}
    at = 0
    for name, size in sizes.items():
        starts[name] = at
        at += size
    return starts, at


def buckets(least: int, most: int) -> tuple[int, ...]:
    """The buckets that give distinct counts in least..most."""
    middle = (least + most) // 2
    return tuple(b for b, keep in enumerate((least < most, least < middle < most, True)) if keep)


_MOVE_BUCKETS = {1: (2,), 2: (0, 2), 3: (0, 1, 2)}
"""``buckets(1, most)`` by min(most, 3): the distinct buckets of a move of 1..most armies."""


def bucket_count(least: int, most: int, bucket: int) -> int:
    """The army count ``bucket`` stands for in least..most."""
    return (least, (least + most) // 2, most)[bucket]
