"""What a seat may do now in a 2210 game, compactly, and why an action is not legal.

``Legal2210`` lists choices the way the classic ``LegalActions`` does: territories, ranges and small option
tuples, so a bot can always answer from it alone. ``problem(action)`` says what is wrong with an action
and ``describe()`` what would have been legal.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

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
from engine.r2210.board import Kind, Territory
from engine.r2210.cardplay import WINDOWS, CardChoice, decoy_moves, mods_held, plays, window
from engine.r2210.cards import MOST_BOUGHT, card_name
from engine.r2210.setup import batch_left, unclaimed_land
from engine.r2210.state import GameState2210
from engine.r2210.year import free_markers


class FortifyChoice(NamedTuple):
    """A territory to fortify from; at least one unit stays behind."""

    source: Territory
    targets: tuple[Territory, ...]
    mods: int
    """MODs there."""
    commanders: tuple[Commander, ...]
    """Commanders there."""


@dataclass(init=False, slots=True)
class Legal2210:
    """What ``seat`` may do now. Fields that do not apply to ``phase`` stay empty. Treat it as read-only: it
    is not frozen because one is built for every decision (as ``engine.legal.LegalActions``)."""

    phase: Phase
    seat: int
    territories: tuple[Territory, ...] = ()
    """Claim, Place, PlaceCommanders, Hire and BuildStation targets; in REDUCE, where the MODs to remove
    are."""
    place_max: int = 0
    bid_max: int = -1
    markers: tuple[int, ...] = ()
    hires: tuple[Commander, ...] = ()
    stations: tuple[Territory, ...] = ()
    card_decks: tuple[int, ...] = ()
    """In BUY and BONUS_CARD: cards that may be taken from each deck (Land, Diplomat, Naval, Space,
    Nuclear): its size when its Commander is in play, else 0."""
    buy_max: int = 0
    """In BUY: the most Command cards in all (4, or the energy held if less)."""
    invasions: tuple[tuple[Territory, Territory], ...] = ()
    dice_max: int = 0
    d8: tuple[Commander, ...] = ()
    """In ROLL: commanders that may roll an 8-sided die."""
    defend_max: int = 0
    lose: int = 0
    """In LOSSES: how many units to remove from ``territories[0]``; in REDUCE: how many MODs to remove."""
    mods_at: tuple[int, ...] = ()
    """In REDUCE: the MODs in each of ``territories``."""
    occupy_min: int = 0
    occupy_mods: int = 0
    """In OCCUPY: MODs in the source (at least one unit stays behind); in LOSSES: MODs in the territory."""
    occupy_commanders: tuple[Commander, ...] = ()
    """In OCCUPY: commanders in the source; in LOSSES: commanders in the territory."""
    must_move: tuple[Commander, ...] = ()
    fortify: tuple[FortifyChoice, ...] = ()
    """In FORTIFY: where units may move from and to; in DECOYS: where commanders may move (``mods`` 0)."""
    plays: tuple[CardChoice, ...] = ()
    """Command cards the seat may play now (INVADE before the first invasion, REACT, TURN_END, GAME_END,
    EXCHANGE)."""
    can_end: bool = False

    def __init__(
        self,
        phase: Phase,
        seat: int,
        territories: tuple[Territory, ...] = (),
        place_max: int = 0,
        bid_max: int = -1,
        markers: tuple[int, ...] = (),
        hires: tuple[Commander, ...] = (),
        stations: tuple[Territory, ...] = (),
        card_decks: tuple[int, ...] = (),
        buy_max: int = 0,
        invasions: tuple[tuple[Territory, Territory], ...] = (),
        dice_max: int = 0,
        d8: tuple[Commander, ...] = (),
        defend_max: int = 0,
        lose: int = 0,
        mods_at: tuple[int, ...] = (),
        occupy_min: int = 0,
        occupy_mods: int = 0,
        occupy_commanders: tuple[Commander, ...] = (),
        must_move: tuple[Commander, ...] = (),
        fortify: tuple[FortifyChoice, ...] = (),
        plays: tuple[CardChoice, ...] = (),
        can_end: bool = False,
    ) -> None:
        self.phase = phase
        self.seat = seat
        self.territories = territories
        self.place_max = place_max
        self.bid_max = bid_max
        self.markers = markers
        self.hires = hires
        self.stations = stations
        self.card_decks = card_decks
        self.buy_max = buy_max
        self.invasions = invasions
        self.dice_max = dice_max
        self.d8 = d8
        self.defend_max = defend_max
        self.lose = lose
        self.mods_at = mods_at
        self.occupy_min = occupy_min
        self.occupy_mods = occupy_mods
        self.occupy_commanders = occupy_commanders
        self.must_move = must_move
        self.fortify = fortify
        self.plays = plays
        self.can_end = can_end

    def problem(self, action: Action2210) -> str:
        """Why ``action`` is not legal now ("" when it is)."""
        phase = self.phase
        kind = type(action)
        if isinstance(action, EndPhase):
            return "" if self.can_end else f"ending the phase is not allowed in {phase.name}"
        if isinstance(action, PlayCard):
            return self._play_problem(action)
        if phase == Phase.SETUP_CLAIM and isinstance(action, Claim):
            return _among(action.territory, self.territories, "an unoccupied, undevastated land territory")
        if phase in (Phase.SETUP_PLACE, Phase.DEPLOY) and isinstance(action, Place):
            if not 1 <= action.mods <= self.place_max:
                return f"place 1 to {self.place_max} MODs, not {action.mods}"
            return _among(action.territory, self.territories, "a territory you control")
        if phase == Phase.SETUP_COMMANDERS and isinstance(action, PlaceCommanders):
            for t in action:
                if (bad := _among(t, self.territories, "a territory you occupy")) != "":
                    return bad
            return ""
        if phase == Phase.BID and isinstance(action, Bid):
            ok = 0 <= action.energy <= self.bid_max
            return "" if ok else f"bid 0 to {self.bid_max} energy (what you hold), not {action.energy}"
        if phase == Phase.CHOOSE_MARKER and isinstance(action, ChooseMarker):
            return "" if action.marker in self.markers else f"choose a free marker {list(self.markers)}"
        if phase == Phase.BUY and isinstance(action, Hire):
            if action.commander not in self.hires:
                return f"commanders you may hire now: {[c.name for c in self.hires]}"
            return _among(action.territory, self.territories, "a territory you control")
        if phase == Phase.BUY and isinstance(action, BuildStation):
            return _among(action.territory, self.stations, "a land territory of yours without a station")
        if phase == Phase.BUY and isinstance(action, BuyCards):
            counts, open_decks = action.counts, self.card_decks
            fits = len(counts) == len(open_decks) and all(
                0 <= n <= open_decks[d] for d, n in enumerate(counts)
            )
            if not fits:
                return f"buy per deck (Land, Diplomat, Naval, Space, Nuclear) at most {list(open_decks)}"
            total = sum(counts)
            return "" if 1 <= total <= self.buy_max else f"buy 1 to {self.buy_max} cards in all, not {total}"
        if phase == Phase.BONUS_CARD and isinstance(action, TakeCard):
            ok = 0 <= action.deck < len(self.card_decks) and self.card_decks[action.deck] > 0
            return "" if ok else f"take the top card of a deck open to you: {list(self.card_decks)}"
        if phase == Phase.INVADE and isinstance(action, Declare):
            ok = (action.source, action.target) in self.invasions
            return "" if ok else f"invasions open now (source, target): {list(self.invasions)}"
        if phase == Phase.ROLL and isinstance(action, Roll):
            if not 1 <= action.dice <= self.dice_max:
                return f"roll 1 to {self.dice_max} dice, not {action.dice}"
            if len(set(action.d8)) != len(action.d8) or not set(action.d8) <= set(self.d8):
                return f"8-sided dice may be rolled by {[c.name for c in self.d8]} (each once)"
            return "" if len(action.d8) <= action.dice else "more 8-sided dice than dice rolled"
        if phase == Phase.DEFEND and isinstance(action, Defend):
            ok = 1 <= action.dice <= self.defend_max
            return "" if ok else f"defend with 1 to {self.defend_max} dice, not {action.dice}"
        if phase == Phase.LOSSES and isinstance(action, Lose):
            c = action.commanders
            if len(set(c)) != len(c) or not set(c) <= set(self.occupy_commanders):
                return f"commanders there: {[x.name for x in self.occupy_commanders]} (each once)"
            if not 0 <= action.mods <= self.occupy_mods or action.mods + len(c) != self.lose:
                return f"remove exactly {self.lose} units ({self.occupy_mods} MODs there)"
            return ""
        if phase == Phase.OCCUPY and isinstance(action, Occupy):
            return self._units_problem(
                action.mods, action.commanders, self.occupy_mods, self.occupy_commanders, self.occupy_min
            )
        if phase == Phase.REDUCE and isinstance(action, Remove):
            return self._remove_problem(action.territories)
        if phase == Phase.DECOYS and isinstance(action, Fortify):
            return self._decoys_problem(action)
        if phase == Phase.FORTIFY and isinstance(action, Fortify):
            for source, targets, mods, commanders in self.fortify:
                if source == action.source:
                    if action.target not in targets:
                        return f"from {source} you may fortify to {list(targets)}"
                    return self._units_problem(action.mods, action.commanders, mods, commanders, 1)
            return f"fortify from one of {[f[0] for f in self.fortify]}"
        return f"{kind.__name__} is not an action of {phase.name}"

    def _play_problem(self, action: PlayCard) -> str:
        for card, targets, picks in self.plays:
            if card == action.card:
                aims = action.targets
                if len(aims) != picks or len(set(aims)) != len(aims) or not set(aims) <= set(targets):
                    wanted = f"{picks} different targets of {list(targets)}"
                    return f"card {card} is played on {wanted}, not {list(aims)}"
                return ""
        offered = [(c.card, card_name(c.card)) for c in self.plays]
        return f"card {action.card} may not be played now; cards you may play now: {offered}"

    def _remove_problem(self, where: tuple[Territory, ...]) -> str:
        there = dict(zip(self.territories, self.mods_at, strict=True))
        wanted = f"name {self.lose} MODs to remove, one territory per MOD, from {there} (territory: MODs)"
        if len(where) != self.lose:
            return f"{wanted}, not {len(where)}"
        for t in set(where):
            if t not in self.territories or where.count(t) > self.mods_at[self.territories.index(t)]:
                return f"{wanted}; territory {t} named {where.count(t)} times"
        return ""

    def _decoys_problem(self, action: Fortify) -> str:
        for source, targets, _, commanders in self.fortify:
            if source == action.source:
                c = action.commanders
                if action.mods or not c or len(set(c)) != len(c) or not set(c) <= set(commanders):
                    names = [x.name for x in commanders]
                    return f"move no MODs and some of the commanders {names} (each once)"
                ok = action.target in targets
                return "" if ok else f"from {source} commanders may move to {list(targets)}"
        return f"move commanders from one of {[f[0] for f in self.fortify]}"

    def _units_problem(
        self,
        mods: int,
        commanders: tuple[Commander, ...],
        mods_there: int,
        commanders_there: tuple[Commander, ...],
        least: int,
    ) -> str:
        if len(set(commanders)) != len(commanders) or not set(commanders) <= set(commanders_there):
            return f"commanders there: {[c.name for c in commanders_there]} (each once)"
        if not set(self.must_move) <= set(commanders):
            return f"the commanders that rolled 8-sided dice must move in: {[c.name for c in self.must_move]}"
        moved = mods + len(commanders)
        most = mods_there + len(commanders_there) - 1
        if not 0 <= mods <= mods_there or not least <= moved <= most:
            return f"move {least} to {most} units ({mods_there} MODs there; one unit stays), not {moved}"
        return ""

    def describe(self) -> str:
        parts = [f"{self.phase.name} for seat {self.seat}"]
        for name in (
            "territories",
            "place_max",
            "bid_max",
            "markers",
            "hires",
            "stations",
            "card_decks",
            "buy_max",
            "invasions",
            "dice_max",
            "d8",
            "defend_max",
            "lose",
            "mods_at",
            "occupy_min",
            "occupy_mods",
            "occupy_commanders",
            "must_move",
            "fortify",
            "plays",
            "can_end",
        ):
            value = getattr(self, name)
            if value not in ((), 0, -1, False):
                parts.append(f"{name}={value!r}")
        return "; ".join(parts)


def _among(t: Territory, allowed: tuple[Territory, ...], what: str) -> str:
    return "" if t in allowed else f"territory {t} is not {what}; legal: {list(allowed)}"


def land_stations(
    kinds: tuple[Kind, ...], owner: list[int], station: list[int], seat: int
) -> tuple[int, ...]:
    """Land territories ``seat`` controls that have no station (004: "Purchased Space Stations may be put
    into any Land territory that you control but you cannot have more than one Space Station")."""
    return tuple(
        t for t in range(len(owner)) if owner[t] == seat and station[t] < 0 and kinds[t] == Kind.LAND
    )


def legal_for(state: GameState2210, seat: int) -> Legal2210:
    """What ``seat`` may do now (nothing, phase included, when it is not asked)."""
    phase = state.phase
    if seat not in state.asked:
        return Legal2210(phase, seat)
    if phase == Phase.SETUP_CLAIM:
        return Legal2210(phase, seat, territories=unclaimed_land(state))
    if phase == Phase.SETUP_PLACE:
        return Legal2210(phase, seat, territories=state.controlled(seat), place_max=batch_left(state))
    if phase == Phase.SETUP_COMMANDERS:
        return Legal2210(phase, seat, territories=state.controlled(seat))
    if phase == Phase.BID:
        return Legal2210(phase, seat, bid_max=state.energy[seat])
    if phase == Phase.CHOOSE_MARKER:
        return Legal2210(phase, seat, markers=free_markers(state))
    if phase == Phase.DEPLOY:
        return Legal2210(phase, seat, territories=state.controlled(seat), place_max=state.recruits)
    if phase == Phase.BUY:
        return _buy(state, seat)
    if phase == Phase.INVADE:
        cards = plays(state, seat, window(state, seat)) if not state.invaded else ()
        return Legal2210(phase, seat, invasions=state.invasions(seat), plays=cards, can_end=True)
    if phase in WINDOWS or phase == Phase.GAME_END:
        return Legal2210(phase, seat, plays=plays(state, seat, window(state, seat)), can_end=True)
    if phase == Phase.BONUS_CARD:
        return Legal2210(phase, seat, card_decks=state.card_decks_open(seat))
    if phase == Phase.ROLL:
        assert state.pending is not None
        source, target = state.pending
        dice = min(3, state.units(source) - 1)
        return Legal2210(phase, seat, dice_max=dice, d8=state.d8_commanders(source, target))
    if phase == Phase.DEFEND:
        assert state.pending is not None
        return Legal2210(phase, seat, defend_max=min(2, state.units(state.pending[1])))
    if phase == Phase.OCCUPY:
        assert state.pending is not None
        source = state.pending[0]
        least, must = state.move_in
        return Legal2210(
            phase,
            seat,
            occupy_min=least,
            occupy_mods=state.mods[source],
            occupy_commanders=state.commanders_in(source),
            must_move=must,
        )
    if phase == Phase.FORTIFY:
        return Legal2210(phase, seat, fortify=_fortify(state, seat), can_end=True)
    if phase == Phase.REDUCE:
        owner, n = state.reductions[0]
        held = mods_held(state, owner)
        return Legal2210(phase, seat, territories=held, lose=n, mods_at=tuple([state.mods[t] for t in held]))
    if phase == Phase.DECOYS:
        moves = decoy_moves(state, seat, state.decoys)
        fortify = tuple([FortifyChoice(t, away, 0, here) for t, here, away in moves])
        return Legal2210(phase, seat, fortify=fortify, can_end=True)
    if phase == Phase.LOSSES:
        t, n = state.losses_owed[0]
        here = state.commanders_in(t)
        return Legal2210(
            phase, seat, territories=(t,), lose=n, occupy_mods=state.mods[t], occupy_commanders=here
        )
    return Legal2210(phase, seat)


def _buy(state: GameState2210, seat: int) -> Legal2210:
    rules = state.rules
    energy = state.energy[seat]
    hires: tuple[Commander, ...] = ()
    if energy >= rules.commander_cost and not state.built_station:
        hires = tuple([c for c in Commander if not state.in_play(seat, c)])
    stations: tuple[Territory, ...] = ()
    if energy >= rules.station_cost and state.stations_of(seat) < rules.max_stations:
        stations = land_stations(state.board.kinds, state.owner, state.station, seat)
    territories = state.controlled(seat) if hires else ()
    decks = state.card_decks_open(seat)
    most = min(MOST_BOUGHT, energy, sum(decks))
    return Legal2210(
        Phase.BUY,
        seat,
        territories=territories,
        hires=hires,
        stations=stations,
        card_decks=decks if most else (),
        buy_max=most,
        can_end=True,
    )


def _fortify(state: GameState2210, seat: int) -> tuple[FortifyChoice, ...]:
    out = []
    components: dict[Territory, tuple[Territory, ...]] = {}
    for t in state.controlled(seat):
        if state.units(t) < 2:
            continue
        if t not in components:
            # Fortify paths are symmetric: every member of t's component reaches the same set.
            reach = (t, *state.fortify_component(seat, t))
            for member in reach:
                components[member] = reach
        targets = tuple([x for x in components[t] if x != t])
        if targets:
            out.append(FortifyChoice(t, tuple(sorted(targets)), state.mods[t], state.commanders_in(t)))
    return tuple(out)
