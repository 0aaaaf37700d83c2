"""Issue 21's floods of web and Arena requests, measured: honest bots' missed deadlines of 250 ms and
their decisions/s with no flood, under an HTTP flood of the dashboard and under an Arena API flood.

The server is ``conquest serve`` in a process of its own, on a SQLite database in a temporary folder,
exactly as deployed (its dashboard included). This process plays ``--bots`` raw honest bots in pairs, one
duel queue per pair (so the pair cap never holds them back), each answering at once with a random legal
action; every decision has 250 ms and no timebank, so a decision the server is too busy to take in time
is a timeout, counted by the server (``conquest_decision_timeouts_total`` on its /metrics).

Each flood runs in a separate process on 127.0.0.1 for ``--seconds``, ``--clients`` connections at once:

- web: the heavy endpoints (the odds of 330 against 330 and of 10,000 against 10,000, a replay) and the
  cheap ones (queues, leaderboard, a thousand games, the page and a script) in turn;
- arena: ``ArenaService.ListGames{limit: 1000}`` and ``GetLeaderboard`` in turn.

It prints one table: per phase, decisions/s, missed deadlines, the server's RSS and the flood's answers.

    python -m benchmarks.web_flood [--seconds 15] [--bots 4] [--clients 8]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "support"))

import floods  # type: ignore[import-not-found]  # tests/support, on the path above
from raw_client import RawBot  # type: ignore[import-not-found]

DEADLINE_MS = 250


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _config(folder: Path, port: int, metrics: int, dashboard: int, pairs: int) -> Path:
    queues = "".join(
        f'[queues.duel-{i}]\nrules = "classic_two_player"\nplayers = 2\n'
        "rules_options = { turn_cap = 20 }\n\n"
        for i in range(pairs)
    )
    path = folder / "conquest.toml"
    path.write_text(
        "[server]\n"
        f'address = "127.0.0.1:{port}"\n'
        f'replay_dir = "{folder / "replays"}"\n'
        f'database_url = "sqlite:///{folder / "conquest.sqlite3"}"\n'
        f"metrics_port = {metrics}\n"
        f"dashboard_port = {dashboard}\n"
        'log_format = "json"\n\n'
        "[time_control]\n"
        f"decision_ms = {DEADLINE_MS}\nfirst_decision_ms = {DEADLINE_MS}\n"
        "initial_timebank_ms = 0\nincrement_ms = 0\nmax_timebank_ms = 0\nmax_strikes = 1000000\n\n" + queues
    )
    return path


def _timeouts(metrics_port: int) -> int:
    """The server's count of decisions that timed out."""
    with urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=10) as answer:
        text = answer.read().decode()
    return round(
        sum(
            float(line.rsplit(" ", 1)[1])
            for line in text.splitlines()
            if line.startswith("conquest_decision_timeouts_total")
        )
    )


def _rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


async def play(bot: RawBot, queue: str, decisions: list[int], stop: asyncio.Event) -> None:
    rng = random.Random(queue)
    await bot.join(queue, games=0)
    while not stop.is_set():
        message = await bot.next(timeout=60)
        bot.log.clear()  # every message is kept for tests; a benchmark keeps none
        if message.WhichOneof("message") == "decision_request":
            bot.answer_randomly(message.decision_request, rng)
            decisions.append(1)


async def _wait_up(dashboard: int, process: subprocess.Popen[bytes], log: Path) -> None:
    for _ in range(600):
        if process.poll() is not None:
            raise SystemExit(f"the server stopped: {log.read_text()[-2000:]}")
        try:
            if await floods.get(dashboard, "/api/queues") == 200:
                return
        except OSError:
            pass
        await asyncio.sleep(0.1)
    raise SystemExit("the server's dashboard did not answer in 60 s")


async def _finished_game(dashboard: int) -> str:
    """A recorded game's id (for the replay the web flood asks for)."""

    def fetch() -> str:
        with urllib.request.urlopen(f"http://127.0.0.1:{dashboard}/api/games?limit=1", timeout=10) as got:
            games = json.loads(got.read())["games"]
        return str(games[0]["game_id"]) if games else ""

    for _ in range(100):
        if game := await asyncio.to_thread(fetch):
            return game
        await asyncio.sleep(0.2)
    raise SystemExit("no game was recorded in 20 s")


async def measure(args: argparse.Namespace) -> None:
    pairs = args.bots // 2
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        port, metrics, dashboard = _free_port(), _free_port(), _free_port()
        config = _config(folder, port, metrics, dashboard, pairs)
        log = folder / "server.log"
        env = {k: v for k, v in os.environ.items() if not k.startswith("CONQUEST_")}
        with log.open("wb") as out:
            server = subprocess.Popen(
                [sys.executable, "-m", "server.cli.main", "serve", "--config", str(config)],
                stdout=out,
                stderr=subprocess.STDOUT,
                env=env,
            )
        try:
            await _wait_up(dashboard, server, log)
            bots = [RawBot(port) for _ in range(pairs * 2)]
            for i, bot in enumerate(bots):
                await bot.hello(f"honest-{i}")
            decisions: list[int] = []
            stop = asyncio.Event()
            players = [
                asyncio.create_task(play(bot, f"duel-{i // 2}", decisions, stop))
                for i, bot in enumerate(bots)
            ]
            game = await _finished_game(dashboard)
            await asyncio.sleep(3)  # warm up
            rows = []
            for label in ("none", "web", "none", "arena"):
                flooder = None
                if label == "web":
                    flooder = await floods.start(
                        floods.web_flood, dashboard, "duel-0", game, args.clients, args.seconds
                    )
                elif label == "arena":
                    flooder = await floods.start(
                        floods.arena_flood, port, "duel-0", args.clients, args.seconds
                    )
                missed, before, start = _timeouts(metrics), len(decisions), time.monotonic()
                await asyncio.sleep(args.seconds)
                rate = (len(decisions) - before) / (time.monotonic() - start)
                missed = await asyncio.to_thread(_timeouts, metrics) - missed
                answers = ""
                if flooder is not None:
                    counts = await flooder.answers()
                    answers = ", ".join(f"{k}: {v}" for k, v in sorted(counts.items()))
                rows.append((label, rate, missed, _rss_mib(server.pid), answers))
            stop.set()
            for task in players:
                task.cancel()
            for bot in bots:
                await bot.close()
        finally:
            server.terminate()
            try:
                server.wait(30)
            except subprocess.TimeoutExpired:
                server.kill()
    print(f"{'flood':<6} {'decisions/s':>11} {f'missed {DEADLINE_MS} ms':>14} {'RSS MiB':>8}  flood answers")
    for label, rate, missed, rss, answers in rows:
        print(f"{label:<6} {rate:>11.0f} {missed:>14} {rss:>8.0f}  {answers}")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seconds", type=float, default=15, help="length of each phase (default 15)")
    parser.add_argument("--bots", type=int, default=4, help="honest bots, in pairs (default 4)")
    parser.add_argument("--clients", type=int, default=8, help="each flood's connections (default 8)")
    asyncio.run(measure(parser.parse_args()))


if __name__ == "__main__":
    main()
