"""Aggressive play: stack every army on the strongest front, attack wherever it outnumbers the defender,
move everything forward, and pull idle armies up to the front. Headquarters go on the biggest stack;
the Allied Army, when it is ours to command, is stacked and thrown at the opponent the same way.
RISK 2210 A.D. is played the same way by ``conquest_bots.aggressive_2210``."""

from __future__ import annotations

from conquest.v1 import game_pb2, r2210_pb2
from conquest_bots import aggressive_2210
from conquest_sdk import Bot, Game, Phase, Turn, Turn2210, actions, run


class AggressiveBot(Bot):
    name = "aggressive"

    def decide(self, game: Game, turn: Turn) -> game_pb2.Action:
        legal, owners, armies, me = turn.legal, turn.owners, turn.armies, game.seat
        if legal.claim:  # next to what we hold, to build a continent
            near = [t for t in legal.claim if any(owners[n] == me for n in game.neighbours[t])]
            return actions.claim((near or legal.claim)[0])
        if legal.headquarters:
            return actions.choose_headquarters(max(legal.headquarters, key=lambda t: armies[t]))
        if legal.trades and (legal.must_trade or len(turn.observation.hand) >= 3):
            return actions.trade(legal.trades[0].cards)
        if legal.place_territories:
            where = legal.place_territories
            if legal.place_neutral and turn.phase != Phase.PHASE_ALLIED_REINFORCE:
                return actions.place(where[0], 1)  # a neutral army in the two-player setup
            # Our own armies face anyone; the Allied Army's face the player whose turn it is.
            foe = turn.observation.turn_seat if turn.phase == Phase.PHASE_ALLIED_REINFORCE else -1
            fronts = [
                t
                for t in where
                if any(owners[n] != me and foe in (-1, owners[n]) for n in game.neighbours[t])
            ]
            return actions.place(max(fronts or where, key=lambda t: armies[t]), legal.place_max)
        if legal.attacks:
            best = max(legal.attacks, key=lambda a: a.source_armies - armies[a.target])
            if best.source_armies > 2 and best.source_armies - armies[best.target] > 1:
                return actions.attack(best.source, best.target, best.max_dice, repeat_until=1)
        if legal.occupy_max:
            return actions.occupy(legal.occupy_max)
        if turn.phase == Phase.PHASE_FORTIFY:
            interior = [
                f
                for f in legal.fortifies
                if all(owners[n] == me for n in game.neighbours[f.source])
                and any(owners[n] != me for n in game.neighbours[f.target])
            ]
            if interior:
                move = max(interior, key=lambda f: f.max_armies)
                return actions.fortify(move.source, move.target, move.max_armies)
        return legal.default()

    def decide_2210(self, game: Game, turn: Turn2210) -> r2210_pb2.Action2210:
        return aggressive_2210.decide(game, turn)


if __name__ == "__main__":
    raise SystemExit(run(AggressiveBot()))
