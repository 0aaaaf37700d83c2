"""Per-game facts (seat, players, rules, the map as adjacency lists) and one decision's context."""

from __future__ import annotations

import time
from typing import Any

from conquest.v1 import bot_pb2, game_pb2
from conquest_sdk.legal import Legal
from conquest_sdk.r2210 import Board2210

Phase = game_pb2.Phase


class Game:
    """One game this bot plays in, built from its GameStarted message.

    ``notes`` is a scratch dict for the bot's own per-game memory (several games share one bot object).
    """

    def __init__(self, started: bot_pb2.GameStarted) -> None:
        self.started = started
        self.game_id = started.game_id
        self.seat = started.seat
        self.players = [p.name for p in started.players]
        self.rules = started.rules
        self.map = started.map
        self.observation = started.observation
        self.size = len(started.map.territories)
        self.neighbours = [list(t.neighbours) for t in started.map.territories]
        self.continent_of = [t.continent for t in started.map.territories]
        self.continents = [list(c.territories) for c in started.map.continents]
        self.continent_bonus = [c.bonus for c in started.map.continents]
        self.neutral = len(self.players) if started.rules.neutral else -1
        """Owner number of the third army (the neutral army, or the Allied Army), or -1 when there is none."""
        self.missions = list(started.rules.missions)
        """Secret Mission Risk: every mission card by mission id (see ``Turn.mission``); else empty."""
        self.r2210 = started.r2210 if started.HasField("r2210") else None
        """A RISK 2210 A.D. game: its rules, board and first view (``Start2210``); None in a classic game."""
        self.board_2210 = Board2210(started.r2210) if self.r2210 is not None else None
        """A RISK 2210 A.D. game's board and cards read for play (adjacency, kinds, regions); else None."""
        self.notes: dict[str, Any] = {}

    def __repr__(self) -> str:
        return f"Game({self.game_id!r}, seat={self.seat}, players={self.players})"


class Turn:
    """One DecisionRequest: the observation, the legal actions and the clock.

    ``owners`` and ``armies`` are plain lists (fast to index); ``deadline`` is a ``time.monotonic()``
    instant after which the SDK sends ``legal.default()`` instead of waiting for the bot.
    """

    __slots__ = ("armies", "budget_s", "deadline", "legal", "observation", "owners", "request")

    def __init__(self, request: bot_pb2.DecisionRequest, budget_s: float = float("inf")) -> None:
        self.request = request
        self.observation = request.observation
        self.legal = Legal(request.legal)
        self.owners = list(request.observation.owners)
        self.armies = list(request.observation.armies)
        self.budget_s = budget_s
        self.deadline = time.monotonic() + budget_s

    @property
    def phase(self) -> game_pb2.Phase.ValueType:
        return self.observation.phase

    @property
    def mission(self) -> int:
        """Secret Mission Risk: your mission id (index into ``Game.missions``); -1 in other games."""
        return self.observation.mission

    @property
    def headquarters(self) -> list[int]:
        """Capital Risk: each seat's headquarters territory by seat (-1: not chosen, or not yet revealed);
        empty in other games."""
        return list(self.observation.headquarters)

    @property
    def time_allowed_ms(self) -> int:
        return self.request.time_allowed_ms

    @property
    def timebank_ms(self) -> int:
        return self.request.timebank_ms

    def time_left(self) -> float:
        """Seconds until the SDK answers with the default instead."""
        return self.deadline - time.monotonic()
