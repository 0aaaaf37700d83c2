"""Random RISK 2210 A.D. games (issue 19's engine foundation): thousands of seeded games with random legal
play reach the end of year 5 (or a conquest) without an illegal state, every legal action applies, and
observations hide the bids before the reveal, the decks' order and the identities of others' cards."""

from __future__ import annotations

import ast
import random
from collections import Counter
from itertools import combinations, islice
from pathlib import Path

import pytest

from engine.r2210 import state as state_module
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
from engine.r2210.board import Kind
from engine.r2210.cards import DECK_CARDS, DECK_OF, EFFECT, KIND_OF, KINDS
from engine.r2210.events import SECRETS, seen_by
from engine.r2210.game import apply, legal_actions, new_game_2210
from engine.r2210.legal import Legal2210
from engine.r2210.observe import observe_2210
from engine.r2210.policies import aggressive_2210, default_action, random_action
from engine.r2210.rules import Rules2210
from engine.r2210.state import GameState2210
from engine.rules import DefenderDice

GAMES = 2000
CHUNK = 100


def check_invariants(state: GameState2210) -> None:
    """What no legal play may break."""
    seats, board = state.seats, state.board
    for t in range(board.size):
        owner, units = state.owner[t], state.units(t)
        assert state.mods[t] >= 0
        if state.devastated[t]:
            assert owner == -1 and state.station[t] == -1, f"devastated {t} is occupied"
        if owner == -1:
            assert units == 0 and state.station[t] == -1, f"territory {t} has units but no controller"
        else:
            moving_in = state.phase == Phase.OCCUPY and state.pending is not None and state.pending[1] == t
            assert units > 0 or state.station[t] == owner or moving_in, f"{t} is controlled by nothing"
        if state.station[t] >= 0:
            assert state.station[t] == owner and board.kinds[t] == Kind.LAND
    held = [c for hand in state.hands for c in hand]
    cards = sorted(held + state.card_discard + [c for deck in state.command_decks for c in deck])
    assert cards == list(range(100)), "a Command card was lost or duplicated"
    for s in range(seats):
        assert state.energy[s] >= 0
        assert state.alive[s] or not state.hands[s], "an eliminated seat kept its Command cards"
        assert state.stations_of(s) <= state.rules.max_stations
        for c in range(5):
            t = state.commander_at[s * 5 + c]
            assert t == -1 or state.owner[t] == s, f"seat {s}'s commander {c} stands in {t}, not its own"
        if state.alive[s] and state.phase != Phase.SETUP_CLAIM:
            assert any(state.owner[t] == s and state.units(t) > 0 for t in range(board.size))
    if state.neutral >= 0 and state.phase in (Phase.SETUP_CLAIM, Phase.SETUP_PLACE):
        assert all(state.mods[t] == 3 for t in range(board.size) if state.owner[t] == state.neutral)


def every_action(legal: Legal2210, cap: int = 40) -> list[Action2210]:
    """Concrete legal actions of every kind ``legal`` offers (a bounded sample for the large sets)."""
    phase, t = legal.phase, legal.territories
    out: list[Action2210] = [EndPhase()] if legal.can_end else []
    if phase == Phase.SETUP_CLAIM:
        out += [Claim(x) for x in t]
    elif phase in (Phase.SETUP_PLACE, Phase.DEPLOY):
        out += [Place(x, n) for x in t[:5] for n in (1, legal.place_max)]
    elif phase == Phase.SETUP_COMMANDERS:
        out += [PlaceCommanders(a, b, c) for a in t[:2] for b in t[:2] for c in t[:2]]
    elif phase == Phase.BID:
        out += [Bid(e) for e in range(legal.bid_max + 1)]
    elif phase == Phase.CHOOSE_MARKER:
        out += [ChooseMarker(m) for m in legal.markers]
    elif phase == Phase.BUY:
        out += [Hire(c, x) for c in legal.hires for x in t[:3]]
        out += [BuildStation(x) for x in legal.stations]
        for deck, size in enumerate(legal.card_decks):
            for n in range(1, min(size, legal.buy_max) + 1):
                out.append(BuyCards(tuple(n if d == deck else 0 for d in range(5))))
    elif phase == Phase.BONUS_CARD:
        out += [TakeCard(Commander(d)) for d, n in enumerate(legal.card_decks) if n]
    elif phase == Phase.INVADE:
        out += [Declare(s, x) for s, x in legal.invasions]
    elif phase == Phase.ROLL:
        for dice in range(1, legal.dice_max + 1):
            for k in range(min(dice, len(legal.d8)) + 1):
                out += [Roll(dice, d8) for d8 in combinations(legal.d8, k)]
    elif phase == Phase.DEFEND:
        out += [Defend(d) for d in range(1, legal.defend_max + 1)]
    elif phase == Phase.LOSSES:
        for mods in range(min(legal.lose, legal.occupy_mods) + 1):
            out += [Lose(mods, c) for c in combinations(legal.occupy_commanders, legal.lose - mods)]
    elif phase == Phase.OCCUPY:
        optional = [c for c in legal.occupy_commanders if c not in legal.must_move]
        for k in range(len(optional) + 1):
            for extra in combinations(optional, k):
                chosen = (*legal.must_move, *extra)
                left = legal.occupy_mods + len(legal.occupy_commanders) - len(chosen)
                for mods in range(legal.occupy_mods + 1):
                    if mods + len(chosen) >= legal.occupy_min and left - mods >= 1:
                        out.append(Occupy(mods, chosen))
    elif phase == Phase.FORTIFY:
        for source, targets, mods, _ in legal.fortify:
            out += [Fortify(source, x, m) for x in targets[:3] for m in range(1, mods) if m < 3]
    elif phase == Phase.REDUCE:
        pool = [t for t, n in zip(legal.territories, legal.mods_at, strict=True) for _ in range(n)]
        out += [Remove(c) for c in islice(combinations(pool, legal.lose), 0, None, 7)][:10]
    elif phase == Phase.DECOYS:
        for source, targets, _, there in legal.fortify:
            for k in range(1, len(there) + 1):
                out += [Fortify(source, x, 0, c) for x in targets[:2] for c in combinations(there, k)]
    for card, targets, picks in legal.plays:
        out += [PlayCard(card, aims) for aims in list(combinations(targets, picks))[:3]]
    return out[:cap] if len(out) > cap else out


def play(seats: int, seed: int, rules: Rules2210, deep: bool) -> GameState2210:
    state, _ = new_game_2210(rules, seats, seed)
    rng = random.Random(seed)
    steps = 0
    while not state.is_over():
        asked = state.asked
        assert asked, f"nobody is asked in {state.phase.name}"
        seat = rng.choice(asked)
        legal = legal_actions(state, seat)
        if deep and steps % 7 == 0:
            for action in (*every_action(legal), default_action(legal)):
                apply(state.clone(), action, seat)  # raises if a legal action does not apply
        apply(state, random_action(legal, rng), seat)
        if deep:
            check_invariants(state)
        steps += 1
        assert steps < 20_000, "a random game did not end"
    return state


@pytest.mark.parametrize("chunk", range(GAMES // CHUNK))
def test_thousands_of_random_games_reach_the_end(chunk: int) -> None:
    """004 YOUR MISSION: "The war lasts 5 years"; WINNING: "At the end of Year 5, the final score for the
    game is calculated". Every tenth game checks the invariants after every action and applies every
    legal action (a bounded sample) and the timeout default to a copy every seventh decision."""
    for seed in range(chunk * CHUNK, (chunk + 1) * CHUNK):
        seats = 2 + seed % 4
        rules = Rules2210(
            defender_dice=DefenderDice.CHOOSE if seed % 3 == 0 else DefenderDice.MAX,
            choose_losses=seed % 2 == 1,
        )
        state = play(seats, seed, rules, deep=seed % 10 == 0)
        check_invariants(state)
        assert state.end_reason in ("year_5", "conquest")
        if state.end_reason == "year_5":
            assert state.year == 5
        alive = [s for s in range(seats) if state.alive[s]]
        assert sorted(state.places[s] for s in state.eliminated) == list(range(len(alive) + 1, seats + 1))
        assert min(state.places[s] for s in alive) == 1
        for s in alive:
            assert state.scores[s] == state.score(s)


def test_random_games_play_cards_in_every_window() -> None:
    """Issue 19: "Extend the random-policy property test so random games play cards": random players play
    the cards they may, in every window (before the first invasion, in answer to an invasion, at the end of
    a turn and of the game), and most kinds of effect come up."""
    effects: Counter[str] = Counter()
    phases: set[Phase] = set()
    for seed in range(40):
        state, _ = new_game_2210(Rules2210(), 2 + seed % 4, seed)
        rng = random.Random(seed)
        while not state.is_over():
            seat = state.asked[0]
            phases.add(state.phase)
            for event in apply(state, random_action(legal_actions(state, seat), rng), seat):
                if event.kind == "card_played":
                    effects[EFFECT[KIND_OF[event.data["card"]]]] += 1
        check_invariants(state)
    assert {Phase.REACT, Phase.TURN_END, Phase.GAME_END} <= phases
    assert len(effects) >= 15, effects


CARD_DECISIONS = {Phase.EXCHANGE, Phase.REDUCE, Phase.DECOYS}
"""The decisions Armageddon, MOD Reduction and Decoys Revealed open."""
OTHERS_NUCLEAR = (
    "nuclear_assassin_bomb",
    "nuclear_rocket_strike_land",
    "nuclear_scatter_bomb_land",
    "nuclear_the_mother",
)


def _deal(state: GameState2210, seat: int, key: str) -> None:
    """Move a copy of card kind ``key`` that ``seat`` does not hold into its hand, from wherever it is."""
    card = next(c for c in range(100) if KINDS[KIND_OF[c]][0] == key and c not in state.hands[seat])
    for pile in (*state.command_decks, state.card_discard, *state.hands):
        if card in pile:
            pile.remove(card)
    state.hands[seat].append(card)


def _enlist(state: GameState2210, seat: int, *commanders: Commander) -> None:
    """Put ``seat``'s missing ``commanders`` into a territory it holds units in (as hiring would)."""
    home = next(t for t in state.controlled(seat) if state.units(t) > 0)
    for c in commanders:
        if not state.in_play(seat, c):
            state.commander_at[seat * 5 + c] = home


def test_random_positions_play_the_cards_that_open_decisions() -> None:
    """Issue 19: "all 100 cards of the five decks with their effects" and "reactions asked of a seat that is
    not the one to move". In random positions (year 2, before the turn seat's first invasion) the turn seat is
    dealt Armageddon, MOD Reduction and Decoys Revealed with the Commanders and energy they need, every other
    seat a Nuclear card and Commander; random players play on to the end. The invariants hold after every
    action, and in EXCHANGE, REDUCE and DECOYS every legal action (a bounded sample) and the timeout default
    apply to a copy; all three decisions come up."""
    reached: Counter[Phase] = Counter()
    for seed in range(30):
        rules = Rules2210(choose_losses=seed % 2 == 1, armageddon_all=seed % 5 != 4)
        state, _ = new_game_2210(rules, 2 + seed % 4, seed)
        rng = random.Random(seed)
        while not state.is_over() and not (state.year >= 2 and state.phase == Phase.INVADE):
            seat = state.asked[0]
            apply(state, random_action(legal_actions(state, seat), rng), seat)
        if state.is_over():
            continue
        turn = state.turn_seat
        _enlist(state, turn, Commander.DIPLOMAT, Commander.NUCLEAR)
        state.energy[turn] += 6
        for key in ("nuclear_armageddon", "diplomat_mod_reduction", "diplomat_decoys_revealed"):
            _deal(state, turn, key)
        others = [s for s in range(state.seats) if s != turn and state.alive[s]]
        for s, key in zip(others, OTHERS_NUCLEAR, strict=False):
            _enlist(state, s, Commander.NUCLEAR)
            _deal(state, s, key)
        check_invariants(state)
        while not state.is_over():
            seat = rng.choice(state.asked)
            legal = legal_actions(state, seat)
            if state.phase in CARD_DECISIONS:
                reached[state.phase] += 1
                for action in (*every_action(legal), default_action(legal)):
                    apply(state.clone(), action, seat)
            apply(state, random_action(legal, rng), seat)
            check_invariants(state)
    assert set(reached) == CARD_DECISIONS, reached


def _hidden_changed(state: GameState2210, seat: int) -> GameState2210:
    """The same game with every fact ``seat`` may not see changed: decks' order, other seats' secret bids,
    the identities of other seats' Command cards (swapped for cards of the same deck)."""
    other = state.clone()
    for deck in (other.land_deck, other.water_deck, other.lunar_deck, *other.command_decks):
        deck.reverse()
    for s, hand in enumerate(other.hands):
        if s != seat:
            hand[:] = [_same_deck_twin(c) for c in hand]
    if not other.bids_revealed:
        other.bids = [b if s == seat or b < 0 else (b + 1) for s, b in enumerate(other.bids)]
    other.dice.uniform(6)  # the stream moves on: no observation may show where it is
    return other


def _same_deck_twin(card: int) -> int:
    """Another card id of the same deck (the deck is public, the card is not)."""
    cards = DECK_CARDS[DECK_OF[card]]
    return cards[(cards.index(card) + 1) % len(cards)]


def test_observations_hide_bids_before_the_reveal_and_the_decks() -> None:
    """004: "Secretly choose how many you want to bid"; "How much energy a player has is public knowledge";
    issue 19: "card identities and bids before the reveal are not" public."""
    rng = random.Random(5)
    for seed in range(40):
        state, _ = new_game_2210(Rules2210(), 2 + seed % 4, seed)
        while not state.is_over():
            for seat in range(-1, state.seats):
                assert observe_2210(state, seat) == observe_2210(_hidden_changed(state, seat), seat)
                view = observe_2210(state, seat)
                assert view.energy == tuple(state.energy)
                if state.phase == Phase.BID:
                    assert all(b == -1 for s, b in enumerate(view.bids) if s != seat)
            seat = rng.choice(state.asked)
            apply(state, random_action(legal_actions(state, seat), rng), seat)


def test_a_game_is_its_seed_and_its_actions() -> None:
    """docs/architecture.md: a game is (rules, seats, seed, actions); re-applying the actions reproduces
    every state and every event."""
    for seed in (3, 4):
        rng = random.Random(seed)
        state, first = new_game_2210(Rules2210(), 3, seed)
        played, events = [], [first]
        while not state.is_over():
            seat = rng.choice(state.asked)
            action = random_action(legal_actions(state, seat), rng)
            played.append((seat, action))
            events.append(apply(state, action, seat))
        again, replayed = new_game_2210(Rules2210(), 3, seed)
        assert replayed == events[0]
        for (seat, action), expected in zip(played, events[1:], strict=True):
            assert apply(again, action, seat) == expected
        assert again.fingerprint() == state.fingerprint()


def test_private_events_reach_only_their_seat() -> None:
    """004: bids are secret until "Players reveal their bids at the same time"; "The actual cards
    themselves are always kept secret". Every other seat and a spectator see such an event with its secret
    -1 (``seen_by``)."""
    state, _ = new_game_2210(Rules2210(), 3, 1)
    rng = random.Random(1)
    private_seen = 0
    while not state.is_over():
        seat = rng.choice(state.asked)
        events = apply(state, random_action(legal_actions(state, seat), rng), seat)
        for viewer in (-1, 0, 1, 2):
            for event in events:
                seen = seen_by(event, viewer)
                if event.private and event.seat != viewer:
                    secret = seen.data[SECRETS[event.kind]]
                    assert secret == -1 or set(secret) == {-1}
                else:
                    assert seen == event
        private_seen += sum(1 for e in events if e.private)
    assert private_seen > 0


def test_the_aggressive_policy_plays_legal_games_to_the_end() -> None:
    """The benchmark's 2210 player (``aggressive_2210``) answers every decision legally (``apply`` checks
    each action) and its games reach the end of year 5 or a conquest."""
    for seed in range(12):
        state, _ = new_game_2210(Rules2210(), 2 + seed % 4, seed)
        while not state.is_over():
            seat = state.asked[0]
            apply(state, aggressive_2210(state, seat), seat)
        check_invariants(state)
        assert state.end_reason in ("year_5", "conquest")


def test_clone_and_snapshot_cover_every_field() -> None:
    """A compiled state has no ``__dict__``: ``clone`` and ``snapshot`` copy the fields named in
    ``state._FIELDS``, which must name every field ``__init__`` sets (else a clone would share or lose it)."""
    source = Path(state_module.__file__ or "").with_name("state.py").read_text()
    init = next(
        node
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.FunctionDef) and node.name == "__init__"
    )
    assigned = {
        target.attr
        for node in ast.walk(init)
        for target in (node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)])
        if isinstance(target, ast.Attribute)
    }
    fields = set(state_module._FIELDS) | set(state_module._SET_ONLY_FIELDS)
    assert assigned - {"rules", "board", "seats", "seed", "dice"} == fields
