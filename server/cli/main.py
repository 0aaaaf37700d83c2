"""The ``conquest`` command: ``build_parser`` asks each command module of ``server.cli`` to register its
subcommands (``add_commands``), each run by a ``cmd_<name>`` function in that module: ``serve.py`` (serve,
health), ``practice.py``, ``match.py``, ``demo.py``, ``replay.py`` (replay show, verify, events, render) and
``arena.py`` (the Arena API commands: bot, leaderboard, games, challenge, tournament, replay download).
Every subcommand, as in docs/cli.md (tests/cli/test_cli_docs.py keeps both in step):

conquest serve [--config FILE] [--address HOST:PORT] [--replay-dir DIR] [--log-format console|json]
        [--no-practice] [--processes N]
conquest health [--address HOST:PORT] [--timeout SECONDS]
conquest practice [--address HOST:PORT] [--queue NAME ...] [--opponent aggressive|random] [--games N]
        [--turn-cap T] [--replay-dir DIR]
conquest match BOT BOT ... [--games N] [--queue-rules PRESET] [--parallel K] [--turn-cap T]
        [--replay-dir DIR] [--connect-timeout SECONDS]
conquest demo [--address HOST:PORT] [--database-url URL] [--games N] [--replay-dir DIR]
        [--dashboard-port PORT] [--pace-ms MS]
conquest replay show FILE
conquest replay verify FILE [FILE ...]
conquest replay events FILE
conquest replay render FILE [-o|--output game.html]
conquest replay download GAME_ID -o|--output FILE [--server HOST:PORT]
conquest bot register NAME [--server HOST:PORT] [--admin-token TOKEN]
conquest bot rotate NAME [--server HOST:PORT] [--admin-token TOKEN]
conquest bot revoke NAME [--server HOST:PORT] [--admin-token TOKEN]
conquest bot list [--server HOST:PORT]
conquest leaderboard QUEUE [--limit N] [--server HOST:PORT]
conquest games [--queue NAME] [--bot NAME] [--limit N] [--server HOST:PORT]
conquest challenge BOT BOT ... (--queue NAME | --rules PRESET) [--games N] [--server HOST:PORT]
        [--admin-token TOKEN]
conquest tournament create NAME --format round_robin|swiss|single_elimination --bots BOT ...
        (--queue NAME | --rules PRESET) [--table-size N] [--rounds N] [--server HOST:PORT]
        [--admin-token TOKEN]
conquest tournament show NAME [--server HOST:PORT]
conquest tournament list [--server HOST:PORT]

serve reads defaults, then FILE, then CONQUEST_* environment variables, then flags (docs/configuration.md);
health exits 0 only when the server reports SERVING (container health checks); demo is the README's run
command; replay render writes one self-contained page (the replay viewer, no server); the Arena API
commands talk to a running server (docs/arena.md).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from server.cli import arena, demo, match, practice, replay, serve
from server.cli.output import PIPE_CLOSED, silence


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="conquest", description="Conquest game server and tools")
    commands = parser.add_subparsers(dest="command", required=True)
    serve.add_commands(commands)
    practice.add_commands(commands)
    demo.add_commands(commands)
    match.add_commands(commands)
    replay_commands = replay.add_commands(commands)
    arena.add_commands(commands, replay_commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one subcommand; its exit status. A reader that stops reading (``conquest replay events FILE |
    head``) ends the command quietly with status 141, as SIGPIPE ends other tools: no traceback."""
    args = build_parser().parse_args(argv)
    try:
        code: int = args.run(args)
        sys.stdout.flush()  # a reader gone after the last line is found here, not at exit
    except BrokenPipeError:
        silence(sys.stdout)
        return PIPE_CLOSED
    return code


if __name__ == "__main__":
    sys.exit(main())
