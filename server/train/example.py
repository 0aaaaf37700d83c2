"""Train a bot in the environment with numpy alone, then play it on a server unchanged (docs/training.md).

The policy scores every masked-in action with a linear function of a few features read from the
observation vector (what kind of action, the odds of an attack, whether a territory borders an enemy, how
many armies move) and plays the best. The cross-entropy method tunes the weights on duels against the
random bot in the two-player game (classic_two_player: you, the random bot and the neutral army), then
the script reports the trained policy's win rate over 200 seeded duels it never trained on:

    python -m server.train.example --duels 200 --save policy.npz      # `make bench-train`
    conquest practice --queue classic-2 --opponent random &
    python -m server.train.example --load policy.npz --play localhost:50051 --games-played 5
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from conquest_sdk.encoding import ATTACK_MODES, BUCKETS, Layout
from engine import random_policy
from server.train import ConquestEnv

RULES = "classic_two_player"
KINDS = (
    "claim",
    "choose_headquarters",
    "place",
    "trade_cards",
    "attack",
    "choose_defence",
    "occupy",
    "fortify",
    "end_phase",
)
FEATURES = len(KINDS) + 8
TRAIN_FIRST_SEED = 1_000_000
"""Training duels use seeds from here; the reported duels use 1..N, which training never sees."""

Policy = Callable[[npt.NDArray[np.float32], npt.NDArray[np.int8]], int]


class Features:
    """Per-action features of one layout, computed for all masked-in actions at once."""

    def __init__(self, layout: Layout) -> None:
        t = layout.territories
        self.layout = layout
        self.adjacent = np.zeros((t, t), np.float32)
        for a, b in layout.attack_pairs:
            self.adjacent[a, b] = 1.0
        n = layout.actions
        self.kind = np.zeros(n, np.intp)
        self.first = np.zeros(n, np.intp)  # territory, or the source of a move
        self.second = np.zeros(n, np.intp)  # the target of a move
        self.dice = np.zeros(n, np.float32)
        self.mode = np.zeros(n, np.float32)
        self.bucket = np.zeros(n, np.float32)
        for index in range(n):
            kind = max((k for k in KINDS if layout.offsets[k] <= index), key=lambda k: layout.offsets[k])
            local = index - layout.offsets[kind]
            self.kind[index] = KINDS.index(kind)
            if kind in ("claim", "choose_headquarters"):
                self.first[index] = local
            elif kind == "place":
                self.first[index], bucket = divmod(local, BUCKETS)
                self.bucket[index] = bucket / 2
            elif kind == "attack":
                pair, rest = divmod(local, 3 * ATTACK_MODES)
                dice, mode = divmod(rest, ATTACK_MODES)
                self.first[index], self.second[index] = layout.attack_pairs[pair]
                self.dice[index], self.mode[index] = (dice + 1) / 3, mode
            elif kind == "fortify":
                pair, bucket = divmod(local, BUCKETS)
                self.first[index], self.second[index] = layout.fortify_pairs[pair]
                self.bucket[index] = bucket / 2
            elif kind == "occupy":
                self.bucket[index] = local / 2
        at = layout.observation_offsets
        self.owners = slice(at["owners"], at["owners"] + t * (layout.seats + 1))
        self.armies = slice(at["armies"], at["armies"] + t)

    def __call__(
        self, observation: npt.NDArray[np.float32], actions: npt.NDArray[np.intp]
    ) -> npt.NDArray[np.float32]:
        t = self.layout.territories
        owners = observation[self.owners].reshape(t, self.layout.seats + 1)
        mine = owners[:, 0]
        armies = observation[self.armies]
        enemy_armies = armies * (1.0 - mine)
        border = (self.adjacent @ (1.0 - mine)) > 0
        threat = self.adjacent @ enemy_armies
        a, b = self.first[actions], self.second[actions]
        kind = self.kind[actions]
        out = np.zeros((len(actions), FEATURES), np.float32)
        out[np.arange(len(actions)), kind] = 1.0
        is_attack = kind == KINDS.index("attack")
        is_place = kind == KINDS.index("place")
        is_fortify = kind == KINDS.index("fortify")
        k = len(KINDS)
        out[:, k] = is_attack * (armies[a] - 1 - armies[b]) / (armies[a] + armies[b] + 1)
        out[:, k + 1] = is_attack * self.dice[actions]
        out[:, k + 2] = is_attack * self.mode[actions]
        out[:, k + 3] = is_place * border[a]
        out[:, k + 4] = is_place * threat[a] / (threat[a] + armies[a] + 1)
        out[:, k + 5] = self.bucket[actions]
        out[:, k + 6] = is_fortify * (border[b].astype(np.float32) - border[a])
        out[:, k + 7] = (kind == KINDS.index("claim")) * (self.adjacent[a] @ mine) / self.adjacent[a].sum(1)
        return out


def linear_policy(features: Features, weights: npt.NDArray[np.float32]) -> Policy:
    """Plays the masked-in action whose features score highest under ``weights``."""

    def policy(observation: npt.NDArray[np.float32], mask: npt.NDArray[np.int8]) -> int:
        actions = np.flatnonzero(mask)
        return int(actions[np.argmax(features(observation, actions) @ weights)])

    return policy


def duel(env: ConquestEnv, policy: Policy, seed: int) -> bool:
    """One game against the random bot (the engine's ``random_policy``, which the random sample bot and
    the practice server's random opponent play) on ``seed``; seats alternate with the seed. True for a
    win."""
    env.reset(seed=seed)
    learner = f"seat_{seed % 2}"
    opponent = random_policy(random.Random(seed))
    for agent in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
        elif agent == learner:
            env.step(policy(obs["observation"], obs["action_mask"]))
        else:
            assert env.game is not None
            env.step_action(opponent(env.game))
    assert env.game is not None
    places = env.game.places
    return places[seed % 2] == 1 and places.count(1) == 1


def train(
    env: ConquestEnv, features: Features, generations: int, population: int, games: int
) -> npt.NDArray[np.float32]:
    """The cross-entropy method: sample weights around a mean, keep the best quarter, move the mean."""
    rng = np.random.default_rng(0)
    mean = np.zeros(FEATURES, np.float32)
    spread = np.ones(FEATURES, np.float32)
    for generation in range(generations):
        seeds = [TRAIN_FIRST_SEED + generation * games + g for g in range(games)]
        candidates = mean + spread * rng.standard_normal((population, FEATURES)).astype(np.float32)
        scores = [sum(duel(env, linear_policy(features, w), seed) for seed in seeds) for w in candidates]
        elite = candidates[np.argsort(scores)[-max(2, population // 4) :]]
        mean, spread = elite.mean(0), elite.std(0) + 0.05
        print(
            f"generation {generation + 1}: best {max(scores)}/{games} wins, mean {np.mean(scores):.1f}",
            flush=True,
        )
    return mean


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--duels", type=int, default=200, help="seeded duels reported (default 200)")
    parser.add_argument("--generations", type=int, default=8)
    parser.add_argument("--population", type=int, default=12)
    parser.add_argument("--games", type=int, default=6, help="training duels per candidate and generation")
    parser.add_argument("--turn-cap", type=int, default=200, help="turns per duel (default 200)")
    parser.add_argument("--save", help="write the trained weights to this .npz file")
    parser.add_argument("--load", help="skip training: read the weights from this .npz file")
    parser.add_argument("--play", metavar="ADDRESS", help="then play on this server (practice mode)")
    parser.add_argument("--queue", default="classic-2", help="queue to join with --play")
    parser.add_argument("--games-played", dest="server_games", type=int, default=5, help="games with --play")
    args = parser.parse_args()

    env = ConquestEnv(RULES, 2, rules_options={"turn_cap": args.turn_cap})
    features = Features(env.layout)
    start = time.perf_counter()
    if args.load:
        weights = np.load(args.load)["weights"]
    else:
        weights = train(env, features, args.generations, args.population, args.games)
        print(f"trained in {time.perf_counter() - start:.0f} s")
    if args.save:
        np.savez(args.save, weights=weights)
    policy = linear_policy(features, weights)
    wins = sum(duel(env, policy, seed) for seed in range(1, args.duels + 1))
    print(
        f"win rate against the random bot: {wins}/{args.duels} = {100 * wins / args.duels:.1f}% "
        f"({RULES}, seeds 1..{args.duels}, seats alternating, turn cap {args.turn_cap})"
    )
    if args.play:
        import asyncio

        from conquest_sdk import Client
        from conquest_sdk.policy import PolicyBot

        bot = PolicyBot(policy, name="numpy-policy")
        client = Client(bot, args.play, name=bot.name, queues=[args.queue], games=args.server_games)
        for over in asyncio.run(client.run()):
            ranking = sorted(over.results, key=lambda r: r.place)
            print(f"game {over.game_id}: " + ", ".join(f"{r.place}. {r.name}" for r in ranking))


if __name__ == "__main__":
    main()
