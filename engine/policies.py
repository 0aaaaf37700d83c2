"""In-process policies for tests, benchmarks and built-in opponents.

A policy maps a state to an action for the seat to act. ``random_policy`` draws from the legal actions;
``aggressive_policy`` reads the flat arrays directly (it is the benchmark's hot path) and finishes games:
it hunts the opponent closest to elimination (whose cards it then takes), stacks its reinforcements on
one front, attacks wherever its movable armies at least match the defender's and moves everything
forward. With a goal (Capital Risk, Secret Mission Risk) it first goes for the territories the goal
names; commanding the Allied Army it stacks and attacks the same way against the player whose turn it is.
"""

from __future__ import annotations

import random
from collections.abc import Callable

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
from engine.goals import effective_mission
from engine.legal import LegalActions
from engine.rules import Objective
from engine.state import GameState

Policy = Callable[[GameState], Action]


def _draw_attack(legal: LegalActions, rng: random.Random) -> Action:
    option = rng.choice(legal.attacks)
    until = rng.choice((0, rng.randint(1, option.source_armies - 1)))
    return Attack(option.source, option.target, rng.randint(1, option.max_dice), until)


def _draw_fortify(legal: LegalActions, rng: random.Random) -> Action:
    option = rng.choice(legal.fortify)
    return Fortify(option.source, rng.choice(option.targets), rng.randint(1, option.max_armies))


_RANDOM_DRAWS: dict[
    type, tuple[Callable[[LegalActions], bool], Callable[[LegalActions, random.Random], Action]]
] = {
    Claim: (lambda legal: bool(legal.claim), lambda legal, rng: Claim(rng.choice(legal.claim))),
    ChooseHeadquarters: (
        lambda legal: bool(legal.headquarters),
        lambda legal, rng: ChooseHeadquarters(rng.choice(legal.headquarters)),
    ),
    TradeCards: (lambda legal: bool(legal.trades), lambda legal, rng: TradeCards(rng.choice(legal.trades))),
    Place: (
        lambda legal: bool(legal.place_territories) and not legal.must_trade,
        lambda legal, rng: Place(
            rng.choice(legal.place_territories), rng.randint(legal.place_min, legal.place_max)
        ),
    ),
    Attack: (lambda legal: bool(legal.attacks), _draw_attack),
    ChooseDefence: (
        lambda legal: legal.defend_max > 0,
        lambda legal, rng: ChooseDefence(rng.randint(1, legal.defend_max)),
    ),
    Occupy: (
        lambda legal: legal.occupy_max > 0,
        lambda legal, rng: Occupy(rng.randint(legal.occupy_min, legal.occupy_max)),
    ),
    Fortify: (lambda legal: bool(legal.fortify), _draw_fortify),
    EndPhase: (lambda legal: legal.can_end, lambda legal, rng: EndPhase()),
}
"""For each kind of action: whether ``legal`` offers it, and how to draw one with random parameters. In
this order, which the draws of seeded games depend on."""


def random_legal_action(legal: LegalActions, rng: random.Random) -> Action:
    """A uniformly chosen kind of legal action, with uniformly chosen parameters."""
    draws = [draw for offered, draw in _RANDOM_DRAWS.values() if offered(legal)]
    return rng.choice(draws)(legal, rng)


def random_policy(rng: random.Random) -> Policy:
    """A policy that plays uniformly random legal actions drawn from ``rng``."""
    return lambda state: random_legal_action(state.legal_actions(), rng)


PREY_EDGE = 4
"""How many armies weaker the weakest opponent's territories look: measured, it shortens classic
4-player games from ~90 turns (no preference) to ~27 and wins more often."""


def _weakest_opponent(state: GameState, seat: int) -> int:
    """The opponent holding the fewest territories (never the neutral): eliminating it pays its cards."""
    counts = state.territory_count
    best, fewest = -1, len(state.owner) + 1
    for other in range(state.seats):
        if other != seat and 0 < counts[other] < fewest:
            best, fewest = other, counts[other]
    return best


def _best_attack(state: GameState, seat: int, worth_attacking: bool) -> tuple[int, int]:
    """(source, target) with the biggest edge of the source's movable armies over the target's armies.

    A target of the weakest opponent counts PREY_EDGE armies weaker, so stacks turn on the player closest
    to elimination. With ``worth_attacking``, only pairs where the movable armies at least match the
    defenders count. (-1, -1) when no pair qualifies.
    """
    owner, armies, neighbours = state.owner, state.armies, state.board.neighbours
    least = 2 if worth_attacking else 1  # attacking takes at least 2 armies
    # Indexing beats enumerate here: most territories fail the owner test and never build a tuple.
    sources = [t for t in range(len(owner)) if owner[t] == seat and armies[t] >= least]
    if not sources:
        return -1, -1
    prey = _weakest_opponent(state, seat)
    best_src, best_dst, best_edge = -1, -1, -(1 << 30)
    for t in sources:
        movable = armies[t] - 1
        for n in neighbours[t]:
            o_n = owner[n]
            if o_n != seat and not (worth_attacking and movable < armies[n]):
                edge = movable - armies[n] + (PREY_EDGE if o_n == prey else 0)
                if edge > best_edge:
                    best_src, best_dst, best_edge = t, n, edge
    return best_src, best_dst


def _borders_enemy(state: GameState, t: int, seat: int) -> bool:
    owner = state.owner
    for n in state.board.neighbours[t]:  # noqa: SIM110 - a plain loop; any() with a generator is 2x slower
        if owner[n] != seat:
            return True
    return False


def _interior_to_front(state: GameState, seat: int) -> tuple[int, int]:
    """(source, target): the biggest stack with no enemy neighbour, and an own neighbour on the front."""
    owner, armies, neighbours = state.owner, state.armies, state.board.neighbours
    best_src, best_dst, best_armies = -1, -1, 1
    for t, o in enumerate(owner):
        if o != seat or armies[t] <= best_armies or _borders_enemy(state, t, seat):
            continue
        for n in neighbours[t]:
            if _borders_enemy(state, n, seat):
                best_src, best_dst, best_armies = t, n, armies[t]
                break
    return best_src, best_dst


def _biggest_front(state: GameState, seat: int) -> int:
    """The seat's territory with the most armies (at least 2) among those bordering an enemy, or -1."""
    owner, armies = state.owner, state.armies
    best, best_armies = -1, 1
    for t in range(len(owner)):
        if owner[t] == seat and armies[t] > best_armies and _borders_enemy(state, t, seat):
            best, best_armies = t, armies[t]
    return best


def _goal_targets(state: GameState, seat: int) -> list[int]:
    """Territories the seat's goal names and it does not hold: every headquarters not its own (and its
    own once lost), a mission's continents (plus the nearest-complete other one when it asks for a third)
    or its target's territories. Empty when the goal is a number of territories."""
    owner = state.owner
    if state.rules.objective == Objective.HEADQUARTERS:
        return [t for t in state.headquarters if t >= 0 and owner[t] != seat]
    mission = effective_mission(state, seat)
    if mission.destroy >= 0:
        return [t for t, o in enumerate(owner) if o == mission.destroy]
    board = state.board
    named = [c for c, spec in enumerate(board.continents) if spec.name in mission.continents]
    if mission.other_continents:
        others = sorted(
            (sum(owner[t] != seat for t in board.continent_members[c]), c)
            for c in range(len(board.continents))
            if c not in named
        )
        named += [c for _, c in others[: mission.other_continents]]
    return [t for c in named for t in board.continent_members[c] if owner[t] != seat]


def _attack_on(state: GameState, attacker: int, targets: list[int], worth_attacking: bool) -> tuple[int, int]:
    """(source, target): the biggest edge of ``attacker``'s movable armies over one of ``targets``.

    With ``worth_attacking``, only pairs where the movable armies at least match the defenders count.
    (-1, -1) when no pair qualifies.
    """
    owner, armies, neighbours = state.owner, state.armies, state.board.neighbours
    best_src, best_dst, best_edge = -1, -1, -(1 << 30)
    for t in targets:
        for n in neighbours[t]:
            if owner[n] != attacker:
                continue
            movable = armies[n] - 1
            if worth_attacking and (movable < 1 or movable < armies[t]):
                continue
            if movable - armies[t] > best_edge:
                best_src, best_dst, best_edge = n, t, movable - armies[t]
    return best_src, best_dst


def _stack_territory(state: GameState, seat: int) -> int:
    """Where new armies go: next to the goal's nearest target, else the source of the best attack, or any
    own territory when no enemy is adjacent."""
    if state.goal is not None:
        source, _ = _attack_on(state, seat, _goal_targets(state, seat), worth_attacking=False)
        if source >= 0:
            return source
    source, _ = _best_attack(state, seat, worth_attacking=False)
    return source if source >= 0 else state.owner.index(seat)


def _attack(state: GameState) -> Action:
    seat = state.to_act
    src = dst = -1
    if state.goal is not None:
        src, dst = _attack_on(state, seat, _goal_targets(state, seat), worth_attacking=True)
    if src < 0:
        src, dst = _best_attack(state, seat, worth_attacking=True)
        if src < 0:
            return EndPhase()
    movable = state.armies[src] - 1
    return Attack(src, dst, 3 if movable > 3 else movable, 1)


def _allied_targets(state: GameState) -> list[int]:
    """The Allied Army attacks only the player whose turn it is (never its commander)."""
    return [t for t, o in enumerate(state.owner) if o == state.turn_seat]


def _allied_reinforce(state: GameState) -> Action:
    """Stack the Allied Army's armies where it has the best edge on the player whose turn it is."""
    src, _ = _attack_on(state, state.neutral, _allied_targets(state), worth_attacking=False)
    return Place(src if src >= 0 else state.owner.index(state.neutral), state.reinforcements)


def _allied_attack(state: GameState) -> Action:
    src, dst = _attack_on(state, state.neutral, _allied_targets(state), worth_attacking=True)
    if src < 0:
        return EndPhase()
    movable = state.armies[src] - 1
    return Attack(src, dst, 3 if movable > 3 else movable, 1)


def _choose_headquarters(state: GameState) -> Action:
    """The own territory with the most armies over the enemy armies next to it: the hardest to take."""
    seat, owner, armies, neighbours = state.to_act, state.owner, state.armies, state.board.neighbours
    best, best_margin = -1, -(1 << 30)
    for t, o in enumerate(owner):
        if o == seat:
            margin = armies[t] - sum(armies[n] for n in neighbours[t] if owner[n] != seat)
            if margin > best_margin:
                best, best_margin = t, margin
    return ChooseHeadquarters(best)


def _occupy(state: GameState) -> Action:
    assert state.pending_occupy is not None
    src, dst, least, _ = state.pending_occupy
    seat = state.owner[dst]  # the Allied Army's when its commander captured
    # Everything forward, unless the captured territory is safe and the source still faces an enemy.
    if not _borders_enemy(state, dst, seat) and _borders_enemy(state, src, seat):
        return Occupy(least)
    return Occupy(state.armies[src] - 1)


def _reinforce(state: GameState) -> Action:
    seat = state.to_act
    if len(state.hands[seat]) >= 3 and state.may_trade():
        sets = state.tradeable_sets(seat)
        if sets:
            return TradeCards(sets[0])
    return Place(_stack_territory(state, seat), state.reinforcements)


def _fortify(state: GameState) -> Action:
    src, dst = _interior_to_front(state, state.to_act)
    if src < 0:
        return EndPhase()
    return Fortify(src, dst, state.armies[src] - 1)


def _defend(state: GameState) -> Action:
    assert state.pending_attack is not None
    return ChooseDefence(2 if state.armies[state.pending_attack.target] > 1 else 1)


def _claim(state: GameState) -> Action:
    """Claim next to what we hold, to build a continent; else the first free territory."""
    seat, owner, neighbours = state.to_act, state.owner, state.board.neighbours
    first_free = -1
    for t, o in enumerate(owner):
        if o == -1:
            if first_free < 0:
                first_free = t
            for n in neighbours[t]:
                if owner[n] == seat:
                    return Claim(t)
    return Claim(first_free)


def _setup_place(state: GameState) -> Action:
    """Stack the best front, one army at a time (up to two in the neutral game, whose neutral armies go
    on the first neutral territory)."""
    seat = state.to_act
    if state.neutral < 0:
        stack = _biggest_front(state, seat)
        return Place(stack if stack >= 0 else _stack_territory(state, seat), 1)
    legal = state.legal_actions()
    if state.owner[legal.place_territories[0]] != seat:
        return Place(legal.place_territories[0], 1)
    return Place(_stack_territory(state, seat), legal.place_max)


_AGGRESSIVE_BY_PHASE: dict[Phase, Policy] = {
    Phase.SETUP_CLAIM: _claim,
    Phase.SETUP_PLACE: _setup_place,
    Phase.REINFORCE: _reinforce,
    Phase.ATTACK: _attack,
    Phase.DEFEND: _defend,
    Phase.OCCUPY: _occupy,
    Phase.FORTIFY: _fortify,
    Phase.CHOOSE_HEADQUARTERS: _choose_headquarters,
    Phase.ALLIED_REINFORCE: _allied_reinforce,
    Phase.ALLIED_ATTACK: _allied_attack,
}


def aggressive_policy(state: GameState) -> Action:
    """Trade as soon as possible, stack everything on the best front, attack while ahead, push forward.

    Deterministic (no RNG): the same state always gets the same action.
    """
    return _AGGRESSIVE_BY_PHASE[state.phase](state)


def play_game(state: GameState, policies: list[Policy], max_actions: int = 1_000_000) -> int:
    """Play ``state`` to the end with one policy per seat (unchecked path); returns the number of actions."""
    count = 0
    game_over = Phase.GAME_OVER  # looked up once: enum member access is slow on Python 3.11
    while state.phase != game_over and count < max_actions:
        state.apply_unchecked(policies[state.to_act](state))
        count += 1
    return count
