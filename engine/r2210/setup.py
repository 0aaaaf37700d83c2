"""Sowing the seeds of war: decks, devastation, the two-player neutrals, claims, placement, commanders."""

from __future__ import annotations

from engine.r2210.actions import Claim, Commander, Phase, Place, PlaceCommanders
from engine.r2210.board import Kind
from engine.r2210.board_data import DEVASTATION_COUNT, TWO_PLAYER_NEUTRALS
from engine.r2210.cards import DECK_CARDS
from engine.r2210.events import Event2210
from engine.r2210.state import NOBODY, GameState2210
from engine.r2210.year import roll_off, start_year


def start(state: GameState2210) -> list[Event2210]:
    """Shuffle the territory and Command decks, devastate four lands, place the neutrals, roll for the
    first placer."""
    events: list[Event2210] = []
    board = state.board
    for deck, kind in (
        (state.land_deck, Kind.LAND),
        (state.water_deck, Kind.WATER),
        (state.lunar_deck, Kind.LUNAR),
    ):
        # 004: "Remove the 2 Wild Cards ... Shuffle the decks separately": land cards are land ids.
        deck.extend(board.of_kind(kind))
        state.dice.shuffle(deck)
    for deck, cards in zip(state.command_decks, DECK_CARDS, strict=True):
        deck.extend(cards)
        state.dice.shuffle(deck)
    # 004: "Turn over the top Land Territory card and place a Devastation Marker on that territory. Repeat
    # until four Land territories have been marked ... These cards will not be used again."
    for _ in range(DEVASTATION_COUNT):
        t = state.land_deck.pop(0)
        state.devastated[t] = True
        state.land_discard.append(t)
        events.append(Event2210("devastated", -1, {"territory": t}))
    if state.neutral >= 0:
        _place_neutrals(state, events)
    for seat in range(state.seats):
        state.setup_left[seat] = state.rules.starting_mods(state.seats)
        state.energy[seat] = state.rules.starting_energy
    order, rounds = roll_off(state, list(range(state.seats)), only_first=True)
    state.first_seat = order[0]
    state.to_act = order[0]
    state.phase = Phase.SETUP_CLAIM
    events.append(Event2210("first_player_rolled", order[0], {"rolls": rounds}))
    return events


def _place_neutrals(state: GameState2210, events: list[Event2210]) -> None:
    """004: "Turn over 16 Land Territory Cards, 6 Water Territory cards, and 6 Moon Territory cards. Place 3
    neutral armies in each of these territories then shuffle the Territory cards back into their respective
    decks." A reshuffle starts again from ascending card ids (dice spec: a new deck shuffles so)."""
    land, water, lunar, each = TWO_PLAYER_NEUTRALS
    for deck, count in ((state.land_deck, land), (state.water_deck, water), (state.lunar_deck, lunar)):
        for t in deck[:count]:
            state.owner[t] = state.neutral
            state.mods[t] = each
            events.append(Event2210("neutral_placed", state.neutral, {"territory": t, "mods": each}))
        deck.sort()
        state.dice.shuffle(deck)


def _next_seat(state: GameState2210, seat: int) -> int:
    return (seat + 1) % state.seats


def claim(state: GameState2210, action: Claim, events: list[Event2210]) -> None:
    seat = state.to_act
    t = action.territory
    state.owner[t] = seat
    state.mods[t] = 1
    state.setup_left[seat] -= 1
    events.append(Event2210("claimed", seat, {"territory": t}))
    if unclaimed_land(state):
        state.to_act = _next_seat(state, seat)
        return
    state.phase = Phase.SETUP_PLACE
    state.setup_batch = 0
    _next_placer(state, seat)


def unclaimed_land(state: GameState2210) -> tuple[int, ...]:
    owner, devastated = state.owner, state.devastated
    return tuple([t for t in state.board.lands if owner[t] == NOBODY and not devastated[t]])


def batch_left(state: GameState2210) -> int:
    """MODs the seat placing now has still to place in this three-at-a-time turn."""
    return min(3 - state.setup_batch, state.setup_left[state.to_act])


def place(state: GameState2210, action: Place, events: list[Event2210]) -> None:
    seat = state.to_act
    state.mods[action.territory] += action.mods
    state.setup_left[seat] -= action.mods
    state.setup_batch += action.mods
    events.append(Event2210("placed", seat, {"territory": action.territory, "mods": action.mods}))
    if batch_left(state) == 0:
        state.setup_batch = 0
        _next_placer(state, seat)


def _next_placer(state: GameState2210, last: int) -> None:
    seat = last
    for _ in range(state.seats):
        seat = _next_seat(state, seat)
        if state.setup_left[seat] > 0:
            state.to_act = seat
            return
    # 004: "Once the MODs are stationed, place in turn order, your Land and Diplomat Commanders and a
    # Space Station": turn order here is the placement order, from the first placer.
    state.phase = Phase.SETUP_COMMANDERS
    state.to_act = state.first_seat


def place_commanders(state: GameState2210, action: PlaceCommanders, events: list[Event2210]) -> None:
    seat = state.to_act
    state.commander_at[seat * 5 + Commander.LAND] = action.land
    state.commander_at[seat * 5 + Commander.DIPLOMAT] = action.diplomat
    state.station[action.station] = seat
    events.append(Event2210("commanders_placed", seat, action._asdict()))
    following = _next_seat(state, seat)
    if following != state.first_seat:
        state.to_act = following
        return
    start_year(state, events)
