"""A random 2210 player (for property tests and as the floor of the sample bots), the safe default a seat
gets when its clock runs out, a game loop, and an aggressive player reading the state (the benchmark's)."""

from __future__ import annotations

import random

from engine.r2210.actions import (
    Action2210,
    Bid,
    BuildStation,
    BuyCards,
    ChooseMarker,
    Claim,
    Commander,
    Declare,
    Defend,
    EndPhase,
    Fortify,
    Hire,
    Lose,
    Occupy,
    Phase,
    Place,
    PlaceCommanders,
    PlayCard,
    Remove,
    Roll,
    TakeCard,
)
from engine.r2210.game import apply, legal_actions
from engine.r2210.legal import Legal2210
from engine.r2210.setup import batch_left, unclaimed_land
from engine.r2210.state import GameState2210
from engine.r2210.year import free_markers

_END_ODDS = 0.15
"""Chance a random player stops invading (or buying) at each step, so random games move on."""
_PLAY_ODDS = 0.5
"""Chance a random player plays one of the Command cards it may play now (else it goes on or passes)."""


def random_action(legal: Legal2210, rng: random.Random) -> Action2210:
    """A uniformly drawn legal action, category by category."""
    phase = legal.phase
    pick = rng.choice
    if phase == Phase.SETUP_CLAIM:
        return Claim(pick(legal.territories))
    if phase in (Phase.SETUP_PLACE, Phase.DEPLOY):
        return Place(pick(legal.territories), rng.randint(1, legal.place_max))
    if phase == Phase.SETUP_COMMANDERS:
        t = legal.territories
        return PlaceCommanders(pick(t), pick(t), pick(t))
    if phase == Phase.BID:
        return Bid(rng.randint(0, legal.bid_max))
    if phase == Phase.CHOOSE_MARKER:
        return ChooseMarker(pick(legal.markers))
    if phase == Phase.BUY:
        options: list[Action2210] = [EndPhase()]
        if legal.hires:
            options.append(Hire(pick(legal.hires), pick(legal.territories)))
        if legal.stations:
            options.append(BuildStation(pick(legal.stations)))
        if legal.buy_max:
            options.append(BuyCards(_card_counts(legal, rng)))
        return pick(options)
    if phase == Phase.BONUS_CARD:
        return TakeCard(Commander(pick([d for d, n in enumerate(legal.card_decks) if n])))
    if legal.plays and rng.random() < _PLAY_ODDS:
        card, targets, picks = pick(legal.plays)
        return PlayCard(card, tuple(rng.sample(targets, picks)))
    if phase in (Phase.REACT, Phase.TURN_END, Phase.GAME_END, Phase.EXCHANGE):
        return EndPhase()
    if phase == Phase.REDUCE:
        return Remove(tuple(sorted(rng.sample(_each_mod(legal), legal.lose))))
    if phase == Phase.DECOYS:
        if not legal.fortify or rng.random() < 0.3:
            return EndPhase()
        source, targets, _, there = pick(legal.fortify)
        chosen = tuple(rng.sample(there, rng.randint(1, len(there))))
        return Fortify(source, pick(targets), 0, chosen)
    if phase == Phase.INVADE:
        if not legal.invasions or rng.random() < _END_ODDS:
            return EndPhase()
        return Declare(*pick(legal.invasions))
    if phase == Phase.ROLL:
        dice = rng.randint(1, legal.dice_max)
        d8 = tuple(c for c in legal.d8 if rng.random() < 0.5)[:dice]
        return Roll(dice, d8)
    if phase == Phase.DEFEND:
        return Defend(rng.randint(1, legal.defend_max))
    if phase == Phase.LOSSES:
        low = max(0, legal.lose - len(legal.occupy_commanders))
        mods = rng.randint(low, min(legal.lose, legal.occupy_mods))
        return Lose(mods, tuple(rng.sample(legal.occupy_commanders, legal.lose - mods)))
    if phase == Phase.OCCUPY:
        extra = tuple(c for c in legal.occupy_commanders if c not in legal.must_move and rng.random() < 0.3)
        commanders = (*legal.must_move, *extra)
        mods, commanders = _units(
            rng, legal.occupy_mods, legal.occupy_commanders, commanders, legal.occupy_min
        )
        return Occupy(mods, commanders)
    if phase == Phase.FORTIFY:
        if not legal.fortify or rng.random() < 0.3:
            return EndPhase()
        source, targets, mods_there, there = pick(legal.fortify)
        chosen = tuple(c for c in there if rng.random() < 0.3)
        mods, chosen = _units(rng, mods_there, there, chosen, 1)
        return Fortify(source, pick(targets), mods, chosen)
    raise ValueError(f"no decision in {phase.name}")


def default_action(legal: Legal2210) -> Action2210:
    """A safe legal answer from ``legal`` alone: stop where stopping is allowed, bid nothing, defend with
    every die, move in the least, and otherwise the first choice offered (MOD Reduction: the first MODs
    listed)."""
    phase = legal.phase
    if legal.can_end:
        return EndPhase()
    if phase == Phase.SETUP_CLAIM:
        return Claim(legal.territories[0])
    if phase in (Phase.SETUP_PLACE, Phase.DEPLOY):
        return Place(legal.territories[0], legal.place_max)
    if phase == Phase.SETUP_COMMANDERS:
        first = legal.territories[0]
        return PlaceCommanders(first, first, first)
    if phase == Phase.BID:
        return Bid(0)
    if phase == Phase.CHOOSE_MARKER:
        return ChooseMarker(legal.markers[0])
    if phase == Phase.BONUS_CARD:
        return TakeCard(Commander(next(d for d, n in enumerate(legal.card_decks) if n)))
    if phase == Phase.ROLL:
        return Roll(legal.dice_max)
    if phase == Phase.DEFEND:
        return Defend(legal.defend_max)
    if phase == Phase.LOSSES:
        mods = min(legal.lose, legal.occupy_mods)
        return Lose(mods, legal.occupy_commanders[: legal.lose - mods])
    if phase == Phase.REDUCE:
        return Remove(_each_mod(legal)[: legal.lose])
    if phase == Phase.OCCUPY:
        commanders = list(legal.must_move)
        spare = [c for c in legal.occupy_commanders if c not in commanders]
        while legal.occupy_mods + len(commanders) < legal.occupy_min:
            commanders.append(spare.pop(0))
        return Occupy(max(0, legal.occupy_min - len(commanders)), tuple(commanders))
    raise ValueError(f"no decision in {phase.name}")


def _each_mod(legal: Legal2210) -> tuple[int, ...]:
    """In REDUCE: every MOD that may be removed, as its territory (a territory once per MOD there)."""
    return tuple([t for t, n in zip(legal.territories, legal.mods_at, strict=True) for _ in range(n)])


def _card_counts(legal: Legal2210, rng: random.Random) -> tuple[int, ...]:
    """1 to ``buy_max`` cards spread at random over the open decks."""
    counts = [0] * len(legal.card_decks)
    for _ in range(rng.randint(1, legal.buy_max)):
        deck = _pick_open(legal.card_decks, counts, rng)
        counts[deck] += 1
    return tuple(counts)


def _pick_open(decks: tuple[int, ...], taken: list[int], rng: random.Random) -> int:
    return rng.choice([d for d, n in enumerate(decks) if n > taken[d]])


def _units(
    rng: random.Random,
    mods_there: int,
    there: tuple[Commander, ...],
    commanders: tuple[Commander, ...],
    least: int,
) -> tuple[int, tuple[Commander, ...]]:
    """A MOD count and commanders (``commanders`` first, more of ``there`` if short) moving ``least`` or
    more units and leaving one behind."""
    spare = [c for c in there if c not in commanders]
    while mods_there + len(commanders) < least and spare:
        commanders = (*commanders, spare.pop())
    while mods_there + len(there) - len(commanders) < 1:
        commanders = commanders[:-1]
    most_mods = mods_there if len(commanders) < len(there) else mods_there - 1
    low = max(0, least - len(commanders))
    return rng.randint(low, most_mods), commanders


def play_random(state: GameState2210, rng: random.Random, max_actions: int = 100_000) -> int:
    """Play ``state`` to its end with random players (every asked seat in turn); returns actions applied."""
    done = 0
    while not state.is_over() and done < max_actions:
        seat = state.asked[0]
        apply(state, random_action(legal_actions(state, seat), rng), seat)
        done += 1
    return done


# ---------------------------------------------------------------------- the aggressive engine policy


def aggressive_2210(state: GameState2210, seat: int) -> Action2210:
    """Stack on the best front, hire the missing commanders, invade while at least even, move everything in.

    Reads the state directly (as ``engine.policies.aggressive_policy``), deterministic; bids nothing, buys
    and plays no Command card, never fortifies. The benchmark's 2210 player (``make bench-engine``).
    """
    phase = state.phase
    if phase == Phase.INVADE:
        source, target = _best_invasion(state, seat)
        return EndPhase() if source < 0 else Declare(source, target)
    if phase == Phase.ROLL:
        assert state.pending is not None
        source, target = state.pending
        dice = min(3, state.units(source) - 1)
        return Roll(dice, state.d8_commanders(source, target)[:dice])
    if phase == Phase.OCCUPY:
        return _occupy_all(state)
    if phase == Phase.DEPLOY:
        return Place(_front(state, seat), state.recruits)
    if phase == Phase.BUY:
        if state.energy[seat] >= state.rules.commander_cost and not state.built_station:
            for c in Commander:
                if not state.in_play(seat, c):
                    return Hire(c, _front(state, seat))
        return EndPhase()
    if phase == Phase.SETUP_CLAIM:
        return Claim(unclaimed_land(state)[0])
    if phase == Phase.SETUP_PLACE:
        return Place(_front(state, seat), batch_left(state))
    if phase == Phase.SETUP_COMMANDERS:
        t = _front(state, seat)
        return PlaceCommanders(t, t, t)
    if phase == Phase.BID:
        return Bid(0)
    if phase == Phase.CHOOSE_MARKER:
        return ChooseMarker(free_markers(state)[0])
    if phase in _ENDS_WITHOUT_A_MOVE:
        return EndPhase()
    if phase == Phase.BONUS_CARD:
        return TakeCard(Commander(next(d for d, n in enumerate(state.card_decks_open(seat)) if n)))
    return default_action(legal_actions(state, seat))  # DEFEND, LOSSES, REDUCE


_ENDS_WITHOUT_A_MOVE = (Phase.FORTIFY, Phase.REACT, Phase.TURN_END, Phase.GAME_END, Phase.EXCHANGE)
"""Where the aggressive player always stops: no fortify, no Command card (both always legal to skip)."""


def _best_invasion(state: GameState2210, seat: int) -> tuple[int, int]:
    """The declarable invasion with the biggest edge of movable units over the defenders, if not behind."""
    best, best_edge = (-1, -1), -1
    for source, target in state.invasions(seat):
        edge = state.units(source) - 1 - state.units(target)
        if edge > best_edge:
            best, best_edge = (source, target), edge
    return best


def _front(state: GameState2210, seat: int) -> int:
    """Where new units go: the source of the best invasion, else the first territory ``seat`` controls."""
    owner, neighbours, units = state.owner, state.board.neighbours, state.units
    best, best_edge = -1, -(1 << 30)
    for t in state.controlled(seat):
        here = units(t)
        for n in neighbours[t]:
            if owner[n] != seat and not state.devastated[n] and here - units(n) > best_edge:
                best, best_edge = t, here - units(n)
    return best if best >= 0 else state.controlled(seat)[0]


def _occupy_all(state: GameState2210) -> Action2210:
    """Every MOD and the commanders that must move in, keeping one unit behind."""
    assert state.pending is not None
    source = state.pending[0]
    least, must = state.move_in
    stay = [c for c in state.commanders_in(source) if c not in must]
    mods = state.mods[source] if stay else state.mods[source] - 1
    if mods < 0 or mods + len(must) < least:
        return default_action(legal_actions(state, state.to_act))
    return Occupy(mods, must)
