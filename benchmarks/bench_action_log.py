"""What keeping running games in the database costs, and how long a takeover takes
(``make bench-action-log``; issue 20, docs/benchmarks.md "Action log and takeover").

1. The same load with ``server.takeover`` off and on, alternately (``--rounds`` each): one ``conquest
   serve`` process on a fresh PostgreSQL schema, 8 SDK random bots playing ``--games`` duels each; the
   server process's CPU time (user + system, /proc) per decision, and the action log's rows
   (``pg_stat_user_tables``) and JSON bytes per decision.
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
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "support"))

from serve_process import Serve, free_port  # type: ignore[import-not-found]  # tests/support, on the path above

from conquest.v1 import game_pb2
from conquest_bots.random_bot import RandomBot
from conquest_sdk import Client, Game, Turn
from server.storage import Store

LIMIT_S = 600.0
"""A run that has not finished its games in this long fails."""
CONFIG = """
[server]
address = "127.0.0.1:{port}"
log_format = "json"
metrics_port = 0
replay_dir = "{replays}"
database_url = "{url}"
shutdown_grace_ms = 0
takeover = {takeover}

[queues.duel]
rules = "classic_two_player"
players = 2
rules_options = {{ turn_cap = {turn_cap} }}
time_control = {{ decision_ms = 5000, reconnect_grace_ms = 30000 }}
"""


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


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


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
        config = CONFIG.format(
            port=port, replays=work / "replays", url=db, takeover=str(takeover).lower(), turn_cap=60
        )
        server = Serve(work, config)
        await server.serving()
        before = cpu_seconds(server.process.pid)
        clients = [
            Client(RandomBot(i), f"127.0.0.1:{port}", name=f"bot{i}", queues=["duel"], games=games)
            for i in range(8)
        ]
        await asyncio.wait_for(asyncio.gather(*(c.run() for c in clients)), LIMIT_S)
        used = cpu_seconds(server.process.pid) - before
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
            CONFIG.format(port=port, replays=d / "replays", url=db, takeover="true", turn_cap=40)
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
    rows = statistics.median(r[1] for r in runs[True])
    size = statistics.median(r[2] for r in runs[True])
    print(
        f"takeover after a kill -9: games claimed {taken:.1f} s after it, all finished {finished:.1f} s after"
    )
    print(
        f"action log: server CPU {on:.0f} vs {off:.0f} µs a decision (medians, {rounds} runs each): "
        f"overhead = {(on / off - 1) * 100:+.1f}%, {rows:.4f} rows and {size:.1f} bytes a decision, "
        f"takeover = {taken:.1f} s"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10, help="duels per bot and run (8 bots: 4x games)")
    parser.add_argument("--rounds", type=int, default=3, help="runs with takeover off and on, alternately")
    arguments = parser.parse_args()
    asyncio.run(main(arguments.games, arguments.rounds))
