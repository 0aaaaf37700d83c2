"""The rules options of a 2210 game: where the sources disagree (``docs/rules.md``, RISK 2210 A.D.)."""

from __future__ import annotations

from dataclasses import dataclass

from engine.errors import RulesConfigError
from engine.rules import DefenderDice

STARTING_MODS = {2: 30, 3: 35, 4: 30, 5: 25}
"""004: "3 Players: each player counts out 35 ... 4 Players ... 30 ... 5 Players ... 25"; two players:
"The two players now set up normally, using 30 1.0-MODs each"."""
PLAYER_COUNTS = tuple(sorted(STARTING_MODS))
"""How many players a 2210 game seats: 2 to 5."""


@dataclass(frozen=True, slots=True)
class Rules2210:
    name: str = "2210"
    years: int = 5
    edge_exiled_canada: bool = True
    """Open point 1: the rulebook's attack example has Exiled States-Canada; both board transcriptions
    lack it."""
    edge_mideast_djibouti: bool = False
    """Open point 2: the classic Middle East-East Africa link, absent from both 2210 transcriptions."""
    region_bonus_energy: bool = True
    """Open point 6: region bonuses give energy as well as MODs (rulebook); off: MODs only (one FAQ line)."""
    defender_dice: DefenderDice = DefenderDice.MAX
    choose_losses: bool = False
    """004: "You may remove MODs in their place": off, losses are MODs first, then commanders in a fixed
    order; on, the side with a commander among its losses is asked (``Phase.LOSSES``)."""
    armageddon_all: bool = True
    """Armageddon: every player with a Nuclear Commander plays Nuclear cards free in the exchange (four
    sources); off: only the card's player does (the AI reconstructions' reading)."""
    starting_energy: int = 3
    commander_cost: int = 3
    station_cost: int = 5
    max_stations: int = 4
    territory_bonus_captures: int = 3
    """004 "3-Territory Bonus": contested territories taken in a turn for 1 energy (and a card)."""

    def starting_mods(self, seats: int) -> int:
        if seats not in STARTING_MODS:
            raise RulesConfigError(f"RISK 2210 A.D. is played by 2 to 5 players, not {seats}")
        return STARTING_MODS[seats]
