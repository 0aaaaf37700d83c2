"""Issue 22, for RISK 2210 A.D.: "A flat action space with an action mask derived from the engine's legal
actions ... Every masked-in action is legal, every legal action is reachable through the mask (tested over
thousands of random states)."

Counts, bids and card targets are bucketed (docs/training.md, "RISK 2210 A.D."), so "every legal action"
is every legal choice of each kind (each territory, commander, marker, deck, invasion, card and target, set
of commanders, bought count vector) with its least and most counts where a count is free: the setup's Land
Commander, Diplomat and Space Station on any three territories (apart or together), and a fortify or a decoy
move of any set of a territory's commanders, not only all of them; every masked-in
index must decode to one distinct action that the engine's own check (``Legal2210.problem``, what
``apply`` runs) accepts, and a sample of them is applied to copies of the game.

The states come from games played by the engine's random policy (not through the mask) at every player
count, with the rules options that open the rarer decisions (the defender's dice, chosen losses), and in
some games the turn seat is dealt Armageddon, MOD Reduction and Decoys Revealed (as in
``tests/engine/test_r2210_properties.py``) so the exchange, MOD Reduction and decoy moves come up too.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Hashable

from conquest_sdk.encoding_2210 import BUY_COUNTS, Layout2210
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
from engine.r2210.cards import KIND_OF, KINDS
from engine.r2210.game import apply, legal_actions, new_game_2210
from engine.r2210.legal import Legal2210
from engine.r2210.policies import random_action
from engine.r2210.rules import Rules2210
from engine.r2210.state import GameState2210
from engine.rules import DefenderDice
from server.play.convert_2210 import action_from_pb_2210, legal_2210, map_2210, rules_info_2210

Key = tuple[Hashable, ...]


def _subsets(commanders: tuple[Commander, ...]) -> list[frozenset[Commander]]:
    return [
        frozenset(c for i, c in enumerate(commanders) if bits >> i & 1)
        for bits in range(1 << len(commanders))
    ]


def expected_keys(legal: Legal2210) -> set[Key]:
    """Every legal choice of ``legal``, read from the engine's Legal2210 (not through the encoding)."""
    out: set[Key] = {("end",)} if legal.can_end else set()
    phase, t = legal.phase, legal.territories
    if phase == Phase.SETUP_CLAIM:
        out |= {("claim", x) for x in t}
    if phase in (Phase.SETUP_PLACE, Phase.DEPLOY):
        out |= {("place", x, n) for x in t for n in (1, legal.place_max)}
    if phase == Phase.SETUP_COMMANDERS:  # the commanders and the station on any territories, apart or not
        out |= {("place_commanders", a, b, c) for a in t for b in t for c in t}
    if phase == Phase.BID:
        out |= {("bid", 0), ("bid", legal.bid_max)}
    out |= {("marker", m) for m in legal.markers}
    if phase == Phase.BUY:
        out |= {("hire", c, x) for c in legal.hires for x in t}
        out |= {("station", x) for x in legal.stations}
        decks = legal.card_decks
        out |= {
            ("buy", counts)
            for counts in BUY_COUNTS
            if legal.buy_max
            and sum(counts) <= legal.buy_max
            and all(n <= decks[d] for d, n in enumerate(counts))
        }
    if phase == Phase.BONUS_CARD:
        out |= {("take", d) for d, n in enumerate(legal.card_decks) if n}
    out |= {("declare", s, x) for s, x in legal.invasions}
    if phase == Phase.ROLL:
        out |= {
            ("roll", dice, sub)
            for dice in range(1, legal.dice_max + 1)
            for sub in _subsets(legal.d8)
            if len(sub) <= dice
        }
    out |= {("defend", d) for d in range(1, legal.defend_max + 1)}
    if phase == Phase.LOSSES:
        out |= {
            ("lose", sub)
            for sub in _subsets(legal.occupy_commanders)
            if 0 <= legal.lose - len(sub) <= legal.occupy_mods
        }
    if phase == Phase.REDUCE:
        out |= {("remove", x) for x, n in zip(t, legal.mods_at, strict=True) if n}
    if phase == Phase.OCCUPY:
        there = legal.occupy_commanders
        for sub in _subsets(there):
            least = max(0, legal.occupy_min - len(sub))
            most = min(legal.occupy_mods, legal.occupy_mods + len(there) - 1 - len(sub))
            if set(legal.must_move) <= sub and least <= most:
                out |= {("occupy", sub, least), ("occupy", sub, most)}
    if phase == Phase.FORTIFY:  # any set of the commanders there (some, all or none), with the fewest and
        for source, targets, mods, there in legal.fortify:  # the most MODs that leave one unit behind
            for sub in _subsets(there):
                least = 0 if sub else 1
                most = min(mods, mods + len(there) - 1 - len(sub))
                if least <= most:
                    out |= {("fortify", source, x, sub, n) for x in targets for n in (least, most)}
    if phase == Phase.DECOYS:  # any set of one territory's commanders, alone
        out |= {
            ("decoys", sub, x)
            for source, targets, _, there in legal.fortify
            for sub in _subsets(there)
            if sub
            for x in targets
        }
    for card, targets, _ in legal.plays:
        out |= {("play", KIND_OF[card], x) for x in targets} if targets else {("play", KIND_OF[card])}
    return out


def keys(action: Action2210, phase: Phase) -> set[Key]:
    """The choices one action makes, in ``expected_keys``' terms."""
    if isinstance(action, EndPhase):
        return {("end",)}
    if isinstance(action, Claim):
        return {("claim", action.territory)}
    if isinstance(action, Place):
        return {("place", action.territory, action.mods)}
    if isinstance(action, PlaceCommanders):
        return {("place_commanders", action.land, action.diplomat, action.station)}
    if isinstance(action, Bid):
        return {("bid", action.energy)}
    if isinstance(action, ChooseMarker):
        return {("marker", action.marker)}
    if isinstance(action, Hire):
        return {("hire", action.commander, action.territory)}
    if isinstance(action, BuildStation):
        return {("station", action.territory)}
    if isinstance(action, BuyCards):
        return {("buy", action.counts)}
    if isinstance(action, TakeCard):
        return {("take", action.deck)}
    if isinstance(action, Declare):
        return {("declare", action.source, action.target)}
    if isinstance(action, Roll):
        return {("roll", action.dice, frozenset(action.d8))}
    if isinstance(action, Defend):
        return {("defend", action.dice)}
    if isinstance(action, Lose):
        return {("lose", frozenset(action.commanders))}
    if isinstance(action, Remove):
        return {("remove", x) for x in action.territories}
    if isinstance(action, Occupy):
        return {("occupy", frozenset(action.commanders), action.mods)}
    if isinstance(action, Fortify) and phase == Phase.DECOYS:
        return {("decoys", frozenset(action.commanders), action.target)}
    if isinstance(action, Fortify):
        return {("fortify", action.source, action.target, frozenset(action.commanders), action.mods)}
    assert isinstance(action, PlayCard)
    kind = KIND_OF[action.card]
    return {("play", kind, x) for x in action.targets} if action.targets else {("play", kind)}


def _normal(action: Action2210) -> Action2210:
    """``action`` with its commanders and removed territories in order (the engine reads them as sets)."""
    fields = [
        tuple(sorted(v)) if isinstance(v, tuple) and not isinstance(action, BuyCards) else v for v in action
    ]
    return type(action)(*fields)  # type: ignore[arg-type]  # the same fields, reordered


def _deal_card_decisions(state: GameState2210) -> None:
    """Give the turn seat Armageddon, MOD Reduction and Decoys Revealed with the commanders and energy to
    play them, and every other living seat a Nuclear card and Commander."""

    def deal(seat: int, key: str) -> None:
        card = next(
            c for c in range(len(KIND_OF)) if KINDS[KIND_OF[c]][0] == key and c not in state.hands[seat]
        )
        for pile in (*state.command_decks, state.card_discard, *state.hands):
            if card in pile:
                pile.remove(card)
        state.hands[seat].append(card)

    def enlist(seat: int, *commanders: Commander) -> None:
        home = next(t for t in state.controlled(seat) if state.units(t) > 0)
        for c in commanders:
            if not state.in_play(seat, c):
                state.commander_at[seat * 5 + c] = home

    turn = state.turn_seat
    enlist(turn, Commander.DIPLOMAT, Commander.NUCLEAR)
    state.energy[turn] += 6
    for key in ("nuclear_armageddon", "diplomat_mod_reduction", "diplomat_decoys_revealed"):
        deal(turn, key)
    for s in range(state.seats):
        if s != turn and state.alive[s]:
            enlist(s, Commander.NUCLEAR)
            deal(s, "nuclear_rocket_strike_land")


def _check(layout: Layout2210, state: GameState2210, seat: int, rng: random.Random) -> int:
    legal = legal_actions(state, seat)
    message = legal_2210(legal)
    mask = layout.mask(message)
    indices = [int(i) for i in mask.nonzero()[0]]
    decoded = [_normal(action_from_pb_2210(layout.decode(i, message))) for i in indices]
    for index, action in zip(indices, decoded, strict=True):
        assert legal.problem(action) == "", f"index {index} -> {action}: {legal.problem(action)}"
    assert len(set(decoded)) == len(decoded), "two masked-in indices name the same action"
    reached = set().union(*(keys(a, legal.phase) for a in decoded)) if decoded else set()
    missing = expected_keys(legal) - reached
    assert not missing, (
        f"{legal.phase.name}: legal choices the mask cannot reach: {sorted(map(str, missing))[:8]}"
    )
    for action in rng.sample(decoded, min(2, len(decoded))):
        apply(state.clone(), action, seat)  # the engine accepts it (raises otherwise)
    return len(indices)


def test_2210_mask_is_exactly_legal_and_reaches_every_legal_choice_over_thousands_of_states() -> None:
    phases: Counter[Phase] = Counter()
    played = 0
    for seed in range(16):
        seats = 2 + seed % 4
        rules = Rules2210(
            defender_dice=DefenderDice.CHOOSE if seed % 2 else DefenderDice.MAX,
            choose_losses=seed % 3 != 2,
            armageddon_all=seed % 5 != 4,
        )
        state, _ = new_game_2210(rules, seats, seed)
        layout = Layout2210(rules_info_2210(rules, seats), map_2210(state.board, rules), seats)
        rng = random.Random(seed)
        dealt = seed % 2 == 0
        while not state.is_over():
            if dealt and state.year >= 2 and state.phase == Phase.INVADE and not state.invaded:
                _deal_card_decisions(state)
                dealt = False
            seat = state.asked[0]
            phases[state.phase] += 1
            assert _check(layout, state, seat, rng) >= 1, "a decision with an empty mask"
            apply(state, random_action(legal_actions(state, seat), rng), seat)
            played += 1
    assert played >= 3000, played
    decisions = set(Phase) - {Phase.GAME_OVER}
    assert set(phases) == decisions, f"never reached: {decisions - set(phases)}"
