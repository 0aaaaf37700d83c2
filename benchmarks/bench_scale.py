"""What serving one ladder from several replicas costs (``make bench-scale``; issue 20, docs/benchmarks.md
"Scale-out").

On the throwaway PostgreSQL of ``make test-db``, with ``conquest serve`` replicas in cluster mode
(``server.cluster``) as real processes and SDK random bots in this process:

1. **One replica against two on the same load**: 8 random bots (``--pairs`` 4), a pair per queue, play
   ``--games`` duels each (``classic_two_player``, turn cap 60): all connected to one replica (``one``), and
   on two replicas with each pair split between them (``relayed``: one seat of every game played through
   the relay), each alone on the machine, ``--rounds`` times in turn. The same games each time: a pair per
   queue, so neither the pair cap nor the rating window holds a queue back. Each run gives the wall time,
   the decisions, the replicas' CPU time (user + system, /proc) and the decisions relayed
   (``conquest_relayed_decisions_total``).
2. **Relayed against local**, each round: two clusters at once, each of two replicas on a schema of its own
   and with that load, one with each pair on one replica (``local``: every game hosted where both its bots
   are, nothing relayed) and one with each pair split (``relayed``). At once, so what speeds or slows the
   machine meanwhile (the other processes, the database's background work) moves both alike, and the
   rounds agree far better than runs one after the other do (docs/benchmarks.md).
   Both runs less their replicas' idle CPU (heartbeats, polls: measured on two idle replicas) over their
   length; each run's CPU = its decisions × ``local`` + its relayed decisions × what relaying adds, two
   equations for the two unknowns (the ``local`` run may relay a few too: games its host's load placed on
   the other replica); ``relayed`` = ``local`` + that; the ratio is the median of the rounds'. The same
   split of each kind of thread's CPU (the event loop's, user and system; gRPC's; the rest:
   ``thread_cpu``) says where a relayed decision's extra goes. ``benchmarks.bench_relay``'s figures are
   printed beside it (the relay alone, one game at a time, over the Unix socket the replicas here use):
   between two processes, the part of the difference the relay and the process boundary account for, and
   in one process, its own code's part.
3. **The action log**: ``benchmarks.bench_action_log``'s runs with ``server.takeover`` off and on
   (``--rounds`` each, alternately): the server's CPU per decision with and without the log, the server
   alone on a core and its idle CPU taken out; the overhead is the median of the rounds' ratios.
4. **PostgreSQL per decision** in the pairs-split run alone: rows written (inserts, updates, deletes of the
   run's schema), WAL bytes and the CPU time of every PostgreSQL process; and the database's CPU per second
   of two idle replicas (their heartbeats and polls).
5. **Takeover**: two replicas on one port with the default heartbeat (1 s) and timeout (5 s); the one
   hosting most of 4 games is killed with SIGKILL in their middle: the time until the other has claimed
   them all.
6. **Replicas per PostgreSQL**: a replica at full speed takes as many decisions a second as the one-replica
   run's decisions per CPU second;
   its database load is then the idle replica's CPU per second plus that many decisions' PostgreSQL CPU. One
   PostgreSQL core serves 1 s / that load of replicas.

The last line sums it up: ``scale: relayed/local = ..., action-log overhead = ...%, takeover = ... s,
replicas per PostgreSQL = ...``. Needs a PostgreSQL URL in CONQUEST_TEST_POSTGRES_URL (``.ci/postgres.sh
start`` prints one) on this machine (its processes' CPU is read from /proc); only 127.0.0.1 servers.

    python -m benchmarks.bench_scale [--games N] [--rounds N]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import statistics
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import Engine, create_engine, text

from benchmarks.bench_action_log import (
    LIMIT_S,
    PAIRS,
    Thinking,
    load,
    overhead,
    postgres_pids,
    queues,
    schema,
)
from benchmarks.bench_clients import cpu_seconds
from benchmarks.bench_relay import apart, measure
from conquest_bots.random_bot import RandomBot
from conquest_sdk import Client
from server.storage import Store

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "support"))

from serve_process import Serve, free_port  # type: ignore[import-not-found]  # tests/support, on the path above

TOKEN = "bench-scale-cluster-token"
CONFIG = """
[server]
address = "127.0.0.1:{port}"
log_format = "json"
metrics_port = {metrics}
replay_dir = "{replays}"
database_url = "{url}"
shutdown_grace_ms = 0
cluster = true
cluster_token = "{token}"
advertise_host = "127.0.0.1"
"""


LAYOUTS: dict[str, Callable[[int], int]] = {
    "one": lambda bot: 0,
    "local": lambda bot: bot // 2 % 2,
    "relayed": lambda bot: bot % 2,
}
"""The replica each bot connects to: all to one; each pair on one of two (every game hosted where both its
bots are: nothing relayed); each pair split between two (one seat of every game relayed)."""


@dataclass
class Replica:
    """One ``conquest serve`` in cluster mode: its process, bot port and metrics port."""

    serve: Serve
    port: int
    metrics: int

    @staticmethod
    def start(work: Path, url: str, turn_cap: int = 60, port: int = 0, pairs: int = PAIRS) -> Replica:
        """A replica on ``port`` (any free one for 0; replicas in cluster mode may share one), with the
        queues of ``pairs`` pairs of bots."""
        work.mkdir(parents=True)
        port, metrics = port or free_port(), free_port()
        config = (CONFIG + queues(pairs)).format(
            port=port, metrics=metrics, replays=work / "replays", url=url, token=TOKEN, turn_cap=turn_cap
        )
        return Replica(Serve(work, config), port, metrics)

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def cpu(self) -> float:
        return cpu_seconds(self.serve.process.pid)

    def threads(self) -> dict[str, float]:
        return thread_cpu(self.serve.process.pid)

    def metric(self, name: str) -> float:
        page = urllib.request.urlopen(f"http://127.0.0.1:{self.metrics}/metrics", timeout=5).read().decode()
        found = re.search(rf"^{name} (\S+)$", page, re.MULTILINE)
        return float(found.group(1)) if found else 0.0


@dataclass
class Database:
    """The PostgreSQL under test, read for what one run cost it over one pooled connection (a new engine
    per read would start a backend each time and count its start-up as the run's cost)."""

    url: str
    schema: str
    engine: Engine = field(init=False)

    def __post_init__(self) -> None:
        self.engine = create_engine(self.url)

    def close(self) -> None:
        self.engine.dispose()

    def rows_written(self) -> int:
        with self.engine.connect() as connection:
            return int(
                connection.execute(
                    text(
                        "SELECT coalesce(sum(n_tup_ins + n_tup_upd + n_tup_del), 0) FROM pg_stat_user_tables "
                        "WHERE schemaname = :s"
                    ),
                    {"s": self.schema},
                ).scalar_one()
            )

    def wal_bytes(self) -> int:
        with self.engine.connect() as connection:
            return int(connection.execute(text("SELECT pg_current_wal_lsn() - '0/0'::pg_lsn")).scalar_one())

    @staticmethod
    def cpu() -> float:
        """CPU seconds of every PostgreSQL process on this machine (the server, its backends, its workers)."""
        total = 0.0
        for pid in postgres_pids():
            with suppress(OSError):  # a process that ended meanwhile
                total += cpu_seconds(pid)
        return total


THREADS = ("event loop, user", "event loop, system", "gRPC's threads", "other threads")
"""A replica's threads by kind, as ``thread_cpu`` counts their CPU."""


def thread_cpu(pid: int) -> dict[str, float]:
    """CPU seconds so far of process ``pid``'s threads by kind (``THREADS``): the event loop's (the main
    thread's, user and system apart), gRPC core's own (``event_engine``, ``grpc_*``, ``lifeguard``), and the
    rest (chiefly the database workers)."""
    tick = os.sysconf("SC_CLK_TCK")
    kinds = dict.fromkeys(THREADS, 0.0)
    for task in Path(f"/proc/{pid}/task").iterdir():
        with suppress(OSError):  # a thread that ended meanwhile
            stat = (task / "stat").read_text()
            name, _, rest = stat.partition("(")[2].rpartition(")")
            fields = rest.split()
            user, system = int(fields[11]) / tick, int(fields[12]) / tick
            if task.name == str(pid):
                kinds[THREADS[0]] += user
                kinds[THREADS[1]] += system
            else:
                grpc = name.startswith(("event_engine", "grpc", "lifeguard"))
                kinds[THREADS[2] if grpc else THREADS[3]] += user + system
    return kinds


@dataclass
class Run:
    seconds: float
    decisions: int
    cpu_s: float
    relayed: int
    threads: dict[str, float] = field(default_factory=dict)
    """The replicas' CPU seconds by kind of thread (``THREADS``)."""
    database_cpu_s: float = 0.0
    rows: int = 0
    wal_bytes: int = 0


async def play(url: str, layout: str, games: int, work: Path, pairs: int) -> Run:
    """``pairs`` pairs of random bots, a pair per queue, playing ``games`` duels each, connected to the
    replicas as ``LAYOUTS[layout]`` says."""
    with schema(url) as (db, name):
        database = Database(db, name)
        try:
            return await _measure(database, layout, games, work, pairs)
        finally:
            database.close()


async def _measure(database: Database, layout: str, games: int, work: Path, pairs: int) -> Run:
    """One run of ``play`` on ``database`` (a fresh schema)."""
    db = database.url
    replica_of = LAYOUTS[layout]
    bots = 2 * pairs
    servers = [
        Replica.start(work / f"r{i}", db, pairs=pairs) for i in range(max(map(replica_of, range(bots))) + 1)
    ]
    for server in servers:
        await server.serve.serving()
    await asyncio.sleep(2.0)  # every replica has beaten and the lease is held
    cpu, database_cpu = sum(s.cpu() for s in servers), database.cpu()
    threads_before = [s.threads() for s in servers]
    rows, wal = database.rows_written(), database.wal_bytes()
    started = time.monotonic()
    clients = [
        Client(
            RandomBot(i),
            servers[replica_of(i)].address,
            name=f"bot{i}",
            queues=[f"pair-{i // 2}"],
            games=games,
        )
        for i in range(bots)
    ]
    await asyncio.wait_for(asyncio.gather(*(c.run() for c in clients)), LIMIT_S)
    seconds = time.monotonic() - started
    await asyncio.sleep(1.5)  # the last results are recorded, the statistics collector catches up
    threads_after = [s.threads() for s in servers]
    run = Run(
        seconds=seconds,
        decisions=0,
        cpu_s=sum(s.cpu() for s in servers) - cpu,
        relayed=int(sum(s.metric("conquest_relayed_decisions_total") for s in servers)),
        threads={
            kind: sum(a[kind] - b[kind] for a, b in zip(threads_after, threads_before, strict=True))
            for kind in THREADS
        },
        database_cpu_s=database.cpu() - database_cpu,
        rows=database.rows_written() - rows,
        wal_bytes=database.wal_bytes() - wal,
    )
    for server in servers:
        server.serve.stop(30)
    with Store.open(db) as store:
        run.decisions = sum(len(store.replay(g.id).actions) for g in store.games(limit=100_000))
    return run


def per_decision(apart: Run, two: Run, apart_cpu: float, two_cpu: float) -> tuple[float, float]:
    """From two runs' CPU seconds (``apart_cpu``: each pair on one replica; ``two_cpu``: each pair split),
    what a decision costs with every seat on its host and what a relayed decision adds, in microseconds:
    the two unknowns of each run's CPU = decisions × the first + relayed decisions × the second. (The
    games-local run relays a few decisions too: a game its host's load placed on the other replica.)"""
    unknowns = two.relayed * apart.decisions - apart.relayed * two.decisions
    if not unknowns:  # both runs relayed alike (nothing, if the relay is broken): no telling them apart
        return apart_cpu / apart.decisions * 1e6, float("nan")
    extra = (two_cpu * apart.decisions - apart_cpu * two.decisions) / unknowns
    return (apart_cpu - extra * apart.relayed) / apart.decisions * 1e6, extra * 1e6


def local_and_relayed(apart: Run, two: Run, idle_replica: float) -> tuple[float, float]:
    """The replicas' CPU microseconds a decision when every seat is on the host (``apart``: each pair on one
    replica) and a relayed decision's (``two``: each pair split, half its decisions relayed), each run less
    what its two replicas cost idle (``idle_replica`` CPU seconds a second each) over its length."""
    apart_cpu = apart.cpu_s - 2 * idle_replica * apart.seconds
    two_cpu = two.cpu_s - 2 * idle_replica * two.seconds
    local, extra = per_decision(apart, two, apart_cpu, two_cpu)
    return local, local + extra


def relayed_by_thread(apart: Run, two: Run) -> dict[str, float]:
    """What a relayed decision adds to each kind of thread (``THREADS``), in CPU microseconds
    (``per_decision`` on that kind's CPU; idle CPU not taken out: the runs are about as long)."""
    return {kind: per_decision(apart, two, apart.threads[kind], two.threads[kind])[1] for kind in THREADS}


def median_run(runs: list[Run]) -> Run:
    """The run of median CPU a decision (what the layout's line shows, and the one-replica figures use)."""
    return sorted(runs, key=lambda run: run.cpu_s / run.decisions)[len(runs) // 2]


async def idle_cost(url: str, work: Path, seconds: float = 10.0) -> tuple[float, float]:
    """CPU seconds per second that one idle replica costs itself and PostgreSQL (its heartbeats and polls;
    two measured, halved)."""
    with schema(url) as (db, _):
        servers = [Replica.start(work / f"idle{i}", db) for i in range(2)]
        for server in servers:
            await server.serve.serving()
        await asyncio.sleep(2.0)
        replicas, database = sum(s.cpu() for s in servers), Database.cpu()
        await asyncio.sleep(seconds)
        replicas, database = sum(s.cpu() for s in servers) - replicas, Database.cpu() - database
        for server in servers:
            server.serve.stop(30)
        return replicas / seconds / 2, database / seconds / 2


async def takeover_time(url: str, work: Path) -> float:
    """Seconds from a SIGKILL of a replica hosting games in their middle until the other replica has claimed
    them all. The two replicas share one port (as ``--processes`` replicas do), so the bots of the killed one
    reconnect to the other."""
    with schema(url) as (db, _):
        first = Replica.start(work / "first", db, turn_cap=40)
        second = Replica.start(work / "second", db, turn_cap=40, port=first.port)
        await first.serve.serving()
        await second.serve.serving()
        await asyncio.sleep(2.0)  # each has seen the other beat
        clients = [
            Client(Thinking(i, 0.03), first.address, name=f"bot{i}", queues=["duel"], games=1)
            for i in range(8)
        ]
        playing = asyncio.gather(*(c.run() for c in clients))
        with Store.open(db) as store:
            deadline = time.monotonic() + 60
            while not (len(live := store.live_games()) == 4 and all(n >= 20 for *_, n in live)):
                assert time.monotonic() < deadline, f"4 games with 20 logged actions never appeared: {live}"
                await asyncio.sleep(0.2)
            hosts = [h for _, h, *_ in live]
            victim = max(hosts, key=hosts.count)
            games = {g for g, h, *_ in live if h == victim}
            (first if (await first.serve.serving())["replica"] == victim else second).serve.process.kill()
            killed = time.monotonic()
            while any(g in games and h == victim for g, h, *_ in store.live_games()):
                assert time.monotonic() < killed + 60, "the killed replica's games were not taken over"
                await asyncio.sleep(0.05)
            taken = time.monotonic() - killed
            claimed = sum(1 for g, h, *_ in store.live_games() if g in games)
            assert claimed == len(games), f"{len(games) - claimed} of the killed replica's games ended first"
        await asyncio.wait_for(playing, LIMIT_S)
        for replica in (first, second):
            if replica.serve.process.poll() is None:
                replica.serve.stop(30)
        return taken


async def main(games: int, rounds: int, pairs: int) -> None:
    url = os.environ.get("CONQUEST_TEST_POSTGRES_URL", "")
    if not url:
        raise SystemExit(
            "bench_scale: set CONQUEST_TEST_POSTGRES_URL to a PostgreSQL URL (`.ci/postgres.sh start` starts "
            "a throwaway cluster and prints one)"
        )
    with tempfile.TemporaryDirectory(prefix="conquest-bench-scale-") as tmp:
        alone: dict[str, list[Run]] = {"one": [], "relayed": []}
        together: list[tuple[Run, Run]] = []
        log_runs: dict[bool, list[float]] = {False: [], True: []}
        for i in range(rounds):
            for layout, runs in alone.items():
                runs.append(await play(url, layout, games, Path(tmp) / f"{layout}-{i}", pairs))
            local_run, relayed_run = await asyncio.gather(
                play(url, "local", games, Path(tmp) / f"together-local-{i}", pairs),
                play(url, "relayed", games, Path(tmp) / f"together-relayed-{i}", pairs),
            )
            together.append((local_run, relayed_run))
            for takeover in (False, True):
                work = Path(tmp) / f"log-{i}-{takeover}"
                work.mkdir()
                log_runs[takeover].append((await load(url, takeover, games, work))[0])
        idle_replica, idle = await idle_cost(url, Path(tmp))
        work = Path(tmp) / "takeover"
        work.mkdir()
        taken = await takeover_time(url, work)
        relay_us = await measure(1, 3000, Path(tmp) / "relay")
        apart_us = await apart(1, 3000, Path(tmp) / "relay-apart")

    # Each round's two clusters less what their replicas cost idle over their length: what their decisions
    # cost; the ratio is the median of the rounds' (a disturbed round moves one round, not it).
    costs = [local_and_relayed(apart, two, idle_replica) for apart, two in together]
    ratio = statistics.median(relayed / local for local, relayed in costs)
    by_thread = [relayed_by_thread(apart, two) for apart, two in together]
    local = statistics.median(local for local, _ in costs)
    relayed = statistics.median(relayed for _, relayed in costs)
    one, two = median_run(alone["one"]), median_run(alone["relayed"])
    at_once = {
        "local": median_run([apart for apart, _ in together]),
        "relayed": median_run([two for _, two in together]),
    }
    added = overhead(log_runs[False], log_runs[True])
    database = two.database_cpu_s / two.decisions * 1e6
    full_speed = one.decisions / one.cpu_s  # decisions a second one replica takes on its core
    per_replica = idle + full_speed * database / 1e6  # PostgreSQL CPU seconds a second
    lines = {
        "one replica": one,
        "two replicas, pairs split": two,
        "at once: two replicas, games local": at_once["local"],
        "at once: two replicas, pairs split": at_once["relayed"],
    }
    for label, run in lines.items():
        print(
            f"{label}: {run.decisions} decisions in {run.seconds:.1f} s "
            f"({run.decisions / run.seconds:,.0f}/s), replicas' CPU "
            f"{run.cpu_s / run.decisions * 1e6:.0f} µs a decision, {run.relayed} relayed"
        )
    print(
        f"CPU a decision on two replicas, less their idle {idle_replica * 1000:.1f} ms a second each: "
        f"local {local:.0f} µs, relayed {relayed:.0f} µs (the two at once; medians of {rounds} rounds; "
        f"relayed/local by round: {', '.join(f'{r / lo:.2f}' for lo, r in costs)}); the relay "
        f"(bench_relay, both ends, one game at a time) {apart_us:.0f} µs a round trip between two processes, "
        f"own code {relay_us:.0f} µs"
    )
    print(
        "a relayed decision's extra CPU by thread (medians of the rounds): "
        + ", ".join(f"{kind} {statistics.median(r[kind] for r in by_thread):+.0f} µs" for kind in THREADS)
    )
    by_round = ", ".join(
        f"{on / off - 1:+.1%}" for off, on in zip(log_runs[False], log_runs[True], strict=True)
    )
    print(
        f"action log: server CPU {statistics.median(log_runs[True]):.0f} vs "
        f"{statistics.median(log_runs[False]):.0f} µs a decision (medians of {rounds} runs each; by round: "
        f"{by_round})"
    )
    print(
        f"PostgreSQL a decision (two replicas, pairs split): {two.rows / two.decisions:.4f} rows, "
        f"{two.wal_bytes / two.decisions:.0f} WAL bytes, {database:.1f} µs CPU; an idle replica costs it "
        f"{idle * 1000:.1f} ms CPU a second"
    )
    print(
        f"replicas per PostgreSQL core: 1 / ({idle * 1000:.1f} ms + {full_speed:,.0f} decisions/s × "
        f"{database:.1f} µs) a second = {1 / per_replica:.0f}"
    )
    print(
        f"scale: relayed/local = {ratio:.2f}, action-log overhead = {added * 100:.1f}%, "
        f"takeover = {taken:.1f} s, replicas per PostgreSQL = {1 / per_replica:.0f}"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10, help="duels per bot and run")
    parser.add_argument(
        "--pairs", type=int, default=PAIRS, help="pairs of bots playing at once, a queue each"
    )
    parser.add_argument(
        "--rounds", type=int, default=5, help="runs of each layout, and of the action log off and on"
    )
    arguments = parser.parse_args()
    asyncio.run(main(arguments.games, arguments.rounds, arguments.pairs))
