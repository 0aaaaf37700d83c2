"""What keeping running games in the database costs, and how long a takeover takes
(``make bench-action-log``; issue 20, docs/benchmarks.md "Action log and takeover").

1. The same load with ``server.takeover`` off and on, alternately (``--rounds`` each): one ``conquest
   serve`` process on a fresh PostgreSQL schema, 8 SDK random bots, a pair per queue, playing ``--games``
   duels each; the server process's CPU time (user + system, /proc) per decision, less what it uses idle
   over the run's length (``idle_rate``), with the server alone on a core (``cores_apart``), and the action
   log's rows (``pg_stat_user_tables``) and JSON bytes per decision. The overhead is the median of the
   rounds' ratios (``overhead``).
2. Takeover: a server with the default heartbeat (1 s) and timeout (5 s) is killed with SIGKILL in the
   middle of 4 games; a second server is started on the same database at once: the time from the kill
   until every game is taken over (the second server logs ``serving`` once it has claimed them) and until
   every game is finished.

Needs a PostgreSQL URL in CONQUEST_TEST_POSTGRES_URL (``.ci/postgres.sh start`` prints one); only
127.0.0.1 servers, bounded in games and time.

    python -m benchmarks.bench_action_log [--games N] [--rounds N]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "support"))

from serve_process import Serve, free_port  # type: ignore[import-not-found]  # tests/support, on the path above

from benchmarks.bench_clients import cpu_seconds
from conquest.v1 import game_pb2
from conquest_bots.random_bot import RandomBot
from conquest_sdk import Client, Game, Turn
from server.storage import Store

LIMIT_S = 600.0
"""A run that has not finished its games in this long fails."""
IDLE_S = 3.0
"""How long each run's server is watched idle first (``idle_rate``)."""
CONFIG = """
[server]
address = "127.0.0.1:{port}"
log_format = "json"
metrics_port = 0
replay_dir = "{replays}"
database_url = "{url}"
shutdown_grace_ms = 0
takeover = {takeover}
"""
QUEUE = """
[queues.NAME]
rules = "classic_two_player"
players = 2
rules_options = {{ turn_cap = {turn_cap} }}
time_control = {{ decision_ms = 5000, reconnect_grace_ms = 30000 }}
"""
PAIRS = 4
"""Pairs of bots in a run: 4, each pair in a queue of its own."""


def queues(pairs: int) -> str:
    """``duel`` for a takeover's 8 bots (one game each, all waiting at once); ``pair-0`` ... for the runs,
    one pair of bots each: each bot of a pair plays every game of the run against the other, so none is
    left with games to play and no one waiting (8 bots in one queue could end so and wait for ever), and
    the pair cap never holds a game back."""
    return "".join(QUEUE.replace("NAME", name) for name in ["duel", *(f"pair-{p}" for p in range(pairs))])


class Thinking(RandomBot):
    """Random legal play taking ``think_s`` a decision (a game long enough to be killed mid-way)."""

    def __init__(self, seed: int, think_s: float) -> None:
        super().__init__(seed)
        self.think_s = think_s

    def decide(self, game: Game, turn: Turn) -> game_pb2.Action:
        time.sleep(self.think_s)
        return super().decide(game, turn)


@contextmanager
def schema(url: str) -> Iterator[tuple[str, str]]:
    """A fresh schema of the PostgreSQL at ``url`` (dropped afterwards): its URL and its name."""
    name = f"bench_{uuid.uuid4().hex[:12]}"
    admin = create_engine(url, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE SCHEMA "{name}"'))
    try:
        query = {"options": f"-csearch_path={name}"}
        yield make_url(url).update_query_dict(query).render_as_string(hide_password=False), name
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP SCHEMA "{name}" CASCADE'))
        admin.dispose()


@contextmanager
def cores_apart(server: int) -> Iterator[None]:
    """The server process ``server`` alone on the first core; this process (the bots) and PostgreSQL on the
    others. Its CPU time a decision is then its own work's: sharing a core with the bots and the database
    inflated it by a varying amount, more in the runs where the database works more (with the action log),
    so the overhead swung from -3% to +17% run to run on this 2-core machine. One core: nothing changes."""
    cores = sorted(os.sched_getaffinity(0))
    if len(cores) < 2:
        yield
        return
    rest = [0, *postgres_pids()]
    _pin(server, {cores[0]})
    for pid in rest:
        _pin(pid, set(cores[1:]))
    try:
        yield
    finally:
        for pid in [server, *rest]:
            _pin(pid, set(cores))


def postgres_pids() -> list[int]:
    """The PostgreSQL processes on this machine (the server, its backends, its workers)."""
    pids = []
    for comm in Path("/proc").glob("[0-9]*/comm"):
        with suppress(OSError):  # a process that ended meanwhile
            if comm.read_text().strip() in ("postgres", "postmaster"):
                pids.append(int(comm.parent.name))
    return pids


def _pin(pid: int, cores: set[int]) -> None:
    """Every thread of process ``pid`` (0: this one) on ``cores`` (threads it starts later inherit it)."""
    for task in Path(f"/proc/{pid or os.getpid()}/task").glob("[0-9]*"):
        with suppress(OSError):  # a thread or process that ended meanwhile
            os.sched_setaffinity(int(task.name), cores)


def overhead(off: list[float], on: list[float]) -> float:
    """What logging adds to a decision's CPU: the median, over rounds, of a round's run with it against the
    run without it just before (each pair shares the machine's state of the moment, which drifts over a
    sitting; one run disturbed moves one ratio, not the figure)."""
    return statistics.median(with_log / without - 1 for without, with_log in zip(off, on, strict=True))


async def idle_rate(pid: int, seconds: float) -> float:
    """CPU seconds a second process ``pid`` uses with nothing to play (its heartbeat, timers and polling
    threads: a cost of the wall time a run lasts, not of its decisions, which bots that run slower or
    faster would otherwise spread over them)."""
    before = cpu_seconds(pid)
    await asyncio.sleep(seconds)
    return (cpu_seconds(pid) - before) / seconds


def inserted_rows(url: str, name: str) -> int:
    admin = create_engine(url)
    with admin.connect() as connection:
        rows = connection.execute(
            text(
                "SELECT n_tup_ins FROM pg_stat_user_tables WHERE schemaname = :s AND relname = 'live_actions'"
            ),
            {"s": name},
        ).scalar()
    admin.dispose()
    return int(rows or 0)


async def load(url: str, takeover: bool, games: int, work: Path) -> tuple[float, float, float, int]:
    """One run: server CPU microseconds per decision, log rows per decision, log bytes per decision,
    decisions."""
    with schema(url) as (db, name):
        port = free_port()
        config = (CONFIG + queues(PAIRS)).format(
            port=port, replays=work / "replays", url=db, takeover=str(takeover).lower(), turn_cap=60
        )
        server = Serve(work, config)
        await server.serving()
        with cores_apart(server.process.pid):
            idle = await idle_rate(server.process.pid, IDLE_S)
            before, started = cpu_seconds(server.process.pid), time.monotonic()
            clients = [
                Client(
                    RandomBot(i), f"127.0.0.1:{port}", name=f"bot{i}", queues=[f"pair-{i // 2}"], games=games
                )
                for i in range(2 * PAIRS)
            ]
            await asyncio.wait_for(asyncio.gather(*(c.run() for c in clients)), LIMIT_S)
            used = cpu_seconds(server.process.pid) - before - idle * (time.monotonic() - started)
        server.stop(30)
        with Store.open(db) as store:
            replays = [store.replay(g.id) for g in store.games(limit=100_000)]
        decisions = sum(len(r.actions) for r in replays)
        logged_bytes = sum(len(json.dumps(r.to_dict()["actions"], separators=(",", ":"))) for r in replays)
        await asyncio.sleep(1.0)  # the statistics collector's counts lag the commits a little
        rows = inserted_rows(url, name) if takeover else 0
        return (
            used / decisions * 1e6,
            rows / decisions,
            logged_bytes / decisions if takeover else 0.0,
            decisions,
        )


async def takeover_time(url: str, work: Path) -> tuple[float, float]:
    """Seconds from a SIGKILL in the middle of 4 games until a new server has taken them over, and
    until they are all finished."""
    with schema(url) as (db, _):
        port = free_port()
        dirs = [work / "first", work / "second"]
        for d in dirs:
            d.mkdir()
        configs = [
            (CONFIG + queues(0)).format(
                port=port, replays=d / "replays", url=db, takeover="true", turn_cap=40
            )
            for d in dirs
        ]
        first = Serve(dirs[0], configs[0])
        await first.serving()
        clients = [
            Client(Thinking(i, 0.01), f"127.0.0.1:{port}", name=f"bot{i}", queues=["duel"], games=1)
            for i in range(8)
        ]
        playing = asyncio.gather(*(c.run() for c in clients))
        with Store.open(db) as store:
            deadline = time.monotonic() + 60
            while not (len(live := store.live_games()) == 4 and all(n >= 30 for *_, n in live)):
                assert time.monotonic() < deadline, f"4 games with 30 logged actions never appeared: {live}"
                await asyncio.sleep(0.2)
        first.process.kill()
        killed = time.monotonic()
        first.process.wait(10)
        second = Serve(dirs[1], configs[1])
        await second.serving()
        taken = time.monotonic() - killed
        await asyncio.wait_for(playing, LIMIT_S)
        finished = time.monotonic() - killed
        claimed = sum(1 for r in second.records() if r["event"] == "game_taken_over")
        second.stop(30)
        assert claimed == 4, f"{claimed} of 4 games were taken over"
        return taken, finished


async def main(games: int, rounds: int) -> None:
    url = os.environ.get("CONQUEST_TEST_POSTGRES_URL", "")
    if not url:
        raise SystemExit(
            "bench_action_log: set CONQUEST_TEST_POSTGRES_URL to a PostgreSQL URL (`.ci/postgres.sh start` "
            "starts a throwaway cluster and prints one)"
        )
    runs: dict[bool, list[tuple[float, float, float, int]]] = {False: [], True: []}
    with tempfile.TemporaryDirectory(prefix="conquest-bench-log-") as tmp:
        for i in range(rounds):
            for takeover in (False, True):
                work = Path(tmp) / f"{i}-{takeover}"
                work.mkdir()
                run = await load(url, takeover, games, work)
                runs[takeover].append(run)
                state = "on " if takeover else "off"
                print(
                    f"takeover {state}: {run[3]} decisions, server CPU {run[0]:.0f} µs a decision, log "
                    f"{run[1]:.4f} rows and {run[2]:.1f} bytes a decision",
                    flush=True,
                )
        work = Path(tmp) / "takeover"
        work.mkdir()
        taken, finished = await takeover_time(url, work)
    off = statistics.median(r[0] for r in runs[False])
    on = statistics.median(r[0] for r in runs[True])
    added = overhead([r[0] for r in runs[False]], [r[0] for r in runs[True]])
    rows = statistics.median(r[1] for r in runs[True])
    size = statistics.median(r[2] for r in runs[True])
    print(
        f"takeover after a kill -9: games claimed {taken:.1f} s after it, all finished {finished:.1f} s after"
    )
    print(
        f"action log: server CPU {on:.0f} vs {off:.0f} µs a decision (medians, {rounds} runs each): "
        f"overhead = {added * 100:+.1f}% (the rounds' median), {rows:.4f} rows and {size:.1f} bytes a "
        f"decision, "
        f"takeover = {taken:.1f} s"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10, help="duels per bot and run (8 bots: 4x games)")
    parser.add_argument("--rounds", type=int, default=6, help="runs with takeover off and on, alternately")
    arguments = parser.parse_args()
    asyncio.run(main(arguments.games, arguments.rounds))
