"""When a seat may play a Command card and on what: the timing windows, power-up costs and targets.

004 PLAY COMMAND CARDS: "You may play as many Command cards as you wish ... You must have the
corresponding Commander in play ... and pay the power-up cost". The windows (``WINDOWS``) attach to
decisions of the turn: INVADE before the turn's first ``Declare``; REACT between a ``Declare`` and its
``Roll``; TURN_END after FORTIFY; GAME_END before the scoring; EXCHANGE, the nuclear exchange an Armageddon
opens. What each card does is ``engine.r2210.effects``; who decides next, ``engine.r2210.cardflow``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from engine.r2210.actions import COMMANDERS, Commander, Phase
from engine.r2210.board import Kind
from engine.r2210.cards import DECK_OF, EFFECT, KIND_OF, KINDS, TERRAIN
from engine.r2210.events import Event2210
from engine.r2210.state import NOBODY, GameState2210

BEFORE_INVADING = "before_first_invasion"
REACTION = "opponent_invades"
END_OF_TURN = "end_of_turn"
END_OF_GAME = "end_of_game"
NUCLEAR_EXCHANGE = "nuclear_exchange"
"""Armageddon: "every player may play any number of Nuclear Command cards without paying their power-up
cost" (any Nuclear card, whatever its own timing)."""

WINDOWS = {
    Phase.INVADE: BEFORE_INVADING,
    Phase.REACT: REACTION,
    Phase.TURN_END: END_OF_TURN,
    Phase.EXCHANGE: NUCLEAR_EXCHANGE,
}
"""The window each phase opens (GAME_END: ``END_OF_GAME``); INVADE only before the first invasion."""

TIMING: tuple[str, ...] = tuple([KINDS[k][5] for k in KIND_OF])
"""The timing window of each card id."""
_KINDS_IN_WINDOW: dict[str, tuple[tuple[int, ...], ...]] = {
    timing: tuple(
        tuple(
            [
                k
                for k in range(len(KINDS))
                if KINDS[k][1] == deck
                and (deck == Commander.NUCLEAR if timing == NUCLEAR_EXCHANGE else KINDS[k][5] == timing)
            ]
        )
        for deck in COMMANDERS
    )
    for timing in (BEFORE_INVADING, REACTION, END_OF_TURN, END_OF_GAME, NUCLEAR_EXCHANGE)
}
"""Per window, per deck (Commander order): the kinds of card of that deck that may be played in it (in the
nuclear exchange, every Nuclear kind)."""


class CardChoice(NamedTuple):
    """A card the seat may play now: one id per kind of card held (any copy plays the same)."""

    card: int
    targets: tuple[int, ...]
    """What it may be played on (territories; seats for Frequency Jam; ``seat * 5 + commander`` for
    Assassin Bomb); empty for a card without a target."""
    picks: int
    """How many distinct ``targets`` the play names."""


def window(state: GameState2210, seat: int) -> str:
    """The window open to ``seat`` now ("" when none)."""
    phase = state.phase
    if seat != state.to_act:
        return ""
    if phase == Phase.INVADE:
        return "" if state.invaded else BEFORE_INVADING
    if phase == Phase.GAME_END:
        return END_OF_GAME
    return WINDOWS.get(phase, "")


def plays(state: GameState2210, seat: int, timing: str) -> tuple[CardChoice, ...]:
    """The cards ``seat`` may play in window ``timing`` (nothing when jammed or holding none); in the
    nuclear exchange its Nuclear cards, free."""
    hand = state.hands[seat] if 0 <= seat < state.seats else []
    if not hand or seat in state.jammed:
        return ()
    exchange = timing == NUCLEAR_EXCHANGE
    if exchange:
        timely = [card for card in hand if DECK_OF[card] == Commander.NUCLEAR]
    else:
        timely = [card for card in hand if TIMING[card] == timing]
    if not timely:
        return ()
    out: list[CardChoice] = []
    seen: set[int] = set()
    for card in sorted(timely):
        kind = KIND_OF[card]
        if kind in seen:
            continue
        _, deck, _, _, cost, _ = KINDS[kind]
        if not state.in_play(seat, Commander(deck)) or (state.energy[seat] < cost and not exchange):
            continue
        options = targets(state, seat, kind)
        if options is not None:
            seen.add(kind)
            out.append(CardChoice(card, options[0], options[1]))
    return tuple(out)


def could_play(state: GameState2210, seat: int, timing: str) -> bool:
    """Whether ``seat`` might hold a card it may play in window ``timing`` now, judged only from what every
    seat knows: how many cards of each deck it holds, never which. Who is asked in a card window follows
    this, so that being asked tells nobody what a hand holds (004: "The types of cards a player has, and
    how many of those cards, is public knowledge. The actual cards themselves are always kept secret."); a
    seat asked that holds nothing playable passes."""
    hand = state.hands[seat] if 0 <= seat < state.seats else []
    if not hand or seat in state.jammed:
        return False
    exchange = timing == NUCLEAR_EXCHANGE
    energy, window_kinds = state.energy[seat], _KINDS_IN_WINDOW[timing]
    for deck in {DECK_OF[card] for card in hand}:
        if state.commander_at[seat * 5 + deck] < 0:
            continue
        for kind in window_kinds[deck]:
            if (exchange or energy >= KINDS[kind][4]) and targets(state, seat, kind) is not None:
                return True
    return False


def targets(state: GameState2210, seat: int, kind: int) -> tuple[tuple[int, ...], int] | None:
    """(targets, picks) of card ``kind`` for ``seat`` now, or None when it cannot be played."""
    effect, terrain = EFFECT[kind], TERRAIN[kind]
    if effect in _REACTIONS:
        return _reaction_targets(state, seat, effect, terrain)
    board = state.board
    if effect in ("assemble_mods", "reinforcements"):
        own = tuple([t for t in state.controlled(seat) if board.kinds[t] == terrain])
        if not own:
            return None
        return own, (1 if effect == "assemble_mods" else min(3, len(own)))
    if effect == "frequency_jam":
        others = tuple(
            s for s in range(state.seats) if s != seat and state.alive[s] and s not in state.jammed
        )
        return (others, 1) if others else None
    if effect == "territorial_station":
        if state.stations_of(seat) >= state.rules.max_stations:
            return None
        land = tuple(
            t for t in state.controlled(seat) if board.kinds[t] == Kind.LAND and state.station[t] < 0
        )
        return (land, 1) if land else None
    if effect == "assassin_bomb":
        aims = tuple(
            s * 5 + c for s in range(state.seats) if s != seat for c in COMMANDERS if state.in_play(s, c)
        )
        return (aims, 1) if aims else None
    if effect == "rocket_strike":
        hit = tuple(
            t
            for t in range(board.size)
            if board.kinds[t] == terrain and state.owner[t] not in (seat, NOBODY) and state.units(t) > 0
        )
        return (hit, 1) if hit else None
    if effect in _DRAWS_FROM:
        # Not offered when its deck is empty (docs/rules.md, open point 16): the card stays in the hand.
        deck = territory_deck(state, _DRAWS_FROM[effect] if _DRAWS_FROM[effect] >= 0 else terrain)
        return ((), 0) if deck else None
    if effect == "decoys_revealed":
        return ((), 0) if decoy_moves(state, seat, COMMANDERS) else None
    # energy_crisis, energy_extraction, zone_bomb, redeployment, colony_influence, mod_reduction, armageddon:
    # no target
    return ((), 0)


def decoy_moves(
    state: GameState2210, seat: int, commanders: Sequence[int]
) -> list[tuple[int, tuple[Commander, ...], tuple[int, ...]]]:
    """Decoys Revealed: (where, ``commanders`` of ``seat`` standing there, territories they may move to).

    "Move any number of your commanders from where they stand to any territories you control (on either
    board), no path or adjacency needed"; "Only commanders already on a board" (rulebook Q&A).
    """
    own = state.controlled(seat)
    out: list[tuple[int, tuple[Commander, ...], tuple[int, ...]]] = []
    for t in own:
        here = tuple([Commander(c) for c in commanders if state.commander_at[seat * 5 + c] == t])
        away = tuple([x for x in own if x != t])
        if here and away:
            out.append((t, here, away))
    return out


_DRAWS_FROM: dict[str, int] = {
    "hidden_energy": Kind.WATER,
    "scout_forces": Kind.LAND,
    "invade_earth": Kind.LAND,
    "scatter_bomb": -1,
}
"""The territory deck each drawing card takes from (-1: its own terrain's: the Scatter Bombs)."""
_REACTIONS = frozenset({"stealth_mods", "cease_fire", "evacuation", "death_trap", "stealth_station"})


def _reaction_targets(
    state: GameState2210, seat: int, effect: str, terrain: int
) -> tuple[tuple[int, ...], int] | None:
    """004 and the cards' text: reactions answer the declared invasion of a territory of their kind;
    Stealth MODs may be played by anyone but the attacker, the others only by the defender."""
    if state.pending is None or seat == state.turn_seat:
        return None
    target = state.pending[1]
    kind = state.board.kinds[target]
    defender = state.owner[target]
    if terrain >= 0 and kind != terrain:
        return None
    if effect == "stealth_mods":
        return ((), 0) if defender != NOBODY else None
    if seat != defender:
        return None
    if effect == "evacuation":
        away = tuple([t for t in state.controlled(seat) if t != target])
        return (away, 1) if away and state.units(target) > 0 else None
    if effect == "stealth_station":
        free = state.station[target] < 0 and state.stations_of(seat) < state.rules.max_stations
        return ((), 0) if kind == Kind.LAND and free else None
    return ((), 0)  # cease_fire, death_trap


def territory_deck(state: GameState2210, kind: int) -> list[int]:
    if kind == Kind.WATER:
        return state.water_deck
    return state.lunar_deck if kind == Kind.LUNAR else state.land_deck


def open_reactions(state: GameState2210) -> bool:
    """After a ``Declare``: ask the seats that might answer it by what every seat knows (``could_play``:
    the defender first, then the others in turn order from the attacker's left; docs/rules.md open point
    7). False when none might."""
    assert state.pending is not None
    attacker = state.turn_seat
    defender = state.owner[state.pending[1]]
    order = list(state.order)
    start = order.index(attacker)
    others = [order[(start + i) % len(order)] for i in range(1, len(order))]
    seats = [defender] + [s for s in others if s != defender] if defender in others else others
    state.reactors = [s for s in seats if state.alive[s] and could_play(state, s, REACTION)]
    if not state.reactors:
        return False
    state.phase = Phase.REACT
    state.to_act = state.reactors[0]
    return True


def settle_turn(state: GameState2210, events: list[Event2210]) -> None:
    """The end of the turn seat's turn: Hidden Energy and Energy Extraction pay out, Frequency Jams and
    the turn's Cease Fires and Invade Earth targets lapse.

    Hidden Energy: "If you control that water territory at the end of this turn, gain 4 energy."
    Energy Extraction: "If at the end of this turn you control every lunar territory (all 14), gain 7
    energy."
    """
    seat = state.to_act
    gained = 4 * sum(1 for t in state.hidden_energy if state.owner[t] == seat)
    state.water_discard.extend(state.hidden_energy)
    if state.extraction:
        board = state.board
        if all(state.owner[t] == seat for t in range(board.size) if board.kinds[t] == Kind.LUNAR):
            gained += 7 * state.extraction
    if gained:
        state.energy[seat] += gained
        events.append(Event2210("card_energy", seat, {"energy": gained}))
    state.hidden_energy = []
    state.extraction = 0
    state.jammed = []
    state.barred = []
    state.invade_earth = []
    state.invaded = False


def mods_held(state: GameState2210, owner: int) -> tuple[int, ...]:
    """The territories holding MODs of ``owner`` (MOD Reduction: "from anywhere on the boards")."""
    mods, owners = state.mods, state.owner
    return tuple([t for t in range(len(mods)) if owners[t] == owner and mods[t] > 0])


def remover(state: GameState2210, owner: int) -> int:
    """Who chooses the MODs ``owner`` removes: the owner, or for the two-player neutral army the seat whose
    turn it is not (docs/rules.md open point 17)."""
    return 1 - state.turn_seat if owner == state.neutral else owner
