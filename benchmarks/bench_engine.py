"""The engine speed benchmark (``make bench-engine``): whole games with the aggressive policy, one process.

For each preset it plays a fixed number of games on a fixed seed range (so runs compare) and prints games/s
and per-game means of turns, attacks (Attack actions), dice rolls (Rolled events) and actions. The timed
passes only play (the fastest of REPEATS is reported); an untimed pass replays the same games to count.
The clock is read here, around whole games, never inside the engine.

The ``2210`` rows play RISK 2210 A.D. games (``engine.r2210``) for 2, 4 and 5 players with the engine's
policy ``engine.r2210.policies.aggressive_2210`` (it reads the state, as the classic rows' policy does), plus
one 4-player row with the random policy on the legal actions built for every decision (it plays Command
cards), and print their actions/s as a ratio to the classic 4-player row of the same run (issue 19's bar:
at least 1/3).

The ``dice version 1`` row plays the classic 4-player games again with the randomness of dice version 1
(CPython's Mersenne Twister, as games recorded before version 2 were) and prints the classic row's actions/s
as a ratio to it: what the documented SHA-256 derivation (``engine.dice``) costs (issue 23's bar: within
5%, so at least 0.95).

The last row, ``env``, is the training environment (``server.train``, PettingZoo's loop with a random agent
choosing among the masked-in actions) in classic 4-player games: its steps/s, and that as a percentage of
the engine's actions/s in the classic 4-player row of the same run (issue 22's bar: 20%).

``--env-cpu`` prints the env row alone on process CPU time (``time.process_time``, the fastest of
CPU_REPEATS), steadier than the wall clock on a shared machine: the engine's classic 4-player games and the
env's steps, alternating, each as microseconds and their ratio.

    python -m benchmarks.bench_engine [--scale 0.5] [--env-cpu]
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable
from typing import NamedTuple

from engine.actions import Action, Attack, Phase
from engine.dice import DICE_VERSION
from engine.events import Rolled
from engine.game import new_game
from engine.observe import observe
from engine.policies import Policy, aggressive_policy, play_game
from engine.rules import preset
from engine.state import Termination


class Workload(NamedTuple):
    label: str
    preset: str
    seats: int
    games: int
    dice_version: int = DICE_VERSION


WORKLOADS = (
    Workload("classic, 4 players (claim setup, cards escalating)", "classic", 4, 1000),
    Workload("classic_dealt, 4 players", "classic_dealt", 4, 1000),
    Workload("classic_two_player (neutral army)", "classic_two_player", 2, 2000),
)
DICE_V1 = Workload(
    "classic, 4 players, dice version 1 (Mersenne Twister)", "classic", 4, 1000, dice_version=1
)
FIRST_SEED = 1
REPEATS = 3
"""Each preset is timed this many times and the fastest run is reported (the machine may be shared)."""


class Result(NamedTuple):
    games: int
    seconds: float
    """The fastest of the timed runs."""
    turns: int
    attacks: int
    rolls: int
    actions: int
    unfinished: int
    """Games stopped by the turn cap instead of a conquest."""


Clock = Callable[[], float]


def time_games(workload: Workload, games: int, clock: Clock = time.perf_counter) -> float:
    """Seconds to play ``games`` games on seeds FIRST_SEED.. (nothing else inside the timed loop)."""
    rules = preset(workload.preset)
    policies: list[Policy] = [aggressive_policy] * workload.seats
    start = clock()
    for seed in range(FIRST_SEED, FIRST_SEED + games):
        state, _ = new_game(rules, workload.seats, seed, dice_version=workload.dice_version)
        play_game(state, policies)
    return clock() - start


def count_games(workload: Workload, games: int, seconds: float) -> Result:
    """Replay the same games (deterministic: same seeds, same policy) counting what happened."""
    rules = preset(workload.preset)
    turns = attacks = rolls = actions = unfinished = 0
    for seed in range(FIRST_SEED, FIRST_SEED + games):
        state, _ = new_game(rules, workload.seats, seed, dice_version=workload.dice_version)
        while state.phase != Phase.GAME_OVER:
            action = aggressive_policy(state)
            attacks += type(action) is Attack
            rolls += sum(1 for event in state.apply_unchecked(action) if type(event) is Rolled)
            actions += 1
        turns += state.turn
        unfinished += state.end_reason != Termination.CONQUEST
    return Result(games, seconds, turns, attacks, rolls, actions, unfinished)


def report(workload: Workload, r: Result) -> str:
    n = r.games
    return (
        f"{workload.label}\n"
        f"  {n} games (seeds {FIRST_SEED}..{FIRST_SEED + n - 1}), fastest of {REPEATS} runs: "
        f"{r.seconds:.2f} s, {n / r.seconds:.1f} games/s\n"
        f"  per game: {r.turns / n:.1f} turns, {r.attacks / n:.1f} attacks, {r.rolls / n:.1f} dice rolls, "
        f"{r.actions / n:.1f} actions; {r.unfinished} ended by the turn cap"
    )


ENV_GAMES = 6
"""Classic 4-player games the env row plays (random agents: ~8,000 steps each, to the turn cap)."""


def time_env(
    games: int, record: list[list[Action]] | None = None, clock: Clock = time.perf_counter
) -> tuple[int, float]:
    """Steps of the PettingZoo environment with random masked-in actions, and the seconds they took;
    with ``record``, each game's engine actions are appended to it (untimed runs only)."""
    from server.train import ConquestEnv
    from server.train.inputs import choices_of, engine_action

    env = ConquestEnv("classic", 4)
    rng = random.Random(FIRST_SEED)
    steps = 0
    start = clock()
    for seed in range(FIRST_SEED, FIRST_SEED + games):
        env.reset(seed=seed)
        if record is not None:
            record.append([])
        for _ in env.agent_iter():
            # The observation and mask a learner gets are built every step; the random agent draws uniformly
            # from the masked-in indices as the env lists them (np.flatnonzero of the mask, once a decision).
            _observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            index = rng.choice(env.legal_indices())
            if record is not None:
                record[-1].append(engine_action(env.layout.decode(index, choices_of(env.legal_actions()))))
            env.step(index)
            steps += 1
    return steps, clock() - start


def time_engine_alone(games: list[list[Action]]) -> float:
    """Seconds for the engine alone to take the env's games' actions, with what the server builds for each
    decision too (the seat's observation and the legal actions)."""
    rules = preset("classic")
    start = time.perf_counter()
    for seed, actions in enumerate(games, FIRST_SEED):
        state, _ = new_game(rules, 4, seed)
        for action in actions:
            state.legal_actions()
            observe(state, state.to_act)
            state.apply_unchecked(action)
    return time.perf_counter() - start


R2210_ROWS = ((2, "aggressive", 300), (4, "aggressive", 200), (5, "aggressive", 150), (4, "random", 100))
"""2210 rows: players, policy and games (five years each)."""


def time_2210(seats: int, policy: str, games: int) -> tuple[int, float]:
    """Actions of ``games`` 2210 games on seeds FIRST_SEED.. and the seconds they took. "aggressive" is
    ``aggressive_2210`` in every seat (it reads the state, as the classic rows' policy does); "random" is
    ``random_action`` on the legal actions built for every decision (it plays Command cards)."""
    from engine.r2210.game import apply_unchecked, legal_actions, new_game_2210
    from engine.r2210.policies import aggressive_2210, random_action
    from engine.r2210.rules import Rules2210

    rules = Rules2210()
    actions = 0
    start = time.perf_counter()
    for seed in range(FIRST_SEED, FIRST_SEED + games):
        state, _ = new_game_2210(rules, seats, seed)
        if policy == "aggressive":
            while not state.is_over():
                seat = state.asked[0]
                apply_unchecked(state, aggressive_2210(state, seat), seat)
                actions += 1
            continue
        rng = random.Random(seed)
        while not state.is_over():
            seat = state.asked[0]
            apply_unchecked(state, random_action(legal_actions(state, seat), rng), seat)
            actions += 1
    return actions, time.perf_counter() - start


CPU_ENGINE_GAMES = 300
CPU_ENV_GAMES = 2
CPU_REPEATS = 5


def env_on_cpu_time(scale: float) -> None:
    """The env row on process CPU time: engine and env timed alternately, the fastest of CPU_REPEATS each."""
    classic = WORKLOADS[0]
    engine_games = max(1, int(CPU_ENGINE_GAMES * scale))
    env_games = max(1, int(CPU_ENV_GAMES * scale))
    engine_seconds = env_seconds = float("inf")
    steps = 0
    for _ in range(CPU_REPEATS):
        engine_seconds = min(engine_seconds, time_games(classic, engine_games, time.process_time))
        steps, seconds = time_env(env_games, clock=time.process_time)
        env_seconds = min(env_seconds, seconds)
    actions = count_games(classic, engine_games, engine_seconds).actions
    action_us, step_us = 1e6 * engine_seconds / actions, 1e6 * env_seconds / steps
    print(
        f"env (process CPU time, fastest of {CPU_REPEATS})  {step_us:.2f} us a step = "
        f"{100 * action_us / step_us:.1f}% "
        f"of the engine's {action_us:.2f} us an action ({env_games} env games, {steps} steps; {engine_games} "
        f"engine games, {actions} actions; a step takes {step_us / action_us:.2f} actions' time)",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every preset's game count")
    parser.add_argument("--env-cpu", action="store_true", help="only the env row, on process CPU time")
    args = parser.parse_args()
    if args.env_cpu:
        env_on_cpu_time(args.scale)
        return
    engine_rate = 0.0
    for workload in (*WORKLOADS, DICE_V1):
        games = max(1, int(workload.games * args.scale))
        seconds = min(time_games(workload, games) for _ in range(REPEATS))
        result = count_games(workload, games, seconds)
        print(report(workload, result), flush=True)
        if workload is DICE_V1:
            ratio = engine_rate / (result.actions / result.seconds)
            print(f"  dice version {DICE_VERSION} (the classic 4-player row) at {ratio:.2f} of its actions/s")
        elif workload.preset == "classic" and workload.seats == 4:
            engine_rate = result.actions / result.seconds
    for seats, policy, count in R2210_ROWS:
        games = max(1, int(count * args.scale))
        actions, seconds = min((time_2210(seats, policy, games) for _ in range(REPEATS)), key=lambda r: r[1])
        rate = actions / seconds
        print(
            f"2210, {seats} players ({policy} policy)\n"
            f"  {games} games (seeds {FIRST_SEED}..{FIRST_SEED + games - 1}), fastest of {REPEATS} runs: "
            f"{seconds:.2f} s, {games / seconds:.1f} games/s, {actions / games:.0f} actions per game, "
            f"{rate:,.0f} actions/s = {rate / engine_rate:.2f} of classic 4-player's {engine_rate:,.0f}",
            flush=True,
        )
    env_games = max(1, int(ENV_GAMES * args.scale))
    steps, seconds = min((time_env(env_games) for _ in range(REPEATS)), key=lambda run: run[1])
    played: list[list[Action]] = []
    time_env(env_games, played)
    alone = min(time_engine_alone(played) for _ in range(REPEATS))
    print(
        f"env  {steps / seconds:,.0f} steps/s = {100 * steps / seconds / engine_rate:.1f}% of the engine's "
        f"{engine_rate:,.0f} actions/s (classic, 4 players, random masked actions, {env_games} games, "
        f"{steps} steps; the engine alone takes the same actions, with observations and legal actions, "
        f"at {steps / alone:,.0f}/s)",
        flush=True,
    )


if __name__ == "__main__":
    main()
