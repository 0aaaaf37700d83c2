"""The game state: flat arrays indexed by territory id, one seeded stream of dice, and the questions asked
of it.

How each kind of action changes a state lives beside it: ``engine.setup`` (claiming, placing the starting
armies, choosing headquarters), ``engine.turns`` (a turn's phases and the end of the game) and
``engine.combat`` (the dice, captures and move-ins); ``engine.game`` starts games and holds the table
that applies an action by its kind.

Two paths on purpose (as in python-chess): ``apply(action, seat)`` checks the action against
``legal_actions()`` and raises a typed error; ``apply_unchecked(action)`` trusts its caller (benchmarks,
re-simulation of verified replays). Both mutate the state and return the events that describe the change;
``clone()`` first if the previous state is needed.
"""

from __future__ import annotations

import enum
import hashlib
import json
from collections import deque
from collections.abc import Callable
from itertools import combinations
from typing import Any

from engine.actions import Action, Attack, Phase
from engine.actions import PlayerStatus as PlayerStatus  # re-exported: callers import it from here
from engine.board import Board, CardDesign, Territory
from engine.dice import DICE_VERSION, Dice, make_dice
from engine.errors import MalformedActionError, NotYourTurnError
from engine.events import Event
from engine.legal import AttackOption, FortifyOption, LegalActions, check_well_formed
from engine.rules import FortifyMode, Objective, Rules, SetupMode, TerritoryBonus

UNCLAIMED = -1
OWN_ARMIES_PER_SETUP_TURN = 2


class Termination(enum.StrEnum):
    CONQUEST = "conquest"
    """Every other player was eliminated."""
    TURN_CAP = "turn_cap"
    """The rules' turn cap was reached; survivors ranked by territories, then armies."""
    HEADQUARTERS = "headquarters"
    """Capital Risk: a player held the headquarters its goal asks for; it is first, the rest as at the cap."""
    MISSION = "mission"
    """Secret Mission Risk: a player completed its mission; it is first, the rest as at the cap."""


def is_set(designs: tuple[CardDesign, ...]) -> bool:
    """Three alike, one of each, or any two plus a wild (a wild stands for any design)."""
    if CardDesign.WILD in designs:
        return True
    return designs[0] == designs[1] == designs[2] or len(set(designs)) == 3


class Goal:
    """How a game is won besides eliminating everyone: the hooks the setup and the turns call.

    Declared here, beside the state that holds one, so that ``engine.goals`` (Capital Risk's headquarters,
    Secret Mission Risk's missions) can build on the state without the state importing it. These defaults
    deal nothing, stage nothing before the first turn and reveal nothing.
    """

    termination = ""
    """``Termination`` value of a game this goal ends."""

    def deal(self, state: GameState, events: list[Event]) -> None:
        """At game start, after the roll for the first player."""

    def stage(self, state: GameState) -> bool:
        """When the setup is over: start a stage of decisions before the first turn (True) or not."""
        return False

    def reserved_cards(self, state: GameState) -> frozenset[int]:
        """Cards kept out of the draw pile."""
        return frozenset()

    def achieved(self, state: GameState, seat: int) -> bool:
        raise NotImplementedError

    def winner(self, state: GameState) -> int:
        """A seat whose goal is met (the seat whose turn it is first, then in turn order), or -1."""
        first = state.turn_seat
        for step in range(state.seats):
            seat = (first + step) % state.seats
            if state.status[seat] == PlayerStatus.ALIVE and self.achieved(state, seat):
                return seat
        return -1

    def reveal(self, state: GameState, events: list[Event]) -> None:
        """When the game ends, whatever the reason."""


Handler = Callable[["GameState", Any, list[Event]], None]
"""How one kind of action changes a state (``engine.game.APPLY`` holds one per kind)."""


_STATE_FIELDS = (
    "_handlers",
    "armies",
    "attack_phase",
    "attacker",
    "board",
    "bonus_used",
    "captured_this_turn",
    "deck",
    "dice",
    "eliminated",
    "eliminated_by",
    "elimination_trade",
    "end_reason",
    "first_seat",
    "goal",
    "hands",
    "headquarters",
    "missions",
    "neutral",
    "owner",
    "pending_attack",
    "pending_occupy",
    "phase",
    "placed_this_turn",
    "places",
    "received",
    "reinforcements",
    "rules",
    "seats",
    "seed",
    "setup_left",
    "setup_neutral_done",
    "setup_step",
    "status",
    "territory_count",
    "to_act",
    "trades_done",
    "turn",
    "turn_seat",
)
"""Every attribute of a GameState (its slots; ``clone`` copies them all)."""


class GameState:
    """One game. Seats are 0..seats-1; in the two-player games the third army is owner ``seats``."""

    __slots__ = _STATE_FIELDS

    def __init__(
        self,
        rules: Rules,
        seats: int,
        seed: int,
        board: Board,
        goal: Goal | None,
        handlers: dict[type, Handler],
        dice_version: int = DICE_VERSION,
    ) -> None:
        """A new game before its first decision; ``engine.game.new_game`` makes one and starts it."""
        self.rules = rules
        self.board = board
        self.seats = seats
        self.seed = seed
        self.dice: Dice = make_dice(dice_version, seed)
        """Every random choice of the game draws from it, in order (``engine.dice``)."""
        self.neutral = seats if rules.neutral else -1
        owners = seats + (1 if rules.neutral else 0)
        self.owner = [UNCLAIMED] * board.size
        self.armies = [0] * board.size
        self.territory_count = [0] * owners
        self.hands: list[list[int]] = [[] for _ in range(seats)]
        self.deck: deque[int] = deque()
        self.trades_done = 0
        self.status = [PlayerStatus.ALIVE] * seats + ([PlayerStatus.NEUTRAL] if rules.neutral else [])
        self.eliminated: list[int] = []
        self.eliminated_by = [-1] * seats
        """Who eliminated each seat (-1: still in; ``seats``: the Allied Army)."""
        self.goal = goal
        self._handlers = handlers
        """How ``apply_unchecked`` applies each kind of action (``engine.game`` picks the table)."""
        self.headquarters = [-1] * seats
        """Capital Risk: each seat's headquarters territory (-1 until chosen)."""
        self.missions = [-1] * seats
        """Secret Mission Risk: each seat's mission (index into ``engine.goals.MISSIONS``)."""
        self.phase = Phase.SETUP_CLAIM
        self.turn = 0
        self.turn_seat = 0
        self.to_act = 0
        self.first_seat = 0
        self.reinforcements = 0
        self.received = 0
        """Armies the seat whose turn it is got this turn (territories, continents, sets, +2s): the
        Allied Army gets half."""
        self.setup_left = [rules.starting_armies_for(seats)] * owners
        self.setup_step = 0
        self.setup_neutral_done = False
        self.bonus_used = False
        self.captured_this_turn = False
        self.placed_this_turn = False
        self.elimination_trade = False
        self.pending_attack: Attack | None = None
        self.attacker = 0
        """The seat that ordered the pending or last attack (the opponent commands the Allied Army)."""
        self.attack_phase = Phase.ATTACK
        """Where rolls and move-ins return to: ATTACK, or ALLIED_ATTACK."""
        self.pending_occupy: tuple[Territory, Territory, int, bool] | None = None
        """(source, target, minimum, eliminated someone) while a move-in is owed."""
        self.places: tuple[int, ...] = ()
        self.end_reason = ""

    # ------------------------------------------------------------------ queries

    def is_over(self) -> bool:
        return self.phase == Phase.GAME_OVER

    def next_trade_value(self) -> int:
        return self.rules.trade_value(self.trades_done)

    def must_trade(self) -> bool:
        hand = len(self.hands[self.to_act]) if 0 <= self.to_act < self.seats else 0
        if self.elimination_trade:
            return hand > self.rules.elimination_trade_down_to
        return not self.placed_this_turn and hand >= self.rules.forced_trade_at

    def may_trade(self) -> bool:
        if self.phase != Phase.REINFORCE:
            return False
        if self.elimination_trade:
            return self.must_trade() or (self.rules.elimination_extra_trades and not self.placed_this_turn)
        return not self.placed_this_turn

    def tradeable_sets(self, seat: int) -> list[tuple[int, int, int]]:
        """Every set of three cards in ``seat``'s hand, as sorted card-id triples."""
        design = self.board.card_design
        hand = sorted(self.hands[seat])
        return [(a, b, c) for a, b, c in combinations(hand, 3) if is_set((design(a), design(b), design(c)))]

    def bonus_territories(self, seat: int, cards: tuple[int, ...]) -> tuple[Territory, ...]:
        """The pictured territories of ``cards`` that ``seat`` holds and would get the +2 now."""
        rules = self.rules
        if not rules.territory_bonus or (
            self.bonus_used and rules.territory_bonus_mode == TerritoryBonus.ONCE_PER_TURN
        ):
            return ()
        return tuple(c for c in cards if c < self.board.size and self.owner[c] == seat)

    def territories_of(self, who: int) -> tuple[Territory, ...]:
        """The territories ``who`` holds (``UNCLAIMED``: the empty ones), by id."""
        owner = self.owner
        # A list comprehension over indices: most territories fail the test and never build a tuple.
        return tuple([t for t in range(len(owner)) if owner[t] == who])

    def legal_actions(self) -> LegalActions:
        """What the seat to act may do now (``seat`` -1 and nothing legal once the game is over)."""
        phase = self.phase
        seat = self.to_act
        if phase == Phase.SETUP_CLAIM:
            return LegalActions(phase, seat, claim=self.territories_of(UNCLAIMED))
        if phase == Phase.SETUP_PLACE:
            if self.rules.setup == SetupMode.NEUTRAL_PILES and not self.own_setup_due():
                neutral = self.territories_of(self.neutral)
                return LegalActions(
                    phase,
                    seat,
                    place_territories=neutral,
                    place_min=1,
                    place_max=1,
                    place_neutral=True,
                    army=self.neutral,
                )
            most = 1
            if self.rules.setup == SetupMode.NEUTRAL_PILES:
                most = min(OWN_ARMIES_PER_SETUP_TURN - self.setup_step, self.setup_left[seat])
            own = self.territories_of(seat)
            return LegalActions(phase, seat, place_territories=own, place_min=1, place_max=most)
        if phase == Phase.REINFORCE:
            trades: tuple[tuple[int, int, int], ...] = ()
            bonus: tuple[tuple[Territory, ...], ...] = ()
            if self.may_trade():
                trades = tuple(self.tradeable_sets(seat))
                bonus = tuple(self.bonus_territories(seat, s) for s in trades)
            must = self.must_trade()
            if must or not self.reinforcements:
                return LegalActions(phase, seat, trades=trades, bonus_territories=bonus, must_trade=must)
            own = self.territories_of(seat)
            return LegalActions(
                phase,
                seat,
                trades=trades,
                bonus_territories=bonus,
                place_territories=own,
                place_min=1,
                place_max=self.reinforcements,
            )
        if phase == Phase.ATTACK:
            return LegalActions(phase, seat, attacks=tuple(self._attack_options(seat)), can_end=True)
        if phase == Phase.DEFEND:
            assert self.pending_attack is not None
            target = self.pending_attack.target
            army = self.neutral if self.owner[target] == self.neutral else -1
            return LegalActions(phase, seat, defend_max=min(2, self.armies[target]), army=army)
        if phase == Phase.OCCUPY:
            assert self.pending_occupy is not None
            source, _, minimum, _ = self.pending_occupy
            army = self.neutral if self.owner[source] == self.neutral else -1
            return LegalActions(
                phase, seat, occupy_min=minimum, occupy_max=self.armies[source] - 1, army=army
            )
        if phase == Phase.FORTIFY:
            return LegalActions(phase, seat, fortify=tuple(self._fortify_options(seat)), can_end=True)
        if phase == Phase.CHOOSE_HEADQUARTERS:
            return LegalActions(phase, seat, headquarters=self.territories_of(seat))
        if phase == Phase.ALLIED_REINFORCE:
            allied = self.territories_of(self.neutral)
            return LegalActions(
                phase,
                seat,
                place_territories=allied,
                place_min=1,
                place_max=self.reinforcements,
                place_neutral=True,
                army=self.neutral,
            )
        if phase == Phase.ALLIED_ATTACK:
            # 001: "When a player is commanding Allied forces s/he may not attack his/her own territories."
            attacks = self._attack_options(self.neutral, only_against=self.turn_seat)
            return LegalActions(phase, seat, attacks=tuple(attacks), can_end=True, army=self.neutral)
        return LegalActions(phase, -1)

    def _attack_options(self, attacker: int, only_against: int = -1) -> list[AttackOption]:
        """Attacks from ``attacker``'s territories on any other owner's (or only on ``only_against``'s)."""
        owner, armies, neighbours = self.owner, self.armies, self.board.neighbours
        options = []
        for t, o in enumerate(owner):
            if o == attacker and armies[t] > 1:
                dice = min(3, armies[t] - 1)
                for n in neighbours[t]:
                    if owner[n] != attacker and only_against in (-1, owner[n]):
                        # tuple.__new__: AttackOption's generated __new__ is interpreted Python.
                        options.append(tuple.__new__(AttackOption, (t, n, dice, armies[t])))
        return options

    def _fortify_options(self, seat: int) -> list[FortifyOption]:
        owner, armies, neighbours = self.owner, self.armies, self.board.neighbours
        connected = self.rules.fortify == FortifyMode.CONNECTED
        component = self._components(seat) if connected else []
        options = []
        for t, o in enumerate(owner):
            if o != seat or armies[t] < 2:
                continue
            if connected:
                targets = tuple(u for u in range(len(owner)) if component[u] == component[t] and u != t)
            else:
                targets = tuple(n for n in neighbours[t] if owner[n] == seat)
            if targets:
                options.append(FortifyOption(t, targets, armies[t] - 1))
        return options

    def _components(self, seat: int) -> list[int]:
        """Connected-component label of each territory of ``seat`` (-1 for others)."""
        label = [-1] * len(self.owner)
        for start, o in enumerate(self.owner):
            if o != seat or label[start] != -1:
                continue
            label[start] = start
            stack = [start]
            while stack:
                t = stack.pop()
                for n in self.board.neighbours[t]:
                    if self.owner[n] == seat and label[n] == -1:
                        label[n] = start
                        stack.append(n)
        return label

    def own_setup_due(self) -> bool:
        """Neutral-piles setup: the seat to act still owes armies of its own this setup turn."""
        return self.setup_step < OWN_ARMIES_PER_SETUP_TURN and self.setup_left[self.to_act] > 0

    # ------------------------------------------------------------------ applying actions

    def apply(
        self, action: object, seat: int | None = None, legal: LegalActions | None = None
    ) -> list[Event]:
        """Check ``action`` (by ``seat``, if given) against the rules, apply it and return its events.

        ``legal`` is this state's ``legal_actions()`` when the caller already has them (the server built
        them for its DecisionRequest); they are computed here otherwise.

        Raises:
            NotYourTurnError: ``seat`` is not the seat to act.
            MalformedActionError: not a well-formed action.
            IllegalActionError: breaks the rules now; the message says what would have been legal.
        """
        if seat is not None and seat != self.to_act:
            who = "nobody (the game is over)" if self.to_act < 0 else f"seat {self.to_act}"
            raise NotYourTurnError(f"seat {seat} tried to act in {self.phase.name}, but {who} is to act")
        if legal is None:
            legal = self.legal_actions()
        well_formed = legal.check_form(action)
        try:
            check_well_formed(well_formed, self.board.size, self.board.card_count)
        except MalformedActionError as bad:
            raise MalformedActionError(f"{bad}; legal now: {legal.describe()}") from None
        legal.check_legal(well_formed)
        return self.apply_unchecked(well_formed)

    def apply_unchecked(self, action: Action) -> list[Event]:
        """Apply a legal action without checking it. Wrong input corrupts the state."""
        handler = self._handlers.get(type(action))
        if handler is None:
            raise TypeError(f"not an action: {action!r}")
        events: list[Event] = []
        handler(self, action, events)
        return events

    # ------------------------------------------------------------------ copies and snapshots

    def clone(self) -> GameState:
        # Compiled (mypyc), __new__ runs __init__.
        other = GameState(
            self.rules, self.seats, self.seed, self.board, self.goal, self._handlers, self.dice.version
        )
        for name in _STATE_FIELDS:
            setattr(other, name, getattr(self, name))
        other.owner = list(self.owner)
        other.armies = list(self.armies)
        other.territory_count = list(self.territory_count)
        other.hands = [list(h) for h in self.hands]
        other.deck = deque(self.deck)
        other.status = list(self.status)
        other.eliminated = list(self.eliminated)
        other.setup_left = list(self.setup_left)
        other.eliminated_by = list(self.eliminated_by)
        other.headquarters = list(self.headquarters)
        other.missions = list(self.missions)
        other.dice = self.dice.copy()
        return other

    def snapshot(self) -> dict[str, Any]:
        """Every fact of the state as plain data (the dice as their stream's position)."""
        snapshot: dict[str, Any] = {
            "phase": self.phase.name,
            "turn": self.turn,
            "turn_seat": self.turn_seat,
            "to_act": self.to_act,
            "owner": list(self.owner),
            "armies": list(self.armies),
            "hands": [list(h) for h in self.hands],
            "deck": list(self.deck),
            "trades_done": self.trades_done,
            "reinforcements": self.reinforcements,
            "setup_left": list(self.setup_left),
            "status": [s.name for s in self.status],
            "eliminated": list(self.eliminated),
            "pending_attack": list(self.pending_attack) if self.pending_attack else None,
            "pending_occupy": list(self.pending_occupy) if self.pending_occupy else None,
            "flags": [
                self.bonus_used,
                self.captured_this_turn,
                self.placed_this_turn,
                self.elimination_trade,
                self.setup_step,
                self.setup_neutral_done,
            ],
            "places": list(self.places),
            "end_reason": self.end_reason,
            "rng": self.dice.position(),
        }
        if self.rules.objective != Objective.CONQUEST or self.rules.allied_army:
            # Only in the variants, so classic fingerprints recorded before them still verify.
            snapshot["variant"] = {
                "eliminated_by": list(self.eliminated_by),
                "headquarters": list(self.headquarters),
                "missions": list(self.missions),
                "received": self.received,
                "attacker": self.attacker,
                "attack_phase": self.attack_phase.name,
            }
        return snapshot

    def fingerprint(self) -> str:
        """SHA-256 of the snapshot: equal fingerprints mean equal states."""
        return hashlib.sha256(json.dumps(self.snapshot(), sort_keys=True).encode()).hexdigest()
