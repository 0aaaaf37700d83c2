"""``run(bot)``: the command line every bot shares (address, identity, queues, games, pace)."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import signal
from collections.abc import Sequence

from conquest.v1 import bot_pb2
from conquest_sdk.client import Bot, Client, SessionError
from conquest_sdk.game import Game

DEFAULT_QUEUES = ("classic-4",)
"""The queues a bot joins when its command line names none."""


def parse_args(
    bot: Bot, argv: Sequence[str] | None = None, default_queues: Sequence[str] = DEFAULT_QUEUES
) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=f"Play {bot.name} on a Conquest server.")
    parser.add_argument("--address", default="localhost:50051", help="server host:port (default %(default)s)")
    parser.add_argument(
        "--token",
        default=os.environ.get("CONQUEST_TOKEN", ""),
        help="registered bot token (default: $CONQUEST_TOKEN; empty: practice play under --name)",
    )
    parser.add_argument("--name", default=bot.name, help="practice name (default %(default)s)")
    parser.add_argument(
        "--queue",
        action="append",
        help=f"queue to join, repeatable (default {' '.join(default_queues)})",
        default=[],
    )
    parser.add_argument("--games", type=int, default=0, help="stop after this many games (0: play on)")
    parser.add_argument("--capacity", type=int, default=1, help="games played at once (default 1)")
    parser.add_argument(
        "--pace-ms",
        type=int,
        default=0,
        help="answer no sooner than N ms after a request arrived (0: at once); a demo's bots use it so a "
        "visitor can follow a game live (never past the decision's deadline)",
        metavar="N",
    )
    parser.add_argument("--log-level", default="INFO", help="logging level (default %(default)s)")
    return parser.parse_args(argv)


def result_line(game: Game | None, over: bot_pb2.GameOver) -> str:
    """One finished game in words: ``game <id>: 1. name (outcome), ... after N turns`` (a RISK 2210 A.D.
    game counts years: ``GameOver.turns`` is the years it played)."""
    ranking = ", ".join(
        f"{r.place}. {r.name} ({bot_pb2.SeatOutcome.Name(r.outcome)[13:].lower()})"
        for r in sorted(over.results, key=lambda r: r.place)
    )
    # A game this client did not know (no GameStarted) is told apart by how it ended.
    is_2210 = game.r2210 is not None if game is not None else over.reason == "year_5"
    unit = "year" if is_2210 else "turn"
    return f"game {over.game_id}: {ranking} after {over.turns} {unit}{'' if over.turns == 1 else 's'}"


def run(
    bot: Bot, argv: Sequence[str] | None = None, *, default_queues: Sequence[str] = DEFAULT_QUEUES
) -> int:
    """Parse the command line, play, print one line per game as it ends; returns the exit status.

    ``default_queues``: joined when the command line names no ``--queue``. Ctrl-C or SIGTERM leaves the
    queues and finishes the games in progress; a second one quits at once.
    """
    args = parse_args(bot, argv, default_queues)
    logging.basicConfig(
        level=args.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )

    def print_result(game: Game | None, over: bot_pb2.GameOver) -> None:
        # At once, flushed: a bot that plays on (--games 0) shows each result while it plays.
        print(result_line(game, over), flush=True)

    client = Client(
        bot,
        args.address,
        token=args.token,
        name=args.name,
        queues=args.queue or list(default_queues),
        games=args.games,
        capacity=args.capacity,
        pace_ms=args.pace_ms,
        on_game_over=print_result,
    )

    async def main() -> list[bot_pb2.GameOver]:
        loop = asyncio.get_running_loop()
        player = asyncio.current_task()
        assert player is not None

        def on_signal() -> None:
            if client.stopping:
                player.cancel()
            client.stop()

        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, on_signal)
        return await client.run()

    try:
        asyncio.run(main())
    except SessionError as error:
        print(f"the server refused the session: {error}")
        return 2
    except asyncio.CancelledError:
        return 130
    return 0
