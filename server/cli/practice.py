"""``conquest practice``: the real server, where every game is one bot against built-in opponents.

Same Lobby, GameRunner and engine as ``conquest serve``; only the queues differ: each practice queue
seats one bot and fills the other seats with house opponents (``QueueConfig.house_opponents``), so a
game starts the moment a bot joins.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import logging
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from server.app import build_lobby, create_server
from server.cli.numbers import whole_number
from server.cli.output import result_line, say
from server.ops import runtime
from server.ops.config import QueueConfig, ServerConfig, default_queues
from server.play.runner_2210 import AnyRunner
from server.play.seats import HOUSE_POLICIES

SAMPLE_BOTS = {
    "random": "conquest_bots.random_bot",
    "aggressive": "conquest_bots.aggressive",
    "strategist": "conquest_bots.strategist",
}
"""The Python sample bots by short name, and the module that runs each."""


def practice_queues(
    names: Sequence[str], opponent: str, turn_cap: int | None = None
) -> tuple[QueueConfig, ...]:
    """The default queues called ``names`` (all when empty), every seat but one played by ``opponent``;
    ``turn_cap`` replaces the rules' turn cap.

    Raises:
        ValueError: a name that is not a default queue (the message lists them).
    """
    queues = {q.name: q for q in default_queues()}
    for name in names:
        if name not in queues:
            raise ValueError(f"no queue {name!r}; practice queues: {', '.join(queues)}")
    chosen = [queues[name] for name in dict.fromkeys(names)] if names else list(queues.values())
    return tuple(
        dataclasses.replace(
            q,
            rules=q.rules if turn_cap is None else dataclasses.replace(q.rules, turn_cap=turn_cap),
            house_opponents=(opponent,) * (q.players - 1),
        )
        for q in chosen
    )


async def practice(config: ServerConfig, games: int, out: TextIO) -> int:
    """Serve ``config`` until ``games`` games are over (0: until SIGINT or SIGTERM), printing how to
    connect and each game's result to ``out``; returns the number of finished games."""
    lobby = build_lobby(config, store=None)
    server, port = create_server(config, config.address, lobby)
    finished = 0
    stop = asyncio.Event()

    def game_over(runner: AnyRunner) -> None:
        nonlocal finished
        finished += runner.state.is_over()
        say(out, result_line(runner))
        if games and finished >= games:
            stop.set()

    lobby.on_game_over = game_over
    lobby.games_left = games or None
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    await server.start()
    try:
        print(instructions(config, port), file=out, flush=True)
        await stop.wait()
    finally:
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(signum)
        await lobby.shutdown(0)  # a game cut short by Ctrl-C is recorded and reported too
        await server.stop(grace=1.0)
    return finished


def instructions(config: ServerConfig, port: int) -> str:
    host = config.address.rpartition(":")[0].strip("[]")
    address = f"{'localhost' if host in ('', '::', '0.0.0.0') else host}:{port}"
    lines = [f"practice server on {address}; replays in {config.replay_dir}/", "queues:"]
    for q in config.queues:
        house = ", ".join(sorted(set(q.house_opponents)))
        lines.append(f"  {q.name:<16} you + {len(q.house_opponents)} house {house} ({q.rules_name})")
    first = config.queues[0].name
    lines += [
        "connect a bot, for example:",
        f"  python -m {SAMPLE_BOTS['aggressive']} --address {address} --queue {first}",
        f"  or your own bot (no token needed: send a name) to {address}",
    ]
    return "\n".join(lines)


def cmd_practice(args: argparse.Namespace) -> int:
    from server.ops.logs import configure_logging

    try:
        queues = practice_queues(args.queue, args.opponent, args.turn_cap)
    except ValueError as bad:
        print(f"conquest practice: {bad}", file=sys.stderr)
        return 2
    config = ServerConfig(address=args.address, replay_dir=args.replay_dir, metrics_port=0, queues=queues)
    configure_logging("console", logging.WARNING)  # the results are the output; server notes stay quiet
    runtime.run(practice(config, args.games, sys.stdout))
    return 0


def add_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``practice`` on the ``conquest`` parser."""
    practice = commands.add_parser(
        "practice", help="a local server where your bot plays built-in opponents (docs/cli.md)"
    )
    practice.add_argument(
        "--address", default="localhost:50051", help="host:port to listen on (default %(default)s)"
    )
    practice.add_argument(
        "--queue", action="append", default=[], help="offer this queue, repeatable (default: all)"
    )
    practice.add_argument(
        "--opponent", choices=sorted(HOUSE_POLICIES), default="aggressive", help="(default %(default)s)"
    )
    practice.add_argument(
        "--games", type=whole_number(0), default=0, help="stop after N games (default 0: Ctrl-C)"
    )
    practice.add_argument("--turn-cap", type=int, help="end each game after this many turns")
    practice.add_argument("--replay-dir", type=Path, default=Path("replays"), help="(default %(default)s)")
    practice.set_defaults(run=cmd_practice)
