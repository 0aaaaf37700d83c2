"""``run(bot)``: the command line every bot shares (address, identity, queues, games)."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import signal
from collections.abc import Sequence

from conquest.v1 import bot_pb2
from conquest_sdk.client import Bot, Client, SessionError


def parse_args(bot: Bot, argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=f"Play {bot.name} on a Conquest server.")
    parser.add_argument("--address", default="localhost:50051", help="server host:port (default %(default)s)")
    parser.add_argument(
        "--token",
        default=os.environ.get("CONQUEST_TOKEN", ""),
        help="registered bot token (default: $CONQUEST_TOKEN; empty: practice play under --name)",
    )
    parser.add_argument("--name", default=bot.name, help="practice name (default %(default)s)")
    parser.add_argument(
        "--queue", action="append", help="queue to join, repeatable (default classic-4)", default=[]
    )
    parser.add_argument("--games", type=int, default=0, help="stop after this many games (0: play on)")
    parser.add_argument("--capacity", type=int, default=1, help="games played at once (default 1)")
    parser.add_argument("--log-level", default="INFO", help="logging level (default %(default)s)")
    return parser.parse_args(argv)


def run(bot: Bot, argv: Sequence[str] | None = None) -> int:
    """Parse the command line, play, print one line per finished game; returns the exit status.

    Ctrl-C or SIGTERM leaves the queues and finishes the games in progress; a second one quits at once.
    """
    args = parse_args(bot, argv)
    logging.basicConfig(
        level=args.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    client = Client(
        bot,
        args.address,
        token=args.token,
        name=args.name,
        queues=args.queue or ["classic-4"],
        games=args.games,
        capacity=args.capacity,
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
        results = asyncio.run(main())
    except SessionError as error:
        print(f"the server refused the session: {error}")
        return 2
    except asyncio.CancelledError:
        return 130
    for over in results:
        line = ", ".join(
            f"{r.place}. {r.name} ({bot_pb2.SeatOutcome.Name(r.outcome)[13:].lower()})"
            for r in sorted(over.results, key=lambda r: r.place)
        )
        print(f"game {over.game_id}: {line} after {over.turns} turns")
    return 0
