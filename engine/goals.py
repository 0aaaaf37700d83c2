"""How a game is won besides eliminating everyone: Capital Risk's headquarters, Secret Mission Risk's
missions.

A goal is a stateless strategy object chosen by ``Rules.objective``; the facts it reads live in the
state's flat lists (``headquarters``, ``missions``, ``eliminated_by``), so clones, snapshots and replays
cover them. A goal answers the hooks of ``engine.state.Goal`` at four points: ``deal`` when the game
starts, ``stage`` when the setup is over (a stage of decisions before the first turn), ``winner`` after
every action once play has started and nothing is pending, and ``reveal`` when the game ends. A classic
game has no goal object at all and applies actions through a handler table without the check
(``engine.game``), so it pays nothing for goals.
"""

from __future__ import annotations

from typing import NamedTuple

from engine.actions import Phase
from engine.events import Event, MissionDealt, MissionsRevealed
from engine.rules import CapitalGoal, Objective, Rules
from engine.state import GameState, Goal


class Mission(NamedTuple):
    """One Secret Mission card. A mission is complete when every condition it sets holds."""

    text: str
    continents: tuple[str, ...] = ()
    """Continents to hold, by name."""
    other_continents: int = 0
    """Further whole continents of your choice to hold on top of ``continents``."""
    territories: int = 0
    """Territories to occupy (0: no such condition)..."""
    min_armies: int = 1
    """...each with at least this many armies."""
    destroy: int = -1
    """The seat (colour) whose armies you must destroy yourself; -1: none."""


OCCUPY_24 = Mission("Occupy 24 territories.", territories=24)
MISSIONS: tuple[Mission, ...] = (
    *(
        Mission(
            f"Destroy all armies of seat {s}. If they are yours, or another player eliminates them, "
            "your mission is to occupy 24 territories.",
            destroy=s,
        )
        for s in range(6)
    ),
    Mission("Conquer North America and Africa.", ("North America", "Africa")),
    Mission("Conquer North America and Australia.", ("North America", "Australia")),
    Mission("Conquer Asia and South America.", ("Asia", "South America")),
    Mission("Conquer Asia and Africa.", ("Asia", "Africa")),
    OCCUPY_24,
    Mission("Occupy 18 territories with at least 2 armies in each.", territories=18, min_armies=2),
    Mission(
        "Conquer Europe and South America and a third continent of your choice.",
        ("Europe", "South America"),
        other_continents=1,
    ),
    Mission(
        "Conquer Europe and Australia and a third continent of your choice.",
        ("Europe", "Australia"),
        other_continents=1,
    ),
)
"""Mission ids are indices. 0-5 destroy a colour, 6-11 are the rest of the 12 cards of the six-player
edition (000's 56-card deck), 12-13 the three-continent missions of the 14-card editions."""
THREE_CONTINENT_MISSIONS = (12, 13)


def mission_deck(rules: Rules, seats: int) -> list[int]:
    """Mission ids in play: destroy cards only for colours at the table; three-continent ones by option."""
    return [
        m
        for m, mission in enumerate(MISSIONS)
        if mission.destroy < seats and (rules.three_continent_missions or m not in THREE_CONTINENT_MISSIONS)
    ]


def effective_mission(state: GameState, seat: int) -> Mission:
    """The mission ``seat`` must complete now: a destroy card whose colour is the seat's own, or was
    eliminated by another player, becomes "occupy 24 territories"."""
    mission = MISSIONS[state.missions[seat]]
    target = mission.destroy
    if target >= 0 and (target == seat or state.eliminated_by[target] not in (-1, seat)):
        return OCCUPY_24
    return mission


def held_continents(state: GameState, seat: int) -> list[int]:
    owner = state.owner
    return [
        c for c, members in enumerate(state.board.continent_members) if all(owner[t] == seat for t in members)
    ]


def mission_complete(state: GameState, seat: int) -> bool:
    mission = effective_mission(state, seat)
    if mission.destroy >= 0:
        return state.eliminated_by[mission.destroy] == seat
    if mission.territories:
        if mission.min_armies <= 1:
            return state.territory_count[seat] >= mission.territories
        armies, least = state.armies, mission.min_armies
        strong = sum(1 for t, o in enumerate(state.owner) if o == seat and armies[t] >= least)
        return strong >= mission.territories
    held = held_continents(state, seat)
    names = [state.board.continents[c].name for c in held]
    if not all(name in names for name in mission.continents):
        return False
    return len(held) - len(mission.continents) >= mission.other_continents


class HeadquartersGoal(Goal):
    """Capital Risk: hold your own headquarters and all (or the shortened number of) opposing ones.

    Headquarters cards stay out of the draw pile all game: the headquarters card of a territory is held by
    whoever holds that territory now, which is how "Simply give your card to that opponent" plays out.
    """

    termination = "headquarters"

    def stage(self, state: GameState) -> bool:
        state.phase = Phase.CHOOSE_HEADQUARTERS
        state.to_act = state.first_seat
        return True

    def reserved_cards(self, state: GameState) -> frozenset[int]:
        return frozenset(state.headquarters)

    def needed(self, rules: Rules, seats: int) -> int:
        """Opposing headquarters to hold: all, or 000's shortened goal (4 players: 2; 5 or 6: 3)."""
        if rules.capital_goal == CapitalGoal.SHORTENED and seats >= 4:
            return 2 if seats == 4 else 3
        return seats - 1

    def achieved(self, state: GameState, seat: int) -> bool:
        owner, hq = state.owner, state.headquarters
        if owner[hq[seat]] != seat:
            return False
        held = sum(1 for other, t in enumerate(hq) if other != seat and owner[t] == seat)
        return held >= self.needed(state.rules, state.seats)


class MissionGoal(Goal):
    """Secret Mission Risk: one mission card per seat, dealt at the start, secret until the end."""

    termination = "mission"

    def deal(self, state: GameState, events: list[Event]) -> None:
        deck = mission_deck(state.rules, state.seats)
        state.dice.shuffle(deck)
        for seat in range(state.seats):
            state.missions[seat] = deck[seat]
            events.append(MissionDealt(seat, deck[seat]))

    def achieved(self, state: GameState, seat: int) -> bool:
        return mission_complete(state, seat)

    def reveal(self, state: GameState, events: list[Event]) -> None:
        events.append(MissionsRevealed(tuple(state.missions)))


GOALS: dict[Objective, Goal | None] = {
    Objective.CONQUEST: None,
    Objective.HEADQUARTERS: HeadquartersGoal(),
    Objective.MISSIONS: MissionGoal(),
}
