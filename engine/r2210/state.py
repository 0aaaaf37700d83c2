"""A RISK 2210 A.D. game's state: flat per-territory arrays, per-seat energy and commanders, one dice stream.

Control (004): "You control a territory if: 1. Any of your units are positioned there. (A unit is a MOD or a
Commander.) 2. A Space Station of your color is positioned there." ``owner[t]`` is that controller (-1:
nobody); units and a station in one territory always belong to the same owner.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from engine.r2210.actions import COMMANDERS, Commander, Phase
from engine.r2210.board import Board2210, Kind, Territory
from engine.r2210.dice import Dice, DiceStream
from engine.r2210.rules import Rules2210

EMPTY = -1
NOBODY = -1
YEAR_5 = "year_5"
"""How a game ends after year 5's final scoring (004 WINNING)."""
CONQUEST = "conquest"
"""How a game ends when one seat is left (the others eliminated), as a classic conquest."""
END_REASONS_2210 = (YEAR_5, CONQUEST)
"""Every ``end_reason`` a 2210 game can end with (``GameOver.reason``; ``server.records`` lists them)."""


class GameState2210:
    """One 2210 game. Seats 0..seats-1; in the two-player game the neutral army is owner ``seats``."""

    def __init__(self, rules: Rules2210, seats: int, seed: int, board: Board2210) -> None:
        self.rules = rules
        self.board = board
        self.seats = seats
        self.seed = seed
        self.dice: DiceStream = Dice(seed)
        self.neutral = seats if seats == 2 else -1
        n = board.size
        self.owner = [NOBODY] * n
        self.mods = [0] * n
        self.station = [NOBODY] * n
        """Owner of the Space Station in each territory (-1: none)."""
        self.devastated = [False] * n
        self.commander_at = [EMPTY] * (seats * len(COMMANDERS))
        """Territory of seat s's commander c at index s*5+c (-1: not in play)."""
        self.energy = [0] * seats
        self.alive = [True] * seats
        self.eliminated: list[int] = []
        self.setup_left = [0] * seats
        self.setup_batch = 0
        """MODs placed so far in the current three-at-a-time setup turn."""
        self.first_seat = 0
        self.year = 0
        self.order: tuple[int, ...] = ()
        """Seats by Turn Order marker this year: order[0] holds marker 1."""
        self.marker = [0] * seats
        self.bids = [-1] * seats
        """This year's bids (-1: not yet bid); hidden from other seats until all have bid."""
        self.bids_revealed = False
        self.choosers: list[int] = []
        """Seats still to choose a marker, in bid order."""
        self.turn_index = -1
        self.phase = Phase.SETUP_CLAIM
        self.to_act = 0
        self.recruits = 0
        self.built_station = False
        """A station was built this turn: commanders are hired before stations (004)."""
        self.contested_captures = 0
        self.bonus_taken = False
        self.pending: tuple[Territory, Territory] | None = None
        """The declared invasion (source, target)."""
        self.attack_dice: tuple[int, tuple[Commander, ...]] = (0, ())
        """In DEFEND: the attacker's dice and d8 commanders waiting for the defender's choice."""
        self.losses_owed: list[tuple[Territory, int]] = []
        """In LOSSES: (territory, units to remove) still to be chosen, the attacker's first."""
        self.card_losses: tuple[int, str, int, int] | None = None
        """In LOSSES asked by a Command card's damage: (the card's player, the window it was played in, the
        phase and seat to act then), to go on from once the owners have chosen; None for a battle's."""
        self.move_in: tuple[int, tuple[Commander, ...]] = (0, ())
        """In OCCUPY: the least units to move, and the commanders that rolled d8 and must move in."""
        self.land_deck: list[int] = []
        self.water_deck: list[int] = []
        self.lunar_deck: list[int] = []
        self.land_discard: list[int] = []
        self.command_decks: list[list[int]] = [[] for _ in COMMANDERS]
        """The five Command decks (Land, Diplomat, Naval, Space, Nuclear), top first; never reshuffled."""
        self.hands: list[list[int]] = [[] for _ in range(seats)]
        """Each seat's Command cards (ids into ``engine.r2210.cards``): secret; their decks are public."""
        self.card_discard: list[int] = []
        self.bonus_card_due = False
        """The 3-territory bonus card is owed once the move-in is done."""
        # Command cards in play (engine.r2210.cardplay, engine.r2210.effects):
        self.invaded = False
        """The turn seat has declared an invasion this turn (the "before your first invasion" window shut)."""
        self.jammed: list[int] = []
        """Seats Frequency-Jammed until the end of this turn: they play no Command card."""
        self.reactors: list[int] = []
        """In REACT: seats still to be asked whether to answer the declared invasion, the asked one first."""
        self.contested = False
        """The declared target held units when declared (taking it counts toward the 3-territory bonus)."""
        self.cease_fire = False
        """In REACT: a Cease Fire cancelled the declared invasion."""
        self.barred: list[int] = []
        """Seats whose territories the turn seat may not invade for the rest of the turn (Cease Fire)."""
        self.invade_earth: list[int] = []
        """Land territories the turn seat may invade from its lunar territories this turn (Invade Earth)."""
        self.hidden_energy: list[int] = []
        """Water territories drawn by the turn seat's Hidden Energy cards, checked at the end of the turn."""
        self.extraction = 0
        """Energy Extraction cards the turn seat played this turn, checked at the end of the turn."""
        self.scouts: list[list[int]] = [[] for _ in range(seats)]
        """Per seat, land territories where a Scout Forces card set 5 MODs aside until the seat takes them."""
        self.enders: list[int] = []
        """In GAME_END: seats still to be asked for end-of-game cards, the asked one first."""
        self.exchange: list[int] = []
        """In EXCHANGE (Armageddon): seats still to be asked for free Nuclear cards, the asked one first."""
        self.reductions: list[tuple[int, int]] = []
        """In REDUCE (MOD Reduction): (owner, MODs to remove) still to be chosen, the asked one first."""
        self.decoys: list[int] = []
        """In DECOYS (Decoys Revealed): the turn seat's commanders (``Commander`` values) not yet moved."""
        self.bonus_points = [0] * seats
        """Points from end-of-game cards (Colony Influence)."""
        self.water_discard: list[int] = []
        self.lunar_discard: list[int] = []
        self.scores: tuple[int, ...] = ()
        self.places: tuple[int, ...] = ()
        self.end_reason = ""

    # ------------------------------------------------------------------ queries

    def is_over(self) -> bool:
        return self.phase == Phase.GAME_OVER

    @property
    def asked(self) -> tuple[int, ...]:
        """Every seat asked to decide now: all living seats at once in BID, else the one seat to act."""
        if self.phase == Phase.GAME_OVER:
            return ()
        if self.phase == Phase.BID:
            return tuple([s for s in range(self.seats) if self.alive[s] and self.bids[s] < 0])
        return (self.to_act,)

    @property
    def turn_seat(self) -> int:
        """Whose turn it is (-1 outside the turns: setup, bids, markers, game over)."""
        if self.turn_index < 0 or self.phase in (Phase.BID, Phase.CHOOSE_MARKER, Phase.GAME_OVER):
            return -1
        return self.order[self.turn_index]

    def commander(self, seat: int, kind: Commander) -> Territory:
        return self.commander_at[seat * 5 + kind]

    def in_play(self, seat: int, kind: Commander) -> bool:
        return self.commander_at[seat * 5 + kind] >= 0

    def commanders_in(self, t: Territory) -> tuple[Commander, ...]:
        """The commanders standing in ``t`` (all of its owner's)."""
        seat = self.owner[t]
        if not 0 <= seat < self.seats:
            return ()
        base = seat * 5
        return tuple([c for c in COMMANDERS if self.commander_at[base + c] == t])

    def units(self, t: Territory) -> int:
        """MODs plus commanders in ``t`` (a Space Station is not a unit)."""
        seat = self.owner[t]
        if not 0 <= seat < self.seats:
            return self.mods[t]
        at, base = self.commander_at, seat * 5  # five compares, no slice: called for every invasion option
        n = self.mods[t]
        n += at[base] == t
        n += at[base + 1] == t
        n += at[base + 2] == t
        n += at[base + 3] == t
        return n + (at[base + 4] == t)

    def controlled(self, seat: int) -> tuple[Territory, ...]:
        owner = self.owner
        return tuple([t for t in range(len(owner)) if owner[t] == seat])

    def stations_of(self, seat: int) -> int:
        return sum(1 for s in self.station if s == seat)

    def region_bonus(self, seat: int) -> tuple[int, int, int]:
        """(MODs, energy, points) from the regions ``seat`` fully controls.

        004: "If a continent/colony contains a territory (territories) with a Devastation Marker(s) and you
        control all other territories within that continent/colony, then you receive the full bonus."
        """
        mods = energy = points = 0
        for region in self.board.regions:
            live = [t for t in region.members if not self.devastated[t]]
            if live and all(self.owner[t] == seat for t in live):
                mods += region.bonus_mods
                energy += region.bonus_energy
                points += region.bonus_points
        return mods, energy, points

    def score(self, seat: int) -> int:
        """004 WINNING: 1 point per territory controlled plus continent and colony bonuses, plus the
        end-of-game cards ("Some Command cards give you a bonus to your score")."""
        return len(self.controlled(seat)) + self.region_bonus(seat)[2] + self.bonus_points[seat]

    def units_on_board(self, seat: int) -> int:
        mods = sum(m for t, m in enumerate(self.mods) if self.owner[t] == seat)
        return mods + sum(1 for c in COMMANDERS if self.in_play(seat, c))

    def d8_commanders(self, source: Territory, target: Territory) -> tuple[Commander, ...]:
        """Commanders in ``source`` that may roll an 8-sided die invading ``target`` (004's table)."""
        kinds = self.board.kinds
        ks, kt = kinds[source], kinds[target]
        land = ks == Kind.LAND or kt == Kind.LAND
        water = ks == Kind.WATER or kt == Kind.WATER
        lunar = ks == Kind.LUNAR or kt == Kind.LUNAR
        out: list[Commander] = []
        for c in self.commanders_in(source):
            if (
                c == Commander.NUCLEAR
                or (c == Commander.LAND and land)
                or (c == Commander.NAVAL and water)
                or (c == Commander.SPACE and lunar)
            ):
                out.append(c)
        return tuple(out)

    def invasions(self, seat: int) -> tuple[tuple[Territory, Territory], ...]:
        """Every (source, target) ``seat`` may declare an invasion of now.

        004: "you must have a Naval Commander in order to invade into or out of Water territories"; "you
        must have a Space Commander to invade into or out of Lunar territories"; Moon to Earth only by the
        Invade Earth card; not into a Cease Fire player's territories; "From a Space Station, an
        invading force can travel to any one of the three lunar landing sites"; "You cannot attack a Land
        territory containing a Space Station from a landing site on the moon"; devastated territories are
        "completely impassable".
        """
        owner, devastated, board = self.owner, self.devastated, self.board
        kinds, neighbours = board.kinds, board.neighbours
        naval = self.in_play(seat, Commander.NAVAL)
        space = self.in_play(seat, Commander.SPACE)
        water, lunar = Kind.WATER, Kind.LUNAR
        barred, earth = self.barred, self.invade_earth
        out: list[tuple[Territory, Territory]] = []
        for s in self.controlled(seat):
            if self.units(s) < 2:
                continue
            ks = kinds[s]
            if (ks == water and not naval) or (ks == lunar and not space):
                continue
            for t in neighbours[s]:
                if owner[t] == seat or devastated[t] or (barred and owner[t] in barred):
                    continue
                kt = kinds[t]
                if (kt == water and not naval) or (kt == lunar and not space):
                    continue
                out.append((s, t))
            if space and ks == Kind.LAND and self.station[s] == seat:
                out.extend((s, t) for t in board.landing_sites if owner[t] != seat and owner[t] not in barred)
            if earth and ks == lunar:
                # Invade Earth: "you may declare invasions into that territory from any lunar territory you
                # occupy, following the normal invasion rules."
                out.extend((s, t) for t in earth if owner[t] != seat and owner[t] not in barred)
        return tuple(out)

    def fortify_component(self, seat: int, start: Territory) -> tuple[Territory, ...]:
        """Territories reachable from ``start`` through ``seat``'s own, with the Moon-Earth link.

        004: "When fortifying from the Moon to Earth (or vice-versa) you must be able to travel from a Lunar
        landing site down to a Space Station you control (or the other way around)."
        """
        owner, board = self.owner, self.board
        sites = tuple([s for s in board.landing_sites if owner[s] == seat])
        stations = tuple(
            t for t in range(board.size) if self.station[t] == seat and board.kinds[t] == Kind.LAND
        )
        seen = {start}
        frontier = [start]
        while frontier:
            t = frontier.pop()
            links: tuple[Territory, ...] = board.neighbours[t]
            if t in sites:
                links += stations
            if t in stations:
                links += sites
            for n in links:
                if n not in seen and owner[n] == seat:
                    seen.add(n)
                    frontier.append(n)
        seen.discard(start)
        return tuple(sorted(seen))

    # ------------------------------------------------------------------ copies and snapshots

    def card_decks_open(self, seat: int) -> tuple[int, ...]:
        """Cards ``seat`` may take from each deck now: the deck's size if its Commander is in play, else 0.

        004: "You may only buy a Command card if you have the corresponding Commander in play"; "Once a
        Command card deck is exhausted, no more cards of that type may be bought."
        """
        return tuple(len(self.command_decks[c]) if self.in_play(seat, c) else 0 for c in COMMANDERS)

    def clone(self) -> GameState2210:
        # Compiled (mypyc) the state has no __dict__: the fields are named in _FIELDS.
        other = GameState2210(self.rules, self.seats, self.seed, self.board)
        for name in _FIELDS:
            value = getattr(self, name)
            if isinstance(value, list):
                value = [list(v) if isinstance(v, list) else v for v in value]
            setattr(other, name, value)
        for name in _SET_ONLY_FIELDS:
            setattr(other, name, getattr(self, name))
        other.dice = self.dice.clone()
        return other

    def snapshot(self) -> dict[str, Any]:
        """Every fact of the state as plain data (the dice as their stream's position)."""
        out: dict[str, Any] = {"dice": self.dice.position(), "seats": self.seats, "seed": self.seed}
        for name in _FIELDS:
            value = getattr(self, name)
            out[name] = value.name if isinstance(value, Phase) else value
        for name in _SET_ONLY_FIELDS:
            value = getattr(self, name)
            if value is not None:
                out[name] = value
        return out

    def fingerprint(self) -> str:
        return hashlib.sha256(json.dumps(self.snapshot(), sort_keys=True, default=list).encode()).hexdigest()


_FIELDS = (
    "neutral", "owner", "mods", "station", "devastated", "commander_at", "energy", "alive", "eliminated",
    "setup_left", "setup_batch", "first_seat", "year", "order", "marker", "bids", "bids_revealed", "choosers",
    "turn_index", "phase", "to_act", "recruits", "built_station", "contested_captures", "bonus_taken",
    "pending", "attack_dice", "losses_owed", "move_in", "land_deck", "water_deck", "lunar_deck",
    "land_discard", "command_decks", "hands", "card_discard", "bonus_card_due", "invaded", "jammed",
    "reactors", "contested", "cease_fire", "barred", "invade_earth", "hidden_energy", "extraction", "scouts",
    "enders", "exchange", "reductions", "decoys", "bonus_points", "water_discard", "lunar_discard", "scores",
    "places", "end_reason",
)  # fmt: skip
"""Every field of a state but its rules, board, seats, seed and dice (clone and snapshot copy these)."""
_SET_ONLY_FIELDS = ("card_losses",)
"""Fields added since 2210 replays were first recorded, None but for a moment mid-turn: a snapshot has
them only when set, so a finished game's fingerprint is what it was before they existed."""
