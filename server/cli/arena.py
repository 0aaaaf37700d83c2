"""The ``conquest`` subcommands that talk to a running server's ArenaService, printing plain tables.

conquest bot register|rotate|revoke NAME [--server HOST:PORT] [--admin-token TOKEN]
conquest bot list [--server HOST:PORT]
conquest leaderboard QUEUE [--limit N] [--server HOST:PORT]
conquest games [--queue QUEUE] [--bot NAME] [--limit N] [--server HOST:PORT]
conquest replay download GAME_ID -o FILE [--server HOST:PORT]
conquest challenge BOT BOT ... (--queue QUEUE | --rules PRESET) [--games N] [--admin-token TOKEN]
conquest tournament create NAME --format FORMAT (--queue Q | --rules PRESET) [--table-size N] [--rounds N]
    --bots BOT ...
conquest tournament show NAME | conquest tournament list

The admin token defaults to the CONQUEST_ADMIN_TOKEN environment variable. A refused call prints the
server's status code and message and exits with status 1.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import grpc

from conquest.v1 import arena_pb2, arena_pb2_grpc, bot_pb2
from server.arena.ledger import MAX_GAMES
from server.arena.tournaments import MAX_SWISS_ROUNDS
from server.cli.numbers import whole_number
from server.cli.output import table

DEFAULT_SERVER = "localhost:50051"
TIMEOUT_S = 30.0


def _when(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%d %H:%M") if ms else "-"


def _call(args: argparse.Namespace, work: Callable[[Any, tuple[tuple[str, str], ...]], int]) -> int:
    """Run ``work(stub, metadata)`` on a channel to ``--server``; a refused call prints why and returns 1."""
    metadata: tuple[tuple[str, str], ...] = ()
    if getattr(args, "admin_token", None) is not None:
        if not args.admin_token:
            print(
                f"conquest {args.command}: an admin token is needed: pass --admin-token or set "
                "CONQUEST_ADMIN_TOKEN (the server's server.admin_token)",
                file=sys.stderr,
            )
            return 2
        metadata = (("authorization", f"Bearer {args.admin_token}"),)
    with grpc.insecure_channel(args.server) as channel:
        try:
            return work(arena_pb2_grpc.ArenaServiceStub(channel), metadata)
        except grpc.RpcError as bad:
            why = f"{bad.code().name}: {bad.details()}" if isinstance(bad, grpc.Call) else str(bad)
            print(f"conquest {args.command}: {args.server}: {why}", file=sys.stderr)
            return 1


def cmd_bot_register(args: argparse.Namespace) -> int:
    def work(stub: Any, metadata: tuple[tuple[str, str], ...]) -> int:
        reply = stub.RegisterBot(
            arena_pb2.RegisterBotRequest(name=args.name), metadata=metadata, timeout=TIMEOUT_S
        )
        print(f"registered bot {reply.bot.name} (id {reply.bot.id})")
        print(f"token: {reply.token}")
        print("The token is shown this once (the server keeps only its hash): give it to the bot's author.")
        return 0

    return _call(args, work)


def cmd_bot_rotate(args: argparse.Namespace) -> int:
    def work(stub: Any, metadata: tuple[tuple[str, str], ...]) -> int:
        reply = stub.RotateToken(
            arena_pb2.RotateTokenRequest(name=args.name), metadata=metadata, timeout=TIMEOUT_S
        )
        print(f"new token for bot {reply.bot.name}: {reply.token}")
        print("The old token is refused from now on; the new one is shown this once.")
        return 0

    return _call(args, work)


def cmd_bot_revoke(args: argparse.Namespace) -> int:
    def work(stub: Any, metadata: tuple[tuple[str, str], ...]) -> int:
        reply = stub.RevokeBot(
            arena_pb2.RevokeBotRequest(name=args.name), metadata=metadata, timeout=TIMEOUT_S
        )
        print(
            f"revoked bot {reply.bot.name} at {_when(reply.bot.revoked_at_ms)} UTC; its games and history "
            "stay"
        )
        return 0

    return _call(args, work)


def cmd_bot_list(args: argparse.Namespace) -> int:
    def work(stub: Any, _: tuple[tuple[str, str], ...]) -> int:
        bots = stub.ListBots(arena_pb2.ListBotsRequest(), timeout=TIMEOUT_S).bots
        rows = [
            (
                b.name,
                b.id,
                _when(b.created_at_ms),
                _when(b.rotated_at_ms),
                "revoked" if b.revoked_at_ms else "active",
            )
            for b in bots
        ]
        headers = ("bot", "id", "registered (UTC)", "token rotated", "status")
        print(table(headers, rows, empty="no bots registered yet: `conquest bot register NAME` adds one"))
        return 0

    return _call(args, work)


def cmd_leaderboard(args: argparse.Namespace) -> int:
    def work(stub: Any, _: tuple[tuple[str, str], ...]) -> int:
        request = arena_pb2.GetLeaderboardRequest(queue=args.queue, limit=args.limit)
        board = stub.GetLeaderboard(request, timeout=TIMEOUT_S)
        rows = [
            (
                s.rank,
                s.bot,
                f"{s.mu:.2f}",
                f"{s.sigma:.2f}",
                f"{s.score:.2f}",
                s.games,
                s.wins,
                f"{s.average_place:.2f}",
                s.timeouts,
                s.forfeits,
            )
            for s in board.standings
        ]
        headers = (
            "rank",
            "bot",
            "mu",
            "sigma",
            "mu-3sigma",
            "games",
            "wins",
            "avg place",
            "timeouts",
            "forfeits",
        )
        print(f"leaderboard {board.queue} (ordered by mu - 3 sigma)")
        print(table(headers, rows, empty=f"no rated game has finished in {board.queue} yet"))
        return 0

    return _call(args, work)


def _ranking(game: arena_pb2.GameSummary) -> str:
    def outcome(seat: arena_pb2.GameSeat) -> str:
        name = bot_pb2.SeatOutcome.Name(seat.outcome).removeprefix("SEAT_OUTCOME_").lower()
        return "" if name in ("won", "eliminated", "turn_cap") else f" ({name})"

    return ", ".join(f"{s.place}. {s.name}{outcome(s)}" for s in sorted(game.seats, key=lambda s: s.place))


def cmd_games(args: argparse.Namespace) -> int:
    def work(stub: Any, _: tuple[tuple[str, str], ...]) -> int:
        request = arena_pb2.ListGamesRequest(queue=args.queue or "", bot=args.bot or "", limit=args.limit)
        games = stub.ListGames(request, timeout=TIMEOUT_S).games
        rows = [
            (
                g.game_id,
                g.queue,
                _when(g.finished_at_ms),
                g.turns,
                g.reason,
                "yes" if g.rated else "no",
                g.dice_version,
                _ranking(g),
            )
            for g in games
        ]
        headers = ("game", "queue", "finished (UTC)", "turns", "reason", "rated", "dice", "places")
        print(table(headers, rows, empty="no finished games match"))
        return 0

    return _call(args, work)


def cmd_replay_download(args: argparse.Namespace) -> int:
    def work(stub: Any, _: tuple[tuple[str, str], ...]) -> int:
        reply = stub.GetReplay(arena_pb2.GetReplayRequest(game_id=args.game_id), timeout=TIMEOUT_S)
        args.output.write_text(reply.replay_json)
        print(f"wrote the replay of game {reply.game_id} to {args.output} (check it: conquest replay verify)")
        return 0

    return _call(args, work)


def cmd_challenge(args: argparse.Namespace) -> int:
    def work(stub: Any, metadata: tuple[tuple[str, str], ...]) -> int:
        request = arena_pb2.CreateChallengeRequest(
            bots=args.bots, queue=args.queue or "", rules=args.rules or "", games=args.games
        )
        reply = stub.CreateChallenge(request, metadata=metadata, timeout=TIMEOUT_S)
        print(
            f"challenge {reply.challenge_id}: {reply.games} unrated game(s) of {' vs '.join(args.bots)} "
            f"(queue {reply.queue}); they start as the bots have free slots (conquest games --queue "
            f"{reply.queue})"
        )
        return 0

    return _call(args, work)


FORMATS = {
    "round_robin": arena_pb2.TOURNAMENT_FORMAT_ROUND_ROBIN,
    "swiss": arena_pb2.TOURNAMENT_FORMAT_SWISS,
    "single_elimination": arena_pb2.TOURNAMENT_FORMAT_SINGLE_ELIMINATION,
}


def _format_name(value: arena_pb2.TournamentFormat.ValueType) -> str:
    return arena_pb2.TournamentFormat.Name(value).removeprefix("TOURNAMENT_FORMAT_").lower()


def _show_tournament(t: arena_pb2.Tournament) -> None:
    state = f"finished {_when(t.finished_at_ms)} UTC" if t.finished_at_ms else f"round {t.current_round}"
    rounds = f", {t.planned_rounds} rounds" if t.planned_rounds else ""
    print(
        f"tournament {t.name}: {_format_name(t.format)}, {t.table_size}-player tables{rounds}, "
        f"rules {t.rules}"
    )
    print(f"{t.entrants} entrants, {state}; games in queue {t.queue}")
    print()
    rows = [
        (
            s.rank,
            s.bot,
            s.seed,
            f"{s.score:.2f}",
            s.games,
            s.byes,
            f"{s.buchholz:.2f}",
            f"{s.head_to_head:.2f}",
            f"{s.rating:.2f}",
            s.eliminated_in or "-",
        )
        for s in t.standings
    ]
    headers = ("rank", "bot", "seed", "score", "games", "byes", "buchholz", "h2h", "rating", "out in round")
    print(table(headers, rows))
    for round_ in t.rounds:
        print()
        print(f"round {round_.round}")
        lines = []
        for tab in round_.tables:
            if len(tab.bots) == 1:
                result = "bye"
            elif tab.places:
                result = ", ".join(f"{p}. {b}" for p, b in sorted(zip(tab.places, tab.bots, strict=True)))
            else:
                result = "to play"
            lines.append((tab.number, " vs ".join(tab.bots), tab.game_id or "-", result))
        print(table(("table", "seats", "game", "places"), lines))


def cmd_tournament_create(args: argparse.Namespace) -> int:
    def work(stub: Any, metadata: tuple[tuple[str, str], ...]) -> int:
        request = arena_pb2.CreateTournamentRequest(
            name=args.name,
            format=FORMATS[args.format],
            bots=args.bots,
            queue=args.queue or "",
            rules=args.rules or "",
            table_size=args.table_size,
            rounds=args.rounds,
        )
        _show_tournament(stub.CreateTournament(request, metadata=metadata, timeout=TIMEOUT_S).tournament)
        return 0

    return _call(args, work)


def cmd_tournament_show(args: argparse.Namespace) -> int:
    def work(stub: Any, _: tuple[tuple[str, str], ...]) -> int:
        request = arena_pb2.GetTournamentRequest(name=args.name)
        _show_tournament(stub.GetTournament(request, timeout=TIMEOUT_S).tournament)
        return 0

    return _call(args, work)


def cmd_tournament_list(args: argparse.Namespace) -> int:
    def work(stub: Any, _: tuple[tuple[str, str], ...]) -> int:
        listed = stub.ListTournaments(arena_pb2.ListTournamentsRequest(), timeout=TIMEOUT_S).tournaments
        rows = [
            (
                t.name,
                _format_name(t.format),
                t.entrants,
                t.table_size,
                t.current_round,
                f"finished {_when(t.finished_at_ms)}" if t.finished_at_ms else "running",
            )
            for t in listed
        ]
        headers = ("tournament", "format", "entrants", "table size", "round", "status")
        print(table(headers, rows, empty="no tournaments yet: `conquest tournament create` starts one"))
        return 0

    return _call(args, work)


def _server_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--server", default=DEFAULT_SERVER, help=f"the server's host:port (default {DEFAULT_SERVER})"
    )


def add_commands(
    commands: argparse._SubParsersAction[argparse.ArgumentParser],
    replay_commands: argparse._SubParsersAction[argparse.ArgumentParser],
) -> None:
    """Register ``bot``, ``leaderboard``, ``games``, ``challenge``, ``tournament`` and ``replay download`` on
    the ``conquest`` parser."""
    bot = commands.add_parser("bot", help="register, rotate, revoke or list bots (Arena API)")
    bot_commands = bot.add_subparsers(dest="bot_command", required=True)
    admin_help = "the server's admin token (default: $CONQUEST_ADMIN_TOKEN)"
    for name, run, summary in (
        ("register", cmd_bot_register, "register a bot and print its token (shown once)"),
        ("rotate", cmd_bot_rotate, "give a bot a new token (shown once); the old one stops working"),
        ("revoke", cmd_bot_revoke, "revoke a bot: its token stops working; its games stay"),
    ):
        sub = bot_commands.add_parser(name, help=summary)
        sub.add_argument("name", help="the bot's name")
        _server_flag(sub)
        sub.add_argument("--admin-token", default=os.environ.get("CONQUEST_ADMIN_TOKEN", ""), help=admin_help)
        sub.set_defaults(run=run, command=f"bot {name}")
    listing = bot_commands.add_parser("list", help="list the registered bots")
    _server_flag(listing)
    listing.set_defaults(run=cmd_bot_list, command="bot list")

    leaderboard = commands.add_parser("leaderboard", help="a queue's leaderboard (Arena API)")
    leaderboard.add_argument("queue", help="queue name, e.g. classic-4")
    leaderboard.add_argument("--limit", type=whole_number(0), default=0, help="most rows (default all)")
    _server_flag(leaderboard)
    leaderboard.set_defaults(run=cmd_leaderboard)

    games = commands.add_parser("games", help="finished games, latest first (Arena API)")
    games.add_argument("--queue", help="only games of this queue")
    games.add_argument("--bot", help="only games this bot played in")
    games.add_argument(
        "--limit", type=whole_number(1, MAX_GAMES), default=20, help="most games (default 20, at most 1000)"
    )
    _server_flag(games)
    games.set_defaults(run=cmd_games)

    challenge = commands.add_parser("challenge", help="unrated games between named bots (Arena API)")
    challenge.add_argument("bots", nargs="+", metavar="BOT", help="registered bot names, in seat order")
    where = challenge.add_mutually_exclusive_group(required=True)
    where.add_argument("--queue", help="play a queue's rules and time control")
    where.add_argument("--rules", help="play a rules preset, e.g. classic")
    challenge.add_argument("--games", type=whole_number(1), default=1, help="games to play (default 1)")
    _server_flag(challenge)
    challenge.add_argument(
        "--admin-token",
        default=os.environ.get("CONQUEST_ADMIN_TOKEN", ""),
        help="the admin token or one of the bots' tokens (default: $CONQUEST_ADMIN_TOKEN)",
    )
    challenge.set_defaults(run=cmd_challenge)

    tournament = commands.add_parser("tournament", help="create, show or list tournaments (Arena API)")
    tournament_commands = tournament.add_subparsers(dest="tournament_command", required=True)
    create = tournament_commands.add_parser("create", help="start a tournament (admin)")
    create.add_argument("name")
    create.add_argument("--format", choices=sorted(FORMATS), required=True)
    create.add_argument("--bots", nargs="+", required=True, metavar="BOT", help="registered bot names")
    where = create.add_mutually_exclusive_group(required=True)
    where.add_argument("--queue", help="play a queue's rules, player count and time control")
    where.add_argument("--rules", help="play a rules preset, e.g. classic")
    create.add_argument(
        "--table-size", type=whole_number(0), default=0, help="seats per table (default: the queue's)"
    )
    create.add_argument(
        "--rounds",
        type=whole_number(0, MAX_SWISS_ROUNDS),
        default=0,
        help="Swiss rounds (default ceil(log2 entrants), at most 100)",
    )
    _server_flag(create)
    create.add_argument("--admin-token", default=os.environ.get("CONQUEST_ADMIN_TOKEN", ""), help=admin_help)
    create.set_defaults(run=cmd_tournament_create, command="tournament create")
    show = tournament_commands.add_parser("show", help="a tournament's standings and rounds")
    show.add_argument("name")
    _server_flag(show)
    show.set_defaults(run=cmd_tournament_show, command="tournament show")
    listing = tournament_commands.add_parser("list", help="every tournament, latest first")
    _server_flag(listing)
    listing.set_defaults(run=cmd_tournament_list, command="tournament list")

    download = replay_commands.add_parser("download", help="download a finished game's replay (Arena API)")
    download.add_argument("game_id", metavar="GAME_ID")
    download.add_argument(
        "-o", "--output", type=Path, required=True, metavar="FILE", help="where to write it"
    )
    _server_flag(download)
    download.set_defaults(run=cmd_replay_download, command="replay download")
