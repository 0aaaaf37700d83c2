"""A Python sample bot (``conquest_bots``) as an engine policy, on the messages the server would send it
(``server.play.offline`` builds them), for the Gymnasium wrapper's opponents: classic (``SampleBotPolicy``)
or RISK 2210 A.D. (``SampleBot2210``, a ``(GameState2210, seat) -> Action2210`` policy)."""

from __future__ import annotations

from conquest_bots.roster import BOTS
from conquest_sdk import Bot, Game, Turn, Turn2210
from engine import Action, GameState
from engine.r2210.actions import Action2210
from engine.r2210.state import GameState2210
from server.play import convert, convert_2210, offline


def _bot(name: str, seed: int) -> Bot:
    """``name`` of ``conquest_bots.roster.BOTS``, seeded.

    Raises:
        ValueError: no such sample bot (the message lists them).
    """
    if name not in BOTS:
        known = ", ".join(sorted(BOTS))
        raise ValueError(f"no sample bot {name!r}; opponents are random, aggressive or one of: {known}")
    return BOTS[name](seed)


class SampleBotPolicy:
    """Plays ``name`` of ``conquest_bots.roster.BOTS`` (seeded) in one game (a new one per episode)."""

    def __init__(self, name: str, seed: int) -> None:
        self.bot = _bot(name, seed)
        self._games: list[Game] = []
        self._requests = 0

    def __call__(self, state: GameState) -> Action:
        if not self._games:
            self._games = offline.seat_games(state, [f"seat {s}" for s in range(state.seats)], "gym")
            for game in self._games:
                self.bot.on_game_started(game)
        game = self._games[state.to_act]
        self._requests += 1
        request = offline.decision_request(state, game, self._requests)
        return convert.action_from_pb(self.bot.decide(game, Turn(request)))


class SampleBot2210:
    """Plays ``name`` of ``conquest_bots.roster.BOTS`` (seeded) in one RISK 2210 A.D. game, for the seat
    asked."""

    def __init__(self, name: str, seed: int) -> None:
        self.bot = _bot(name, seed)
        self._games: list[Game] = []
        self._requests = 0

    def __call__(self, state: GameState2210, seat: int) -> Action2210:
        if not self._games:
            names = [f"seat {s}" for s in range(state.seats)]
            self._games = offline.seat_games_2210(state, names, "gym")
            for game in self._games:
                self.bot.on_game_started(game)
        game = self._games[seat]
        self._requests += 1
        request = offline.decision_request_2210(state, game, seat, self._requests)
        return convert_2210.action_from_pb_2210(self.bot.decide_2210(game, Turn2210(request)))


def sample_bot(name: str, seed: int) -> SampleBotPolicy:
    return SampleBotPolicy(name, seed)
