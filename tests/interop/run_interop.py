"""Interop: the starter kits play real games against the Python sample bots on a real server.

`make interop` builds the kits and runs this script. It starts `conquest serve` on a free loopback port
(JSON logs, replays in a temporary directory), then the Python sample bots and each kit's bot as
subprocesses, and waits for the kits to play their games. One kit process is connected through a proxy
that drops its connection in the middle of a game, so reconnecting and resuming the seat is exercised.

Fails (exit status 1) unless, for every kit (issue 7): each of its games finished (conquest, turn cap,
or a headquarters or mission win) and holds Python bots, none of its decisions was rejected or timed out,
no seat of it forfeited, the dropped bot took its seat back, and each kit process played exactly the
games it was asked for (none started beyond them and abandoned) and exited cleanly. Each kit also plays
one game of Capital Risk and one of the Allied Army game (issue 5), and must have made that rule set's
own decisions in it (the replay is re-simulated to see them), and one RISK 2210 A.D. game at each player
count, 2 to 5, against Python bots (issue 19), held to the same checks. Then each kit's replay verifier
must agree with `conquest replay verify` on a game of every rule set (2210 too), one kit game of each rules
played, and tampered copies (issue 23; dice_check.py).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import shutil
import signal
import socket
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from engine.actions import Phase
from engine.replay import Replay

# tests/support, the helpers shared by the tests (pytest has it on its pythonpath; a script must add it).
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))
from dice_check import VERIFIERS, check_dice, one_per_rules
from dropping_proxy import DroppingProxy

ROOT = Path(__file__).resolve().parents[2]
PYTHON = ROOT / ".venv" / "bin" / "python"
KITS = {
    "go": [str(ROOT / "sample_bots" / "go" / "bin" / "conquestbot")],
    "ts": ["node", str(ROOT / "sample_bots" / "typescript" / "dist" / "src" / "main.js")],
    "java": ["java", "-jar", str(ROOT / "sample_bots" / "java" / "target" / "conquest-bot.jar")],
    "rust": [str(ROOT / "sample_bots" / "rust" / "target" / "debug" / "conquest-bot")],
}
FINISHED = {"conquest", "turn_cap", "headquarters", "mission", "year_5"}
BAD_EVENTS = {"decision_rejected", "decision_timeout", "seat_forfeited"}
# Generous clocks: this checks correctness on a busy 2-core machine, not speed. Defenders choose their
# dice so PHASE_DEFEND is exercised; the melee's connected free moves and turn cap bound the game.
# Each kit has its own queues, so every game it plays has Python bots in its other seats, and no kit
# waits on another (a shared melee could fill with kits alone, or starve once the other kits are done).
KIT_QUEUES = """
[queues.duel-{kit}]
rules = "classic_two_player"
players = 2
rules_options = {{ defender_dice = "choose" }}

[queues.melee-{kit}]
rules = "classic"
players = 4
rules_options = {{ defender_dice = "choose", fortify = "connected", turn_cap = 200 }}

[queues.capital-{kit}]
rules = "capital"
players = 3
rules_options = {{ defender_dice = "choose", fortify = "connected", turn_cap = 150 }}

[queues.allied-{kit}]
rules = "allied_two_player"
players = 2
rules_options = {{ defender_dice = "choose", turn_cap = 150 }}
"""
# RISK 2210 A.D. (issue 19) for every kit at every player count, 2 to 5 (the other seats Python bots):
# losses are chosen, so PHASE2210_LOSSES is asked too.
KIT_QUEUE_2210 = """
[queues.r2210x{players}-{kit}]
rules = "2210"
players = {players}
rules_options = {{ choose_losses = true }}
"""
PLAYERS_2210 = (2, 3, 4, 5)
# The decision each issue 5 rule set adds, which a kit's game of it must contain.
OWN_DECISION = {"capital": Phase.CHOOSE_HEADQUARTERS, "allied": Phase.ALLIED_REINFORCE}
CONFIG = """
[server]
address = "127.0.0.1:{port}"
replay_dir = "{replays}"
shutdown_grace_ms = 2000
metrics_port = 0             # no fixed port: runs and tests alongside must not collide
dashboard_port = 0

[time_control]
decision_ms = 5000
first_decision_ms = 10000
initial_timebank_ms = 30000
"""


@dataclass
class KitRun:
    """One kit bot process: which kit, its name on the server, its queue and how many games."""

    kit: str
    name: str
    queue: str
    games: int
    dropped: bool = False


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


async def spawn(args: list[str], log: Path) -> asyncio.subprocess.Process:
    out = log.open("wb")
    return await asyncio.create_subprocess_exec(*args, stdout=out, stderr=asyncio.subprocess.STDOUT, cwd=ROOT)


async def stop(process: asyncio.subprocess.Process, timeout: float = 10.0) -> None:
    if process.returncode is None:
        process.send_signal(signal.SIGTERM)
        try:
            await asyncio.wait_for(process.wait(), timeout)
        except TimeoutError:
            process.kill()
            await process.wait()


async def drop_once_in_game(proxy: DroppingProxy, log: Path) -> None:
    """Cut the proxied bot's connection right after its first game starts (games last a second or more)."""
    while "started" not in log.read_text(errors="replace"):
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.05)
    proxy.drop()


async def play(runs: list[KitRun], work: Path, timeout: float) -> list[str]:
    """Run the server, the Python bots and the kit bots; return the problems found."""
    port = free_port()
    replays = work / "replays"
    config = work / "interop.toml"
    kit_queues = "".join(
        KIT_QUEUES.format(kit=kit) + "".join(KIT_QUEUE_2210.format(kit=kit, players=n) for n in PLAYERS_2210)
        for kit in sorted({r.kit for r in runs})
    )
    config.write_text(CONFIG.format(port=port, replays=replays) + kit_queues)
    server_log = work / "server.log"
    server = await spawn(
        [str(PYTHON), "-m", "server.cli.main", "serve", "--config", str(config), "--log-format", "json"],
        server_log,
    )
    python_bots: list[asyncio.subprocess.Process] = []
    kits: list[tuple[KitRun, asyncio.subprocess.Process, Path]] = []
    proxies: list[DroppingProxy] = []
    problems: list[str] = []
    try:
        deadline = time.monotonic() + 60
        while '"serving"' not in server_log.read_text(errors="replace"):
            if server.returncode is not None or time.monotonic() > deadline:
                return [f"the server did not start; see {server_log}"]
            await asyncio.sleep(0.1)
        address = f"127.0.0.1:{port}"

        def queues(*kinds: str) -> list[str]:
            return sorted({r.queue for r in runs if r.queue.split("-")[0] in kinds})

        # Capacity for every game the kits can ask for at once (two per kit process). A 2210 game of n
        # seats takes the kit and n - 1 of these Python bots (each bot sits once in a game).
        capacity = f"--capacity={min(64, 2 * len(runs))}"
        for bot, name, joined in (
            (
                "aggressive",
                "aggressive",
                queues("duel", "allied", "melee", "capital", "r2210x3", "r2210x4", "r2210x5"),
            ),
            ("strategist", "strategist", queues("melee", "capital", "r2210x4", "r2210x5")),
            ("random_bot", "random_bot", queues("melee", "r2210x2", "r2210x3", "r2210x4", "r2210x5")),
            ("random_bot", "random_bot-2", queues("r2210x5")),
        ):
            flags = [f"--queue={q}" for q in joined]
            args = [str(PYTHON), "-m", f"conquest_bots.{bot}", f"--address={address}", f"--name=py-{name}"]
            python_bots.append(await spawn([*args, *flags, capacity], work / f"py-{name}.log"))
        droppers = []
        for run in runs:
            target = address
            if run.dropped:
                proxies.append(proxy := DroppingProxy(port))
                target = f"127.0.0.1:{await proxy.start()}"
            flags = ["--server", target, "--name", run.name, "--queue", run.queue, "--games", str(run.games)]
            log = work / f"{run.name}.log"
            kits.append((run, await spawn([*KITS[run.kit], *flags, "--capacity", "2"], log), log))
            if run.dropped:
                droppers.append(asyncio.create_task(drop_once_in_game(proxy, log)))
        finished = await asyncio.wait_for(
            asyncio.gather(*(p.wait() for _, p, _ in kits), return_exceptions=True), timeout
        )
        for (run, _, log), code in zip(kits, finished, strict=True):
            if code != 0:
                problems.append(f"{run.name} exited with {code}; see {log}")
        for dropper in droppers:
            if not dropper.done():
                dropper.cancel()
                problems.append("a proxied bot's connection was never dropped (no game started)")
    except TimeoutError:
        problems.append(f"the kits did not finish their games within {timeout:.0f} s; logs in {work}")
    finally:
        for _, process, _ in kits:
            await stop(process)
        for process in python_bots:
            await stop(process)
        await stop(server, 30.0)
        for proxy in proxies:
            proxy.close()
    return problems + check_results(runs, replays, server_log)


def phases_decided(record: dict, seat: int) -> set[Phase]:
    """The phases in which `seat` acted in a recorded game, by re-simulating its replay."""
    replay = Replay.from_dict(record)
    state, _ = replay.start()
    phases = set()
    for action in replay.actions:
        if state.to_act == seat:
            phases.add(state.phase)
        state.apply_unchecked(action)
    return phases


def check_results(runs: list[KitRun], replays: Path, server_log: Path) -> list[str]:
    """What the server recorded: replays (seats, reason, outcomes) and its JSON log lines."""
    problems: list[str] = []
    events = []
    for line in server_log.read_text(errors="replace").splitlines():
        with contextlib.suppress(json.JSONDecodeError):
            events.append(json.loads(line))
    records = [json.loads(path.read_text()) for path in sorted(replays.glob("*.json"))]
    print(f"{'bot':<16} {'queue':<12} {'games':>5} {'won':>4}  places")
    for run in runs:
        games = [r for r in records if run.name in r["seats"]]
        places = [r["places"][r["seats"].index(run.name)] for r in games]
        print(f"{run.name:<16} {run.queue:<12} {len(games):>5} {places.count(1):>4}  {places}")
        if len(games) < run.games:
            problems.append(f"{run.name}: {len(games)} games recorded, expected {run.games}")
        # A game started beyond --games is abandoned (it may never be recorded): count the starts.
        starts = sum(1 for e in events if e.get("event") == "game_started" and run.name in e["players"])
        if starts != run.games:
            problems.append(f"{run.name}: {starts} games started, asked for {run.games}")
        for record in games:
            seat = record["seats"].index(run.name)
            if record["reason"] not in FINISHED:
                problems.append(f"{run.name}: game {record['game_id']} ended by {record['reason']}")
            if "FORFEIT" in record["outcomes"][seat]:
                problems.append(f"{run.name}: game {record['game_id']}: {record['outcomes'][seat]}")
            wanted = OWN_DECISION.get(run.queue.split("-")[0])
            if wanted is not None and wanted not in phases_decided(record, seat):
                problems.append(f"{run.name}: game {record['game_id']} had no {wanted.name} decision of it")
            if not any(name.startswith("py-") for name in record["seats"]):
                problems.append(f"{run.name}: game {record['game_id']} had no Python bot: {record['seats']}")
        for event in events:
            if event.get("bot") == run.name and event.get("event") in BAD_EVENTS:
                problems.append(f"{run.name}: {event['event']}: {event.get('reason', '')}")
        if run.dropped and not any(
            e.get("event") == "seat_resumed" and e.get("bot") == run.name for e in events
        ):
            problems.append(f"{run.name}: its connection was dropped in a game but it never resumed its seat")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3, help="games per kit and queue (default %(default)s)")
    parser.add_argument(
        "--rule-set-games",
        type=int,
        default=1,
        help="games per kit of Capital Risk and of the Allied Army game (default %(default)s)",
    )
    parser.add_argument(
        "--timeout", type=float, default=420, help="seconds for all games (default %(default)s)"
    )
    parser.add_argument("--keep", action="store_true", help="keep the logs and replays (kept on failure)")
    parser.add_argument("--kits", default=",".join(KITS), help="kits to play (default %(default)s)")
    args = parser.parse_args()
    runs = []
    for kit in args.kits.split(","):
        runs.append(KitRun(kit, f"{kit}-kit-duel", f"duel-{kit}", args.games, dropped=kit == "go"))
        runs.append(KitRun(kit, f"{kit}-kit-melee", f"melee-{kit}", args.games, dropped=kit != "go"))
        for rule_set in OWN_DECISION:
            runs.append(KitRun(kit, f"{kit}-kit-{rule_set}", f"{rule_set}-{kit}", args.rule_set_games))
        for players in PLAYERS_2210:
            runs.append(
                KitRun(kit, f"{kit}-kit-2210x{players}", f"r2210x{players}-{kit}", args.rule_set_games)
            )
    started = time.monotonic()
    work = Path(tempfile.mkdtemp(prefix="conquest-interop-"))
    problems = asyncio.run(play(runs, work, args.timeout))
    print(f"interop: {len(runs)} kit bots played in {time.monotonic() - started:.1f} s")
    started = time.monotonic()
    kits = [kit for kit in args.kits.split(",") if kit in VERIFIERS]
    kit_replays = one_per_rules(sorted((work / "replays").glob("*.json")))
    problems += asyncio.run(check_dice(kit_replays, work / "dice", kits))
    print(f"interop: replays' dice checked in {time.monotonic() - started:.1f} s")
    if problems or args.keep:
        print(f"interop: logs and replays kept in {work}")
    else:
        shutil.rmtree(work)
    for problem in problems:
        print(f"FAIL {problem}")
    print("interop: OK" if not problems else f"interop: {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
