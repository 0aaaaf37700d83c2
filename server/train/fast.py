"""The environment's fast room: the action mask and the action of an index, built straight from the
engine's ``LegalActions``, and the per-step work of ``ConquestEnv`` (compiled with mypyc).

The plain construction is ``conquest_sdk.encoding`` over ``server.train.inputs``: ``Layout.mask(choices_of(
legal))`` and ``engine_action(Layout.decode(index, choices_of(legal)))``, what the SDK builds from a
DecisionRequest. ``Encoder`` gives the same arrays and actions (pinned for every ruleset, decision by
decision, by ``tests/train/test_train_fast.py``) without the intermediate objects, and with these tricks:

- each phase keeps its last mask: a decision whose legal actions give the same mask (same choices; an
  attack's source armies and counts that keep the same buckets do not show in the mask) gets the same
  read-only array, even after decisions of other phases in between (an attack after an occupation);
- a new mask is written into its phase's ``bytearray``, where only the indices that differ from that
  phase's last mask are rewritten, and handed to numpy with one ``np.frombuffer``; its indices are listed
  from runs made once (an attack option's, a placement's, a free move's) of shared int objects, so a mask
  makes no int object per index;
- the masked-in indices are listed, ascending, as the mask is made (``indices``: a random agent's draw
  needs no numpy call);
- the actions an index names on its own (claim, headquarters, attack, defence, end) are made once;
- ``Room`` does what the environment does at each step (the open decision's legal actions, mask and
  indices made once, a seat's observation from ``server.train.fast_observation``, the unchecked play of a
  masked-in index) in one compiled call.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from conquest_sdk.encoding import ATTACK_MODES, BUCKETS, TRADE_SLOTS, Choices, Layout
from engine.actions import Action, Fortify, Occupy, Phase, Place, TradeCards
from engine.events import Event
from engine.legal import LegalActions
from engine.state import GameState
from server.train.fast_observation import Observer
from server.train.inputs import engine_action

_PLACE, _TRADE, _OCCUPY, _FORTIFY = 1, 2, 3, 4
_BUCKETS: Final = BUCKETS
_TRADE_SLOTS: Final = TRADE_SLOTS
"""The encoding's constants as this module's own (read natively, not from another module's globals)."""
_READ = {"place": _PLACE, "trade_cards": _TRADE, "occupy": _OCCUPY, "fortify": _FORTIFY}
"""The action blocks whose counts or cards come from the legal actions: how ``action`` reads them."""
_FROMBUFFER: Final = np.frombuffer
_INT8: Final = np.dtype(np.int8)
_PIECE: Final = 64
"""Runs of zeros and ones a mask is joined from: every length below this, then its multiples."""
_BUCKET_SETS: Final = ((0, 1, 2), (0, 2), (2,))
"""Every set of distinct count buckets: all three, the least and the most, the most alone."""


def _bucket_set(least: int, most: int) -> int:
    """Which of ``_BUCKET_SETS`` is ``conquest_sdk.encoding.buckets(least, most)`` (the buckets that give
    distinct counts in least..most), natively."""
    if least < most:
        return 0 if least < (least + most) // 2 < most else 1
    return 2


def _bucket_count(least: int, most: int, bucket: int) -> int:
    """``conquest_sdk.encoding.bucket_count`` (the army count ``bucket`` stands for), natively."""
    if bucket == 0:
        return least
    return (least + most) // 2 if bucket == 1 else most


class Encoder:
    """The masks and actions of ``layout``'s encoding, for one game at a time (``reset`` when a new game
    starts); ``server.train.fast_observation.Observer`` makes the observation vectors."""

    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        t = layout.territories
        self._t = t
        self._actions = layout.actions
        off = layout.offsets
        self._claim = off["claim"]
        self._headquarters = off["choose_headquarters"]
        self._trade = off["trade_cards"]
        self._defend = off["choose_defence"]
        self._occupy = off["occupy"]
        self._end = off["end_phase"]
        self._box: list[Any] = list(range(self._actions))
        """Every index as an int object, shared by every mask's list of indices."""
        # The runs of indices a mask takes whole, as tuples of ``_box``'s ints: by territory and bucket set
        # (``_bucket_set``) a placement's; by (source * T + target) * 4 + dice an attack's; by
        # (source * T + target) * 3 + bucket set a free move's; by bucket set an occupation's.
        self._place_runs = [
            self._run(off["place"] + BUCKETS * x, _BUCKET_SETS[k]) for x in range(t) for k in range(3)
        ]
        self._attack_runs: list[tuple[Any, ...]] = [()] * (t * t * 4)
        for i, (a, b) in enumerate(layout.attack_pairs):
            first = off["attack"] + i * 3 * ATTACK_MODES
            for dice in (1, 2, 3):
                self._attack_runs[(a * t + b) * 4 + dice] = self._run(first, range(dice * ATTACK_MODES))
        self._fortify_runs: list[tuple[Any, ...]] = [()] * (t * t * 3)
        for i, (a, b) in enumerate(layout.fortify_pairs):
            for k in range(3):
                run = self._run(off["fortify"] + i * BUCKETS, _BUCKET_SETS[k])
                self._fortify_runs[(a * t + b) * 3 + k] = run
        self._occupy_runs = [self._run(self._occupy, _BUCKET_SETS[k]) for k in range(3)]
        self._move_sets = [2, *(_bucket_set(1, most) for most in (1, 2, 3))]
        """By min(most, 3): the bucket set of a move of 1..most armies."""
        pieces = range((self._actions + _PIECE - 1) // _PIECE + 1)
        self._zeros = [bytes(n) for n in range(_PIECE)] + [bytes(_PIECE * q) for q in pieces]
        self._ones = [b"\1" * n for n in range(_PIECE)] + [b"\1" * (_PIECE * q) for q in pieces]
        """Runs of zero bytes and of one bytes, by length below _PIECE then by multiples of it."""
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

    def _run(self, first: int, buckets: Iterable[int]) -> tuple[Any, ...]:
        """The indices first + b for b in ``buckets``, as ``_box``'s ints."""
        return tuple([self._box[first + b] for b in buckets])

    def reset(self) -> None:
        """Forget the last masks (a new game)."""
        self._last_mask: npt.NDArray[np.int8] = np.zeros(0, np.int8)
        self._last_bytes = b""
        self._work = {phase: _Work() for phase in Phase}
        self._last_indices: tuple[int, ...] = ()

    # ------------------------------------------------------------------ actions

    def mask(self, legal: LegalActions) -> npt.NDArray[np.int8]:
        """``Layout.mask(choices_of(legal))``, read-only; ``indices`` is then its masked-in indices."""
        work = self._work[legal.phase]
        last = work.legal
        if last is None or not _same_mask(legal, last):
            self._make(legal, work)
        self._last_mask, self._last_bytes, self._last_indices = work.mask, work.bytes, work.indices
        return work.mask

    def _make(self, legal: LegalActions, work: _Work) -> None:
        """Make the mask of ``legal`` in its phase's ``work``."""
        # The indices are listed as the shared int objects of ``_box`` (no int object made per index).
        box = self._box
        on: list[Any] = []
        t = self._t
        for territory in legal.claim:
            on.append(box[self._claim + territory])
        for territory in legal.headquarters:
            on.append(box[self._headquarters + territory])
        if legal.place_territories:
            runs, k = self._place_runs, _bucket_set(legal.place_min, legal.place_max)
            for territory in legal.place_territories:
                on.extend(runs[territory * 3 + k])
        for k in range(min(len(legal.trades), _TRADE_SLOTS)):
            on.append(box[self._trade + k])
        runs = self._attack_runs
        for option in legal.attacks:
            on.extend(runs[(option[0] * t + option[1]) * 4 + option[2]])
        for k in range(legal.defend_max):
            on.append(box[self._defend + k])
        if legal.occupy_max:
            on.extend(self._occupy_runs[_bucket_set(legal.occupy_min, legal.occupy_max)])
        runs = self._fortify_runs
        for free in legal.fortify:
            k = self._move_sets[min(free.max_armies, 3)]
            for target in free.targets:
                on.extend(runs[(free.source * t + target) * 3 + k])
        if legal.can_end:
            on.append(box[self._end])
        on_bytes = _joined(on, self._zeros, self._ones, self._actions)
        if on_bytes is None:  # written out of order, or twice: not seen in the engine's listings
            on = sorted(set(on))
            on_bytes = _joined(on, self._zeros, self._ones, self._actions) or b""
        work.legal, work.indices = legal, tuple(on)
        work.bytes, work.mask = on_bytes, _FROMBUFFER(on_bytes, _INT8)  # read-only: bytes

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
            return Place(local // _BUCKETS, _bucket_count(legal.place_min, legal.place_max, local % _BUCKETS))
        if how == _OCCUPY:
            return Occupy(_bucket_count(legal.occupy_min, legal.occupy_max, local))
        if how == _TRADE:
            return TradeCards(legal.trades[local], -1)
        source, target = self.layout.fortify_pairs[local // _BUCKETS]
        most = next((f.max_armies for f in legal.fortify if f.source == source and target in f.targets), 1)
        return Fortify(source, target, _bucket_count(1, most, local % _BUCKETS))


class Room:
    """What ``ConquestEnv`` does at every step, for one game at a time: the open decision's legal actions,
    mask and masked-in indices (made once a decision), a seat's observation, and the play of an index."""

    def __init__(self, layout: Layout) -> None:
        self.encoder = Encoder(layout)
        self.observer = Observer(layout)
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
        self.observer.reset()
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
                "observation": self.observer.observation(game, seat, legal.army >= 0),
                "action_mask": self._mask,
            }
        return {"observation": self.observer.observation(game, seat, False), "action_mask": self._no_mask}

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
        self.observer.note(game.apply_unchecked(self.encoder.action(index, legal)))
        self._legal = None
        self.decisions += 1
        if game.is_over() or len(game.eliminated) != self._finished:
            self._finished = len(game.eliminated)
            return -1
        return game.to_act

    def played(self, events: list[Event]) -> None:
        """The seat to act played an action, whose ``events`` are these, by other means than ``play``."""
        self.observer.note(events)
        self._legal = None
        self.decisions += 1
        self._finished = len(self.state().eliminated)


class _Work:
    """One phase's last mask: the legal actions it was made for, its masked-in indices, its bytes and the
    read-only array handed out."""

    def __init__(self) -> None:
        self.legal: LegalActions | None = None
        self.indices: tuple[int, ...] = ()
        self.bytes = b""
        self.mask: npt.NDArray[np.int8] = np.zeros(0, np.int8)


def _joined(on: list[Any], zeros: list[bytes], ones: list[bytes], size: int) -> bytes | None:
    """The mask of ``size`` bytes with the indices ``on`` set, joined from the runs of zeros and ones made
    once (by length below _PIECE, then by multiples of it); None when ``on`` is not strictly ascending."""
    pieces: list[bytes] = []
    done = start = end = 0  # bytes joined so far; the run of ones being read
    for index in on:
        i: int = index
        if i != end:
            if i < end:
                return None
            if end:
                _add(pieces, zeros, start - done)
                _add(pieces, ones, end - start)
                done = end
            start = i
        end = i + 1
    if end:
        _add(pieces, zeros, start - done)
        _add(pieces, ones, end - start)
        done = end
    _add(pieces, zeros, size - done)
    return b"".join(pieces)


def _add(pieces: list[bytes], made: list[bytes], length: int) -> None:
    """Add ``length`` bytes of ``made`` (runs of zeros or ones) to ``pieces``."""
    if length >= _PIECE:
        pieces.append(made[_PIECE + length // _PIECE])
    if length % _PIECE:
        pieces.append(made[length % _PIECE])


def _same_mask(legal: LegalActions, last: LegalActions) -> bool:
    """``legal`` gives the mask ``last`` gave: the same phase and choices, the attacks' source armies aside
    (the mask shows their dice only), and counts that keep the same buckets (``_bucket_set``)."""
    if (
        legal.phase is not last.phase
        or legal.can_end != last.can_end
        or legal.defend_max != last.defend_max
        or (legal.occupy_max != 0) != (last.occupy_max != 0)
        or _bucket_set(legal.occupy_min, legal.occupy_max) != _bucket_set(last.occupy_min, last.occupy_max)
        or _bucket_set(legal.place_min, legal.place_max) != _bucket_set(last.place_min, last.place_max)
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
