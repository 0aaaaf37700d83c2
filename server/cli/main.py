"""The ``conquest`` command: one function per subcommand (``cmd_<name>``), registered in ``build_parser``;
the Arena API commands (bot, leaderboard, games, challenge, tournament, replay download) are in
``server/cli/arena.py``. Every subcommand, as in docs/cli.md (tests/cli/test_cli_docs.py keeps both in step):

conquest serve [--config FILE] [--address HOST:PORT] [--replay-dir DIR] [--log-format console|json]
        [--no-practice]
conquest health [--address HOST:PORT] [--timeout SECONDS]
conquest practice [--address HOST:PORT] [--queue NAME ...] [--opponent aggressive|random] [--games N]
        [--turn-cap T] [--replay-dir DIR]
conquest match BOT BOT ... [--games N] [--queue-rules PRESET] [--parallel K] [--turn-cap T]
        [--replay-dir DIR] [--connect-timeout SECONDS]
conquest demo [--address HOST:PORT] [--database-url URL] [--games N] [--replay-dir DIR]
        [--dashboard-port PORT]
conquest replay show FILE
conquest replay verify FILE [FILE ...]
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
import dataclasses
import logging
import os
import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sqlalchemy.exc import SQLAlchemyError

from engine.codec import encode_action
from engine.events import GameEnded, TurnStarted
from engine.replay import ReplayError, simulate
from server.cli.arena import add_arena_commands
from server.ops import runtime
from server.ops.config import LOG_FORMATS, ConfigError, ServerConfig, load_config
from server.play.replays import load_replay_file, verify_record
from server.play.seats import HOUSE_POLICIES


def cmd_serve(args: argparse.Namespace) -> int:
    from server.app import open_store, serve
    from server.ops.logs import configure_logging

    try:  # precedence: defaults < config file < CONQUEST_* environment variables < flags
        config = load_config(args.config, os.environ)
    except ConfigError as bad:
        print(f"conquest serve: {bad}", file=sys.stderr)
        return 2
    overrides: dict[str, Any] = {}
    if args.address:
        overrides["address"] = args.address
    if args.replay_dir:
        overrides["replay_dir"] = args.replay_dir
    if args.log_format:
        overrides["log_format"] = args.log_format
    if args.no_practice:
        overrides["practice"] = False
    config = dataclasses.replace(config, **overrides)
    configure_logging(config.log_format)
    try:
        store = open_store(config)
    except ConfigError as bad:
        print(f"conquest serve: {bad}", file=sys.stderr)
        return 2
    try:
        runtime.run(serve(config, store))
    finally:
        if store is not None:
            store.close()
    return 0


def cmd_health(args: argparse.Namespace) -> int:
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    with grpc.insecure_channel(args.address) as channel:
        stub: Any = health_pb2_grpc.HealthStub(channel)  # its type stub lists no methods
        try:
            reply = stub.Check(health_pb2.HealthCheckRequest(service=""), timeout=args.timeout)
        except grpc.RpcError as bad:
            why = f"{bad.code().name}: {bad.details()}" if isinstance(bad, grpc.Call) else str(bad)
            print(f"conquest health: {args.address}: {why}", file=sys.stderr)
            return 1
    print(health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status))
    return 0 if reply.status == health_pb2.HealthCheckResponse.SERVING else 1


def cmd_practice(args: argparse.Namespace) -> int:
    from server.cli.practice import practice, practice_queues
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


def cmd_demo(args: argparse.Namespace) -> int:
    from server.cli.demo import LADDER_QUEUE, ladder
    from server.cli.match import MatchError
    from server.ops.logs import configure_logging

    configure_logging("console", logging.WARNING)  # results and the leaderboard are the output
    try:
        demo = ladder(args.database_url, args.address, args.games, args.replay_dir, args.dashboard_port)
    except SQLAlchemyError as bad:
        print(f"conquest demo: cannot open the database {args.database_url}: {bad}", file=sys.stderr)
        return 2
    print(
        f"Conquest: a rated ladder of {', '.join(e.name for e in demo.entrants)} in queue {LADDER_QUEUE}, "
        f"serving on {args.address} with the database {args.database_url}. Ctrl-C stops it; "
        f"ratings persist (conquest leaderboard {LADDER_QUEUE} while a server runs)."
        + (f"\nDashboard: http://localhost:{args.dashboard_port}/" if args.dashboard_port else ""),
        flush=True,
    )
    try:
        runtime.run(demo.run())
    except MatchError as bad:
        print(f"conquest demo: {bad}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("\nstopped", file=sys.stderr)
    finally:
        if demo.store is not None:
            demo.store.close()
    return 0


def cmd_match(args: argparse.Namespace) -> int:
    from server.cli.match import Match, MatchError, match_rules, parse_entrants
    from server.ops.logs import configure_logging

    try:
        entrants = parse_entrants(args.bots)
        rules = match_rules(len(entrants), args.queue_rules, args.turn_cap)
    except MatchError as bad:
        print(f"conquest match: {bad}", file=sys.stderr)
        return 2
    replay_dir = args.replay_dir or Path("replays") / time.strftime("match-%Y%m%d-%H%M%S")
    match = Match(
        entrants, rules, args.games, replay_dir, args.parallel, connect_timeout_s=args.connect_timeout
    )
    configure_logging("console", logging.WARNING)  # the table is the output; server notes stay quiet
    failure = ""
    try:
        runtime.run(match.run())
    except MatchError as bad:
        failure = str(bad)
    except KeyboardInterrupt:
        failure = "interrupted"
    if match.finished or not failure:
        print(match.table())
    if failure:
        print(f"conquest match: {failure}", file=sys.stderr)
        return 1
    return 0


def cmd_replay_verify(args: argparse.Namespace) -> int:
    failed = 0
    for path in args.files:
        try:
            replay, data = load_replay_file(path)
            state = verify_record(replay, data)
        except ReplayError as bad:
            print(f"FAIL {path}: {bad}")
            failed += 1
            continue
        checked = "seed commitment, " if data.get("seed_commitment") else ""
        print(
            f"OK   {path}: {len(replay.actions)} actions re-simulated; {checked}places {list(state.places)} "
            "and final state match"
        )
    return 1 if failed else 0


def cmd_replay_show(args: argparse.Namespace) -> int:
    try:
        replay, data = load_replay_file(args.file)
        state, events = simulate(replay)
    except ReplayError as bad:
        print(f"conquest replay show: {bad}", file=sys.stderr)
        return 1
    print(f"game {replay.game_id or '(no id)'}  queue {data.get('queue', '?')}  rules {replay.rules.name}")
    print(f"seed {replay.seed}  commitment {data.get('seed_commitment', '(not recorded)')}")
    outcomes = data.get("outcomes") or [""] * len(replay.seats)
    print(f"result: {data.get('reason') or state.end_reason or 'unfinished'} after {state.turn} turns")
    for seat in sorted(range(len(replay.seats)), key=lambda s: state.places[s] if state.places else s):
        place = state.places[seat] if state.places else "-"
        outcome = str(outcomes[seat]).removeprefix("SEAT_OUTCOME_").lower()
        print(f"  {place}. seat {seat} {replay.seats[seat]:<20} {outcome}")
    print("turns:")
    for line in turn_digest(events, replay.seats):
        print(f"  {line}")
    if replay.annotations:
        print("annotations:")
        for index, note in sorted(replay.annotations.items()):
            print(f"  action {index} {encode_action(replay.actions[index])}: {note}")
    return 0


def cmd_replay_render(args: argparse.Namespace) -> int:
    from server.web.replay_view import standalone_page, viewer_data

    try:
        _, data = load_replay_file(args.file)
        page = standalone_page(viewer_data(data))
    except ReplayError as bad:
        print(f"conquest replay render: {bad}", file=sys.stderr)
        return 1
    output = args.output or args.file.with_suffix(".html")
    output.write_text(page)
    print(f"wrote {output}: open it in a browser (no server needed)")
    return 0


def turn_digest(events: Sequence[object], seats: Sequence[str]) -> list[str]:
    """One line per turn: who played and how many attacks rolls, captures and trades it made."""
    lines: list[str] = []
    counts: Counter[str] = Counter()
    current: TurnStarted | None = None

    def flush() -> None:
        if current is not None:
            summary = ", ".join(f"{n} {kind}" for kind, n in sorted(counts.items())) or "no action"
            lines.append(f"turn {current.turn:>3} {seats[current.seat]}: {summary}")

    for event in events:
        if isinstance(event, TurnStarted):
            flush()
            current, counts = event, Counter()
        elif isinstance(event, GameEnded):
            flush()
            current = None
            lines.append(f"game ended ({event.reason}), places {list(event.places)}")
        elif current is not None:
            counts[type(event).__name__.lower()] += 1
    flush()
    return lines


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="conquest", description="Conquest game server and tools")
    commands = parser.add_subparsers(dest="command", required=True)

    serve = commands.add_parser("serve", help="run the game server")
    serve.add_argument(
        "--config",
        type=Path,
        help="TOML config file (keys and CONQUEST_* environment overrides: docs/configuration.md)",
    )
    serve.add_argument("--address", help="host:port to listen on (default [::]:50051)")
    serve.add_argument("--replay-dir", type=Path, help="directory for replay files (default ./replays)")
    serve.add_argument("--log-format", choices=LOG_FORMATS, help="log output (default console)")
    serve.add_argument("--no-practice", action="store_true", help="refuse bots without a token")
    serve.set_defaults(run=cmd_serve)

    health = commands.add_parser(
        "health", help="ask a server's gRPC health service; exit 0 only if it is SERVING"
    )
    health.add_argument("--address", default="localhost:50051", help="host:port (default localhost:50051)")
    health.add_argument("--timeout", type=float, default=3.0, help="seconds to wait (default 3)")
    health.set_defaults(run=cmd_health)

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
    practice.add_argument("--games", type=int, default=0, help="stop after N games (default 0: Ctrl-C)")
    practice.add_argument("--turn-cap", type=int, help="end each game after this many turns")
    practice.add_argument("--replay-dir", type=Path, default=Path("replays"), help="(default %(default)s)")
    practice.set_defaults(run=cmd_practice)

    demo = commands.add_parser(
        "demo", help="a persistent rated ladder of the sample bots, printing the leaderboard (docs/cli.md)"
    )
    demo.add_argument("--address", default="[::]:50051", help="host:port to listen on (default %(default)s)")
    demo.add_argument(
        "--database-url", default=ServerConfig().database_url, help="ladder database (default %(default)s)"
    )
    demo.add_argument("--games", type=int, default=1_000_000, help="stop after N games (default: Ctrl-C)")
    demo.add_argument("--replay-dir", type=Path, default=Path("replays"), help="(default %(default)s)")
    demo.add_argument(
        "--dashboard-port",
        type=int,
        default=ServerConfig().dashboard_port,
        help="web dashboard HTTP port, 0 for none (default %(default)s)",
    )
    demo.set_defaults(run=cmd_demo)

    match = commands.add_parser("match", help="play bots against each other locally (docs/cli.md)")
    match.add_argument(
        "bots",
        nargs="+",
        metavar="BOT",
        help="random, aggressive, strategist, house:<policy>, or a shell command containing {address}",
    )
    match.add_argument("--games", type=_positive, default=10, help="games to play (default %(default)s)")
    match.add_argument(
        "--queue-rules", help="rules preset (default: classic_two_player for 2 bots, else classic)"
    )
    match.add_argument("--parallel", type=_positive, default=1, help="games at once (default 1)")
    match.add_argument("--turn-cap", type=int, help="end each game after this many turns")
    match.add_argument("--replay-dir", type=Path, help="(default replays/match-<date>-<time>)")
    match.add_argument(
        "--connect-timeout", type=float, default=30.0, help="seconds for the bots to join (default 30)"
    )
    match.set_defaults(run=cmd_match)

    replay = commands.add_parser("replay", help="inspect or verify replay files")
    replay_commands = replay.add_subparsers(dest="replay_command", required=True)
    show = replay_commands.add_parser("show", help="print a replay's players, result and turns")
    show.add_argument("file", type=Path)
    show.set_defaults(run=cmd_replay_show)
    verify = replay_commands.add_parser(
        "verify", help="re-simulate replays and check their result and seed commitment"
    )
    verify.add_argument("files", type=Path, nargs="+", metavar="FILE")
    verify.set_defaults(run=cmd_replay_verify)
    render = replay_commands.add_parser(
        "render", help="write a replay as one self-contained HTML page (the dashboard's replay viewer)"
    )
    render.add_argument("file", type=Path)
    render.add_argument("-o", "--output", type=Path, help="the page to write (default FILE with .html)")
    render.set_defaults(run=cmd_replay_render)
    add_arena_commands(commands, replay_commands)
    return parser


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is not a whole number of at least 1")
    return value


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    code: int = args.run(args)
    return code


if __name__ == "__main__":
    sys.exit(main())
