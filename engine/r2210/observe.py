"""What one seat may see of a 2210 game: the board, energy and markers are public (004: "How much energy a
player has is public knowledge"); bids before the reveal, the decks' order and the dice stream are not."""

from __future__ import annotations

from typing import NamedTuple

from engine.r2210.actions import COMMANDERS, Phase
from engine.r2210.cards import DECK_OF
from engine.r2210.state import GameState2210


class Observation2210(NamedTuple):
    seat: int
    """The seat this view is for (-1: a spectator)."""
    phase: Phase
    asked: tuple[int, ...]
    year: int
    turn_seat: int
    order: tuple[int, ...]
    """Seats by Turn Order marker this year (marker 1 first); empty until markers are chosen."""
    owners: tuple[int, ...]
    """Controller of each territory (-1: nobody; ``seats``: the two-player neutral army)."""
    mods: tuple[int, ...]
    commanders: tuple[tuple[int, ...], ...]
    """Per seat, the territory of each commander (Land, Diplomat, Naval, Space, Nuclear; -1: not in play)."""
    stations: tuple[int, ...]
    """Owner of the Space Station in each territory (-1: none)."""
    devastated: tuple[int, ...]
    """The devastated territories."""
    energy: tuple[int, ...]
    bids: tuple[int, ...]
    """This year's bids: every seat's once revealed; before that only this seat's own (others -1)."""
    deck_sizes: tuple[int, int, int]
    """Cards left in the Land, Water and Lunar territory decks."""
    command_deck_sizes: tuple[int, ...]
    """Cards left in the Land, Diplomat, Naval, Space and Nuclear Command decks."""
    hand: tuple[int, ...]
    """This seat's own Command cards (ids into ``engine.r2210.cards``); empty for a spectator."""
    card_counts: tuple[tuple[int, ...], ...]
    """Per seat, how many Command cards of each deck it holds (004: "The types of cards a player has, and
    how many of those cards, is public knowledge. The actual cards themselves are always kept secret.")"""
    recruits: int
    pending: tuple[int, int] | None
    """The declared invasion (source, target)."""
    setup_left: tuple[int, ...]
    scores: tuple[int, ...]
    places: tuple[int, ...]


def observe_2210(state: GameState2210, seat: int) -> Observation2210:
    bids = (
        tuple(state.bids)
        if state.bids_revealed
        else tuple(b if s == seat else -1 for s, b in enumerate(state.bids))
    )
    return Observation2210(
        seat=seat,
        phase=state.phase,
        asked=state.asked,
        year=state.year,
        turn_seat=state.turn_seat,
        order=state.order,
        owners=tuple(state.owner),
        mods=tuple(state.mods),
        commanders=tuple(
            tuple(state.commander_at[s * 5 + c] for c in COMMANDERS) for s in range(state.seats)
        ),
        stations=tuple(state.station),
        devastated=tuple(t for t, d in enumerate(state.devastated) if d),
        energy=tuple(state.energy),
        bids=bids,
        deck_sizes=(len(state.land_deck), len(state.water_deck), len(state.lunar_deck)),
        command_deck_sizes=tuple(len(d) for d in state.command_decks),
        hand=tuple(sorted(state.hands[seat])) if 0 <= seat < state.seats else (),
        card_counts=tuple(
            tuple(sum(1 for c in hand if DECK_OF[c] == d) for d in COMMANDERS) for hand in state.hands
        ),
        recruits=state.recruits,
        pending=state.pending,
        setup_left=tuple(state.setup_left),
        scores=state.scores,
        places=state.places,
    )
