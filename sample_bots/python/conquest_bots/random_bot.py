"""Random legal play: a uniformly chosen kind of legal action with uniformly chosen numbers."""

from __future__ import annotations

import random

from conquest.v1 import game_pb2, r2210_pb2
from conquest_sdk import Bot, Game, Turn, Turn2210, actions, run
from conquest_sdk.r2210 import random_2210


class RandomBot(Bot):
    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def decide(self, game: Game, turn: Turn) -> game_pb2.Action:
        legal, rng = turn.legal, self.rng
        choices: list[game_pb2.Action] = []
        if legal.claim:
            choices.append(actions.claim(rng.choice(legal.claim)))
        if legal.headquarters:
            choices.append(actions.choose_headquarters(rng.choice(legal.headquarters)))
        if legal.trades:
            choices.append(actions.trade(rng.choice(legal.trades).cards))
        if legal.place_territories:
            choices.append(
                actions.place(
                    rng.choice(legal.place_territories), rng.randint(legal.place_min, legal.place_max)
                )
            )
        if legal.attacks:
            a = rng.choice(legal.attacks)
            until = rng.choice((0, rng.randint(1, a.source_armies - 1)))
            choices.append(actions.attack(a.source, a.target, rng.randint(1, a.max_dice), until))
        if legal.defend_max:
            choices.append(actions.defend(rng.randint(1, legal.defend_max)))
        if legal.occupy_max:
            choices.append(actions.occupy(rng.randint(legal.occupy_min, legal.occupy_max)))
        if legal.fortifies:
            f = rng.choice(legal.fortifies)
            choices.append(actions.fortify(f.source, f.target, rng.randint(1, f.max_armies)))
        if legal.can_end:
            choices.append(actions.end_phase())
        return rng.choice(choices)

    def decide_2210(self, game: Game, turn: Turn2210) -> r2210_pb2.Action2210:
        return random_2210(turn.legal, self.rng)


if __name__ == "__main__":
    raise SystemExit(run(RandomBot()))
