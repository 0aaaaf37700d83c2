"""A Python sample bot (``conquest_bots``) as an engine policy, on the messages the server would send it
(``server.play.offline`` builds them), for the Gymnasium wrapper's opponents."""

from __future__ import annotations

from conquest_bots.roster import BOTS
from conquest_sdk import Game, Turn
from engine import Action, GameState
from server.play import convert, offline


class SampleBotPolicy:
    """Plays ``name`` of ``conquest_bots.roster.BOTS`` (seeded) in one game (a new one per episode)."""

    def __init__(self, name: str, seed: int) -> None:
        if name not in BOTS:
            known = ", ".join(sorted(BOTS))
            raise ValueError(f"no sample bot {name!r}; opponents are random, aggressive or one of: {known}")
        self.bot = BOTS[name](seed)
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


def sample_bot(name: str, seed: int) -> SampleBotPolicy:
    return SampleBotPolicy(name, seed)
