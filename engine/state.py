"""The game state and its transitions: flat arrays indexed by territory id, one seeded RNG.

Two paths on purpose (as in python-chess): ``apply(action, seat)`` checks the action against
``legal_actions()`` and raises a typed error; ``apply_unchecked(action)`` trusts its caller (benchmarks,
re-simulation of verified replays). Both mutate the state and return the events that describe the change;
``clone()`` first if the previous state is needed.
"""

from __future__ import annotations

import enum
import hashlib
import json
import random
from collections import deque
from collections.abc import Callable
from itertools import combinations
from typing import Any

from engine.actions import (
    Action,
    Attack,
    ChooseDefence,
    ChooseHeadquarters,
    Claim,
    EndPhase,
    Fortify,
    Occupy,
    Phase,
    Place,
    TradeCards,
)
from engine.actions import PlayerStatus as PlayerStatus  # re-exported: callers import it from here
from engine.board import Board, CardDesign, Territory
from engine.classic_map import CLASSIC
from engine.errors import MalformedActionError, NotYourTurnError, RulesConfigError
from engine.events import (
    Captured,
    CardsTaken,
    Claimed,
    Dealt,
    Drew,
    Eliminated,
    Event,
    FirstPlayerRolled,
    Fortified,
    GameEnded,
    HeadquartersChosen,
    HeadquartersRevealed,
    Occupied,
    Placed,
    Rolled,
    Traded,
    TurnEnded,
    TurnStarted,
)
from engine.goals import GOALS
from engine.legal import AttackOption, FortifyOption, LegalActions, check_well_formed
from engine.rules import DefenderDice, FortifyMode, Objective, Rules, SetupMode, TerritoryBonus

UNCLAIMED = -1
NEUTRAL_ARMIES_PER_SETUP_TURN = 1
OWN_ARMIES_PER_SETUP_TURN = 2
ALLIED_ARMIES_PER_TERRITORY = 2


# Members looked up once for the per-action paths: on Python 3.11 every ``Phase.ATTACK``-style lookup
# costs ~0.2 us (EnumType defines __getattr__), and a game makes thousands of them.
_REINFORCE, _ATTACK, _DEFEND, _OCCUPY, _FORTIFY, _ALLIED_REINFORCE, _ALLIED_ATTACK = (
    Phase.REINFORCE,
    Phase.ATTACK,
    Phase.DEFEND,
    Phase.OCCUPY,
    Phase.FORTIFY,
    Phase.ALLIED_REINFORCE,
    Phase.ALLIED_ATTACK,
)
_PENDING = frozenset((Phase.DEFEND, Phase.OCCUPY, Phase.GAME_OVER))
"""Phases in which a goal is not checked: a roll or move-in is still owed, or the game is over."""
_ALIVE = PlayerStatus.ALIVE
_CHOOSE_DEFENCE = DefenderDice.CHOOSE
_NEUTRAL_PILES = SetupMode.NEUTRAL_PILES


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


DICE_BITS = 13
"""Bits drawn per roll: 2**13 = 8192 is the smallest power of two holding 6**5 = 7776 outcomes."""
FIVE_DICE = 6**5


def _sorted_dice(count: int, encoded: int) -> tuple[int, ...]:
    """The first ``count`` base-6 digits of ``encoded`` as die faces 1..6, highest first."""
    return tuple(sorted((encoded // 6**i % 6 + 1 for i in range(count)), reverse=True))


_ATTACKER_DICE = [[_sorted_dice(n, v) for v in range(6**3)] for n in range(4)]
"""[dice][digits 0..2 of the draw]: the attacker's faces, highest first."""
_DEFENDER_DICE = [[_sorted_dice(n, v) for v in range(6**2)] for n in range(3)]
"""[dice][digits 3..4 of the draw]: the defender's faces, highest first."""


def roll_dice(
    getrandbits: Callable[[int], int], attacker: int, defender: int
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """One roll of ``attacker`` (1..3) and ``defender`` (1..2) dice, each sorted highest first.

    The exact derivation, so anyone can re-check a game's dice from its seed. Each roll takes one number
    k uniform in 0..7775 (= 6**5 - 1) from the game's ``random.Random(seed)``: k = getrandbits(13),
    drawn again while k >= 7776 (a rejection, so k is exactly uniform). Write k in base 6 as five digits,
    die i = (k // 6**i) % 6 + 1 for i = 0..4: dice 0, 1, 2 are the attacker's, dice 3, 4 the defender's;
    an attacker rolling fewer than 3 dice takes dice 0..attacker-1, a defender rolling 1 takes die 3, and
    the other digits are discarded. As k is uniform over all 6**5 outcomes, the five dice are independent
    and each uniform on 1..6.
    """
    k = getrandbits(DICE_BITS)
    while k >= FIVE_DICE:
        k = getrandbits(DICE_BITS)
    return _ATTACKER_DICE[attacker][k % 216], _DEFENDER_DICE[defender][k // 216]


_STATE_FIELDS = (
    "_handlers",
    "_random",
    "_rng",
    "armies",
    "attack_phase",
    "attacker",
    "board",
    "bonus_used",
    "captured_this_turn",
    "deck",
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

    def __init__(self, rules: Rules, seats: int, seed: int, board: Board = CLASSIC) -> None:
        """A new game before its first decision. Use ``new_game`` to also get the setup events."""
        self.rules = rules
        self.board = board
        self.seats = seats
        self.seed = seed
        self._rng = random.Random(seed)
        self._random = self._rng.random
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
        self.goal = GOALS[rules.objective]
        self._handlers = _APPLY if self.goal is None else _APPLY_THEN_CHECK_GOAL
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

    # ------------------------------------------------------------------ setup

    def _start(self) -> list[Event]:
        events: list[Event] = []
        self.first_seat = self._roll_for_first(events)
        self.to_act = self.first_seat
        if self.goal is not None:
            self.goal.deal(self, events)
        setup = self.rules.setup
        if setup in (SetupMode.CLAIM, SetupMode.ALLIED_CLAIM):
            self.phase = Phase.SETUP_CLAIM
            return events
        if setup == SetupMode.DEALT:
            order = list(range(self.board.size))
            self._rng.shuffle(order)
            for i, t in enumerate(order):
                self._occupy_at_setup(t, (self.first_seat + i) % self.seats)
        else:
            cards = list(range(self.board.size))
            self._rng.shuffle(cards)
            pile = self.board.size // 3
            for i, t in enumerate(cards):
                self._occupy_at_setup(t, min(i // pile, self.seats))
        events.append(Dealt(tuple(self.owner)))
        self.phase = Phase.SETUP_PLACE
        if sum(self.setup_left) == 0:
            self._start_play(events)
        return events

    def _roll_for_first(self, events: list[Event]) -> int:
        """Everyone rolls one die; the highest starts; a tie for highest rolls again among the tied."""
        tied = list(range(self.seats))
        rounds: list[tuple[int, ...]] = []
        while True:
            roll = [0] * self.seats
            for s in tied:
                roll[s] = int(self._random() * 6) + 1
            rounds.append(tuple(roll))
            best = max(roll)
            tied = [s for s in tied if roll[s] == best]
            if len(tied) == 1:
                events.append(FirstPlayerRolled(tuple(rounds), tied[0]))
                return tied[0]

    def _occupy_at_setup(self, t: Territory, owner: int) -> None:
        self.owner[t] = owner
        self.armies[t] = 1
        self.territory_count[owner] += 1
        self.setup_left[owner] -= 1

    def _next_setup_placer(self, after: int) -> int:
        """The next seat in turn order with armies left to place, or -1 when all are placed."""
        for step in range(1, self.seats + 1):
            seat = (after + step) % self.seats
            if self.setup_left[seat] > 0:
                return seat
        return -1

    def _start_play(self, events: list[Event]) -> None:
        """The setup is over: a goal's stage before the first turn (Capital Risk), or the first turn."""
        if self.goal is not None and self.goal.stage(self):
            return
        self._first_turn(events)

    def _first_turn(self, events: list[Event]) -> None:
        reserved = self.goal.reserved_cards(self) if self.goal is not None else frozenset()
        deck = [c for c in range(self.board.card_count) if c not in reserved]
        self._rng.shuffle(deck)
        self.deck = deque(deck)
        self.turn_seat = self.first_seat
        self._start_turn(self.first_seat, events)

    # ------------------------------------------------------------------ turns

    def _start_turn(self, seat: int, events: list[Event]) -> None:
        self.turn += 1
        self.turn_seat = seat
        self.to_act = seat
        self.phase = _REINFORCE
        self.bonus_used = False
        self.captured_this_turn = False
        self.placed_this_turn = False
        self.elimination_trade = False
        territory_armies = max(3, self.territory_count[seat] // 3)
        continent_armies = 0
        owner = self.owner
        for c, members in enumerate(self.board.continent_members):
            for t in members:
                if owner[t] != seat:
                    break
            else:
                continent_armies += self.board.continents[c].bonus
        self.reinforcements = self.received = territory_armies + continent_armies
        self.attack_phase = _ATTACK
        events.append(TurnStarted(seat, self.turn, territory_armies, continent_armies))

    def _end_turn(self, events: list[Event]) -> None:
        seat = self.turn_seat
        events.append(TurnEnded(seat))
        if self.rules.turn_cap and self.turn >= self.rules.turn_cap:
            self._finish(Termination.TURN_CAP, events)
            return
        for step in range(1, self.seats + 1):
            nxt = (seat + step) % self.seats
            if self.status[nxt] == _ALIVE:
                self._start_turn(nxt, events)
                return

    def _finish(self, reason: Termination, events: list[Event], winner: int = -1) -> None:
        self.phase = Phase.GAME_OVER
        self.to_act = -1
        self.end_reason = reason.value
        if self.goal is not None:
            self.goal.reveal(self, events)
        alive = [s for s in range(self.seats) if self.status[s] == PlayerStatus.ALIVE]
        total_armies = [0] * len(self.territory_count)
        for t, o in enumerate(self.owner):
            total_armies[o] += self.armies[t]
        places = [0] * self.seats

        # Survivors first: the winner of a goal, then by territories then armies (equal on both: same
        # place); then the eliminated, the last one out placed best.
        def rank_key(s: int) -> tuple[bool, int, int]:
            return s != winner, -self.territory_count[s], -total_armies[s]

        order = sorted(alive, key=rank_key)
        place = 1
        for i, s in enumerate(order):
            if i and rank_key(s) != rank_key(order[i - 1]):
                place = i + 1
            places[s] = place
        for rank, s in enumerate(reversed(self.eliminated)):
            places[s] = len(alive) + rank + 1
        self.places = tuple(places)
        events.append(GameEnded(self.places, reason.value))

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
            if self.rules.setup == SetupMode.NEUTRAL_PILES and not self._own_setup_due():
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

    def _own_setup_due(self) -> bool:
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

    def _check_goal(self, events: list[Event]) -> None:
        """After every action once play has started, unless a roll or a move-in is still owed."""
        goal = self.goal
        if goal is not None and self.turn and self.phase not in _PENDING:
            winner = goal.winner(self)
            if winner >= 0:
                self._finish(Termination(goal.termination), events, winner)

    def _claim(self, claim: Claim, events: list[Event]) -> None:
        t = claim.territory
        seat = self.to_act
        self._occupy_at_setup(t, seat)
        events.append(Claimed(seat, t))
        if self.territory_count_claimed() < self._territories_to_claim():
            self.to_act = (seat + 1) % self.seats
            return
        if self.rules.allied_army:
            self._garrison_allied_army(events)
        self.phase = Phase.SETUP_PLACE
        nxt = self._next_setup_placer(seat)
        if nxt < 0:
            self._start_play(events)
        else:
            self.to_act = nxt

    def territory_count_claimed(self) -> int:
        return sum(self.territory_count)

    def _territories_to_claim(self) -> int:
        """All of them; in the Allied Army game a third of the board per player (001: "until each has
        occupied 14 territories")."""
        if self.rules.allied_army:
            return self.seats * (self.board.size // 3)
        return self.board.size

    def _garrison_allied_army(self, events: list[Event]) -> None:
        """001: "Two Allied Armies will be placed on each unoccupied territory"."""
        for t, o in enumerate(self.owner):
            if o == UNCLAIMED:
                self._occupy_at_setup(t, self.neutral)
                events.append(Claimed(self.neutral, t))
                self.armies[t] += ALLIED_ARMIES_PER_TERRITORY - 1
                events.append(Placed(self.neutral, t, ALLIED_ARMIES_PER_TERRITORY - 1))
        self.setup_left[self.neutral] = 0

    def _place(self, p: Place, events: list[Event]) -> None:
        seat = self.to_act
        self.armies[p.territory] += p.armies
        if self.phase == _REINFORCE:
            self.reinforcements -= p.armies
            self.placed_this_turn = True
            events.append(Placed(seat, p.territory, p.armies))
            if not self.reinforcements:
                self.elimination_trade = False
                self.phase = _ATTACK
            return
        if self.phase == _ALLIED_REINFORCE:
            self.reinforcements -= p.armies
            events.append(Placed(self.neutral, p.territory, p.armies))
            if not self.reinforcements:
                self.phase = _ALLIED_ATTACK
            return
        target_owner = self.owner[p.territory]
        self.setup_left[target_owner] -= p.armies
        events.append(Placed(target_owner, p.territory, p.armies))
        if self.rules.setup != _NEUTRAL_PILES:
            nxt = self._next_setup_placer(seat)
        else:
            if target_owner == seat:
                self.setup_step += p.armies
            else:
                self.setup_neutral_done = True
            if self._own_setup_due() or (not self.setup_neutral_done and self.setup_left[self.neutral] > 0):
                return
            self.setup_step = 0
            self.setup_neutral_done = False
            nxt = self._next_setup_placer(seat)
            if nxt < 0 and self.setup_left[self.neutral] > 0:
                nxt = (seat + 1) % self.seats  # own armies are out; neutral placements still go round
        if nxt < 0:
            self._start_play(events)
        else:
            self.to_act = nxt

    def _trade(self, trade: TradeCards, events: list[Event]) -> None:
        seat = self.to_act
        cards = tuple(sorted(trade.cards))
        hand = self.hands[seat]
        bonus = self.bonus_territories(seat, cards)
        for c in cards:
            hand.remove(c)
        value = self.rules.trade_value(self.trades_done)
        self.trades_done += 1
        self.reinforcements += value
        where = -1
        self.received += value
        if bonus:
            where = trade.bonus_territory if trade.bonus_territory in bonus else bonus[0]
            self.armies[where] += self.rules.territory_bonus
            self.received += self.rules.territory_bonus
            self.bonus_used = True
        self.deck.extend(cards)  # traded cards go face down to the bottom of the draw pile
        events.append(Traded(seat, (cards[0], cards[1], cards[2]), value, where))

    def _attack(self, attack: Attack, events: list[Event]) -> None:
        self.pending_attack = attack
        self.attacker = self.to_act
        self._roll_on(None, events)

    def _defend(self, choice: ChooseDefence, events: list[Event]) -> None:
        self._roll_on(choice.dice, events)

    def _roll_on(self, defence_dice: int | None, events: list[Event]) -> None:
        """Roll the pending attack until it stops: one roll, a capture, the threshold, or a defence choice."""
        attack = self.pending_attack
        assert attack is not None
        src, dst = attack.source, attack.target
        armies = self.armies
        getrandbits = self._rng.getrandbits
        choose = self.rules.defender_dice == _CHOOSE_DEFENCE
        while True:
            if choose and defence_dice is None and armies[dst] > 1:
                self.phase = _DEFEND
                defender = self.owner[dst]
                self.to_act = defender if defender != self.neutral else self._opponent()
                return
            a = attack.dice if attack.dice < armies[src] else armies[src] - 1
            d = defence_dice or (2 if armies[dst] > 1 else 1)
            defence_dice = None
            att, dfn = roll_dice(getrandbits, a, d)
            # Highest against highest, then second against second; ties go to the defender.
            att_loss = def_loss = 0
            if att[0] > dfn[0]:
                def_loss = 1
            else:
                att_loss = 1
            if a > 1 and d > 1:
                if att[1] > dfn[1]:
                    def_loss += 1
                else:
                    att_loss += 1
            armies[src] -= att_loss
            armies[dst] -= def_loss
            events.append(Rolled(src, dst, att, dfn, att_loss, def_loss))
            if not armies[dst]:
                self.pending_attack = None
                self._capture(src, dst, a, events)
                return
            if not attack.repeat_until or armies[src] <= attack.repeat_until:
                break
        self.pending_attack = None
        self.phase = self.attack_phase
        self.to_act = self.attacker

    def _opponent(self) -> int:
        """The other player of a two-player game: rolls for the neutral's (or Allied Army's) defence and
        commands the Allied Army on this turn."""
        return next(
            s for s in range(self.seats) if s != self.turn_seat and self.status[s] == PlayerStatus.ALIVE
        )

    def _capture(self, src: Territory, dst: Territory, dice: int, events: list[Event]) -> None:
        seat = self.owner[src]  # the Allied Army's, when its commander attacks
        loser = self.owner[dst]
        self.owner[dst] = seat
        self.territory_count[loser] -= 1
        self.territory_count[seat] += 1
        if seat == self.turn_seat:
            self.captured_this_turn = True
        self.to_act = self.attacker
        events.append(Captured(seat, src, dst, loser))
        eliminated = False
        if not self.territory_count[loser] and loser != self.neutral:
            eliminated = True
            self.status[loser] = PlayerStatus.ELIMINATED
            self.eliminated.append(loser)
            self.eliminated_by[loser] = seat
            # 001: "Allied forces do not pick up RISK cards": an Allied capture leaves them with the loser.
            taken: list[int] = []
            if seat != self.neutral:
                taken = self.hands[loser]
                self.hands[loser] = []
                self.hands[seat].extend(taken)
            events.append(Eliminated(loser, seat, len(taken)))
            if taken:
                events.append(CardsTaken(seat, tuple(taken)))
        most = self.armies[src] - 1
        if dice >= most or (eliminated and self._alive_count() == 1):
            self._occupy_pending(src, dst, min(dice, most), eliminated, events)
        else:
            self.pending_occupy = (src, dst, dice, eliminated)
            self.phase = _OCCUPY

    def _alive_count(self) -> int:
        return self.status.count(_ALIVE)

    def _occupy(self, occupy: Occupy, events: list[Event]) -> None:
        assert self.pending_occupy is not None
        src, dst, _, eliminated = self.pending_occupy
        self.pending_occupy = None
        self._occupy_pending(src, dst, occupy.armies, eliminated, events)

    def _occupy_pending(
        self, src: Territory, dst: Territory, count: int, eliminated: bool, events: list[Event]
    ) -> None:
        self.armies[src] -= count
        self.armies[dst] += count
        events.append(Occupied(src, dst, count))
        if eliminated and self._alive_count() == 1:
            self._finish(Termination.CONQUEST, events)
            return
        seat = self.turn_seat
        if (
            eliminated
            and self.owner[dst] == seat
            and len(self.hands[seat]) >= self.rules.elimination_trade_at
        ):
            self.phase = _REINFORCE
            self.elimination_trade = True
            self.placed_this_turn = False  # 001's extra trades are allowed until the first placement
            self.reinforcements = 0
        else:
            self.phase = self.attack_phase

    def _fortify(self, fortify: Fortify, events: list[Event]) -> None:
        self.armies[fortify.source] -= fortify.armies
        self.armies[fortify.target] += fortify.armies
        events.append(Fortified(fortify.source, fortify.target, fortify.armies))
        self._end_turn(events)

    def _end_phase(self, _: EndPhase, events: list[Event]) -> None:
        phase = self.phase
        if phase == _ATTACK:
            if self.captured_this_turn and self.deck:
                card = self.deck.popleft()
                self.hands[self.turn_seat].append(card)
                events.append(Drew(self.turn_seat, card))
            if self.rules.allied_army and self.territory_count[self.neutral]:
                self._start_allied_stage()
            else:
                self.phase = _FORTIFY
        elif phase == _ALLIED_ATTACK:
            # 001: "After the second player has decided to stop attacking with the Allied Army, the first
            # player takes his/her free move."
            self.phase = _FORTIFY
            self.attack_phase = _ATTACK
            self.to_act = self.turn_seat
        else:
            self._end_turn(events)

    def _start_allied_stage(self) -> None:
        """001: after the active player's attacks, "the opposing player places the number of Allied Armies
        ... in Allied occupied territories", then "may act as the Allied Army and attack"."""
        self.to_act = self._opponent()
        self.attacker = self.to_act
        self.attack_phase = _ALLIED_ATTACK
        self.reinforcements = self.received // 2
        self.phase = _ALLIED_REINFORCE if self.reinforcements else _ALLIED_ATTACK

    def _choose_headquarters(self, choice: ChooseHeadquarters, events: list[Event]) -> None:
        """000: "After everyone in turn has selected a Headquarters, all players turn their cards face up"."""
        seat = self.to_act
        self.headquarters[seat] = choice.territory
        events.append(HeadquartersChosen(seat, choice.territory))
        nxt = (seat + 1) % self.seats
        if nxt != self.first_seat:
            self.to_act = nxt
            return
        events.append(HeadquartersRevealed(tuple(self.headquarters)))
        self._first_turn(events)

    # ------------------------------------------------------------------ copies and snapshots

    def clone(self) -> GameState:
        other = GameState(self.rules, self.seats, self.seed, self.board)  # compiled, __new__ runs __init__
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
        other._rng = random.Random()
        other._rng.setstate(self._rng.getstate())
        other._random = other._rng.random
        return other

    def snapshot(self) -> dict[str, Any]:
        """Every fact of the state as plain data (the RNG as a digest of its internal state)."""
        rng_digest = hashlib.sha256(repr(self._rng.getstate()).encode()).hexdigest()
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
            "rng": rng_digest,
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


_APPLY: dict[type, Callable[[GameState, Any, list[Event]], None]] = {
    Attack: GameState._attack,
    Occupy: GameState._occupy,
    Place: GameState._place,
    EndPhase: GameState._end_phase,
    TradeCards: GameState._trade,
    Fortify: GameState._fortify,
    ChooseDefence: GameState._defend,
    Claim: GameState._claim,
    ChooseHeadquarters: GameState._choose_headquarters,
}
"""How ``apply_unchecked`` applies each kind of action."""


def _then_check_goal(
    handler: Callable[[GameState, Any, list[Event]], None],
) -> Callable[[GameState, Any, list[Event]], None]:
    def apply(state: GameState, action: Any, events: list[Event]) -> None:
        handler(state, action, events)
        state._check_goal(events)

    return apply


_APPLY_THEN_CHECK_GOAL = {kind: _then_check_goal(handler) for kind, handler in _APPLY.items()}
"""The same with the goal checked after each action (Capital and Secret Mission games only), so classic
games pay nothing for goals."""


def new_game(rules: Rules, seats: int, seed: int, board: Board = CLASSIC) -> tuple[GameState, list[Event]]:
    """Start a game: roll for the first player and deal (if the setup deals). Returns the state and events.

    Raises:
        RulesConfigError: the rules do not allow ``seats`` players, or the seed is not a whole number.
    """
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise RulesConfigError(f"the seed must be a whole number, not {seed!r}")
    if rules.neutral and board.size % 3:
        raise RulesConfigError(
            f"the neutral game deals 3 equal piles; {board.size} territories do not divide"
        )
    state = GameState(rules, seats, seed, board)
    return state, state._start()
