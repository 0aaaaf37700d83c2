"""The sample bots by name, and the matchups that measure them (``make bench-bots`` and the tests)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from conquest_bots.aggressive import AggressiveBot
from conquest_bots.random_bot import RandomBot
from conquest_bots.strategist import StrategistBot
from conquest_sdk import Bot

BOTS: dict[str, Callable[[int], Bot]] = {
    "random": lambda seed: RandomBot(seed),
    "aggressive": lambda seed: AggressiveBot(),
    "strategist": lambda seed: StrategistBot(),
}
"""Bot kinds by name, each built from a per-game seed (used by the random bot only)."""


@dataclass(frozen=True)
class Matchup:
    title: str
    kinds: tuple[str, ...]
    preset: str
    """A classic preset's name, or "2210" for RISK 2210 A.D. (default rules, as the 2210 queues play)."""
    hero: int
    """The seat whose wins are counted (seat order is rotated from game to game)."""


MATCHUPS = (
    Matchup("strategist vs random, two-player neutral", ("strategist", "random"), "classic_two_player", 0),
    Matchup(
        "strategist vs aggressive, two-player neutral", ("strategist", "aggressive"), "classic_two_player", 0
    ),
    Matchup(
        "strategist vs 3 aggressive, classic 4 players",
        ("strategist", "aggressive", "aggressive", "aggressive"),
        "classic",
        0,
    ),
    Matchup(
        "aggressive vs 3 random, classic 4 players",
        ("aggressive", "random", "random", "random"),
        "classic",
        0,
    ),
    Matchup(
        "strategist vs 3 aggressive, capital 4 players",
        ("strategist", "aggressive", "aggressive", "aggressive"),
        "capital",
        0,
    ),
    Matchup(
        "strategist vs 3 aggressive, secret mission 4 pl.",
        ("strategist", "aggressive", "aggressive", "aggressive"),
        "secret_mission",
        0,
    ),
    Matchup(
        "strategist vs aggressive, allied army 2 pl.", ("strategist", "aggressive"), "allied_two_player", 0
    ),
    Matchup(
        "strategist vs 3 aggressive, 2210 4 players",
        ("strategist", "aggressive", "aggressive", "aggressive"),
        "2210",
        0,
    ),
    Matchup(
        "aggressive vs 3 random, 2210 4 players", ("aggressive", "random", "random", "random"), "2210", 0
    ),
)
