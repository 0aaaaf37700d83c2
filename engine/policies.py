"""In-process policies for tests, benchmarks and built-in opponents.

A policy maps a state to an action for the seat to act. ``random_policy`` draws from the legal actions;
``aggressive_policy`` reads the flat arrays directly (it is the benchmark's hot path) and finishes games:
it stacks its reinforcements on its strongest front, attacks wherever it outnumbers the defender and
moves everything forward.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from engine.actions import (
    Action,
    Attack,
    ChooseDefence,
    Claim,
    EndPhase,
    Fortify,
    Occupy,
    Phase,
    Place,
    TradeCards,
)
from engine.legal import LegalActions
from engine.state import GameState

Policy = Callable[[GameState], Action]


def random_legal_action(legal: LegalActions, rng: random.Random) -> Action:
    """A uniformly chosen kind of legal action, with uniformly chosen parameters."""
    choices: list[Callable[[], Action]] = []
    if legal.claim:
        choices.append(lambda: Claim(rng.choice(legal.claim)))
    if legal.trades:
        choices.append(lambda: TradeCards(rng.choice(legal.trades)))
    if legal.place_territories and not legal.must_trade:
        choices.append(
            lambda: Place(rng.choice(legal.place_territories), rng.randint(legal.place_min, legal.place_max))
        )
    if legal.attacks:

        def attack() -> Action:
            option = rng.choice(legal.attacks)
            until = rng.choice((0, rng.randint(1, option.source_armies - 1)))
            return Attack(option.source, option.target, rng.randint(1, option.max_dice), until)

        choices.append(attack)
    if legal.defend_max:
        choices.append(lambda: ChooseDefence(rng.randint(1, legal.defend_max)))
    if legal.occupy_max:
        choices.append(lambda: Occupy(rng.randint(legal.occupy_min, legal.occupy_max)))
    if legal.fortify:

        def fortify() -> Action:
            option = rng.choice(legal.fortify)
            return Fortify(option.source, rng.choice(option.targets), rng.randint(1, option.max_armies))

        choices.append(fortify)
    if legal.can_end:
        choices.append(EndPhase)
    return rng.choice(choices)()


def random_policy(rng: random.Random) -> Policy:
    """A policy that plays uniformly random legal actions drawn from ``rng``."""
    return lambda state: random_legal_action(state.legal_actions(), rng)


def _front_strength(state: GameState, seat: int) -> int:
    """The seat's territory with the most armies among those bordering an enemy (-1 if none)."""
    owner, armies, neighbours = state.owner, state.armies, state.board.neighbours
    best, best_armies = -1, -1
    for t, o in enumerate(owner):
        if o == seat and armies[t] > best_armies:
            for n in neighbours[t]:
                if owner[n] != seat:
                    best, best_armies = t, armies[t]
                    break
    return best


def aggressive_policy(state: GameState) -> Action:
    seat = state.to_act
    phase = state.phase
    owner, armies, neighbours = state.owner, state.armies, state.board.neighbours
    if phase == Phase.ATTACK:
        best_src, best_dst, best_margin = -1, -1, 1
        for t, o in enumerate(owner):
            a = armies[t]
            if o == seat and a > 2:
                for n in neighbours[t]:
                    if owner[n] != seat and a - armies[n] > best_margin:
                        best_src, best_dst, best_margin = t, n, a - armies[n]
        if best_src < 0:
            return EndPhase()
        return Attack(best_src, best_dst, 3 if armies[best_src] > 3 else armies[best_src] - 1, 1)
    if phase == Phase.REINFORCE:
        hand = state.hands[seat]
        if len(hand) >= 3 and state.may_trade():
            sets = state.tradeable_sets(seat)
            if sets:
                return TradeCards(sets[0])
        front = _front_strength(state, seat)
        return Place(front if front >= 0 else owner.index(seat), state.reinforcements)
    if phase == Phase.OCCUPY:
        assert state.pending_occupy is not None
        return Occupy(armies[state.pending_occupy[0]] - 1)
    if phase == Phase.FORTIFY:
        best_src, best_dst, best_armies = -1, -1, 1
        for t, o in enumerate(owner):
            if o == seat and armies[t] > best_armies:
                interior = True
                frontier = -1
                for n in neighbours[t]:
                    if owner[n] != seat:
                        interior = False
                        break
                    if frontier < 0:
                        for m in neighbours[n]:
                            if owner[m] != seat:
                                frontier = n
                                break
                if interior and frontier >= 0:
                    best_src, best_dst, best_armies = t, frontier, armies[t]
        if best_src < 0:
            return EndPhase()
        return Fortify(best_src, best_dst, armies[best_src] - 1)
    if phase == Phase.DEFEND:
        assert state.pending_attack is not None
        return ChooseDefence(2 if armies[state.pending_attack.target] > 1 else 1)
    if phase == Phase.SETUP_CLAIM:
        # Claim next to what we hold, to build a continent; else the first free territory.
        first_free = -1
        for t, o in enumerate(owner):
            if o == -1:
                if first_free < 0:
                    first_free = t
                for n in neighbours[t]:
                    if owner[n] == seat:
                        return Claim(t)
        return Claim(first_free)
    # SETUP_PLACE: stack the strongest front; in the neutral game, neutral armies go where they block most.
    legal = state.legal_actions()
    if legal.place_territories and owner[legal.place_territories[0]] != seat:
        return Place(legal.place_territories[0], 1)
    front = _front_strength(state, seat)
    return Place(front if front >= 0 else legal.place_territories[0], legal.place_max)


def play_game(state: GameState, policies: list[Policy], max_actions: int = 1_000_000) -> int:
    """Play ``state`` to the end with one policy per seat (unchecked path); returns the number of actions."""
    count = 0
    while state.phase != Phase.GAME_OVER and count < max_actions:
        state.apply_unchecked(policies[state.to_act](state))
        count += 1
    return count
