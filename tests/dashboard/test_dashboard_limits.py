"""Issue 21: "Play comes first: no web or Arena request can slow the games. Each request's cost is bounded
(exact odds where they are cheap, a stated cap or a cached/closed-form answer beyond), heavy work runs
apart from the play loop with a bounded queue, and clients are rate-limited." — and "Data from bots
(names, annotations) is inert in every page"; "Serving any replay a game can produce is bounded in time
and memory (state the worst case)". Without a browser: the dashboard's HTTP answers and the standalone
page's bytes (tests/dashboard/test_dashboard_browser.py opens them in Chromium)."""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
import signal
import subprocess
import sys
import time
import tracemalloc
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from hostile_games import HOSTILE, piled_duel
from live_server import LiveServer, serving

from engine import preset
from server.ops.config import QueueConfig, TimeControl
from server.web.guard import BURST, HEAVY_COST, RATE, RateLimit
from server.web.heavy import BusyError, HeavyWork
from server.web.replay_view import STANDALONE_SCRIPTS, standalone_page, viewer_data

CONTROL = TimeControl(decision_ms=30_000, first_decision_ms=30_000, initial_timebank_ms=0, max_timebank_ms=0)
QUEUES = (
    QueueConfig("duel", preset("classic_two_player", turn_cap=6), 2, CONTROL, house_opponents=("random",)),
)


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[LiveServer]:
    database_url = f"sqlite:///{tmp_path / 'limits.sqlite3'}"
    async with serving(QUEUES, tmp_path / "replays", database_url=database_url, dashboard=True) as live:
        yield live


async def get(server: LiveServer, path: str, extra: str = "") -> tuple[int, dict[str, str], Any]:
    """Status, headers (lower-case names) and JSON body (or text) of ``GET path`` on the dashboard;
    ``extra``: more header lines, each ending in CRLF."""
    assert server.dashboard is not None
    reader, writer = await asyncio.open_connection("127.0.0.1", server.dashboard.port)
    writer.write(f"GET {path} HTTP/1.1\r\nHost: x\r\n{extra}Connection: close\r\n\r\n".encode())
    raw = await reader.read()
    writer.close()
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    headers = dict((k.lower(), v.strip()) for k, v in (line.split(":", 1) for line in lines[1:]))
    is_json = headers.get("content-type", "").startswith("application/json")
    return int(lines[0].split()[1]), headers, json.loads(body) if is_json else body.decode()


async def test_the_largest_odds_the_endpoint_accepts_are_one_cheap_answer(server: LiveServer) -> None:
    """Issue 21: "One unauthenticated GET /api/odds?attackers=10000&defenders=10000 (the largest the
    endpoint accepts): server RSS 90 → 1,280 MiB in 15 s, the client timed out"."""
    status, _, odds = await get(server, "/api/odds?attackers=10000&defenders=10000")
    assert status == 200
    assert odds["method"] == "estimate" and odds["capture"]["value"] > 0.99
    status, _, small = await get(server, "/api/odds?attackers=4&defenders=2&repeat_until=0")
    assert (status, small["method"], small["capture"]["exact"]) == (200, "exact", "1445/3888")


async def test_heavy_work_runs_in_another_process_behind_a_bounded_queue() -> None:
    """Issue 21: "heavy work runs apart from the play loop with a bounded queue" — "bounded concurrent heavy
    requests with a clear 503 when full"."""
    heavy = HeavyWork(slots=1)
    try:
        assert await heavy.run(os.getpid) != os.getpid()
        running = asyncio.create_task(heavy.run(time.sleep, 1))
        await asyncio.sleep(0)  # it takes the one slot
        with pytest.raises(BusyError, match=r"at most 1 at once.*retry in 1 s"):
            await heavy.run(os.getpid)
        running.cancel()  # the visitor leaves: its job still holds the slot until it ends
        assert heavy.busy == 1
        with pytest.raises(BusyError):
            await heavy.run(os.getpid)
        while heavy.busy:
            await asyncio.sleep(0.05)
        assert await heavy.run(os.getpid) != os.getpid()
    finally:
        heavy.close()


async def test_a_dead_worker_is_replaced() -> None:
    """Issue 21: "nothing is lost and the server keeps serving everyone else": a worker killed (out of
    memory, by hand) costs the request it was on a 503, and the next request gets a new worker."""
    heavy = HeavyWork()
    try:
        worker = await heavy.run(os.getpid)
        os.kill(worker, signal.SIGKILL)
        with pytest.raises(BusyError, match="stopped; retry in 1 s"):
            await heavy.run(os.getpid)
        assert await heavy.run(os.getpid) not in (worker, os.getpid())
    finally:
        heavy.close()


async def test_a_full_queue_is_answered_503_with_retry_after(server: LiveServer) -> None:
    """Issue 21: "Seven concurrent GET /api/odds?attackers=330&defenders=330 (each about 10 s of CPU)
    stalled the whole server": each is now O(1) in the worker, and one past the queue's slots gets 503."""
    assert server.dashboard is not None
    answers = await asyncio.gather(*(get(server, "/api/odds?attackers=330&defenders=330") for _ in range(7)))
    assert {(status, body["method"]) for status, _, body in answers if status == 200} == {(200, "estimate")}
    assert all(status in (200, 503) for status, _, _ in answers)
    server.dashboard.dashboard.heavy.slots = 0
    status, headers, body = await get(server, "/api/odds?attackers=330&defenders=330")
    assert (status, headers["retry-after"]) == (503, "1")
    assert "so that the games are not slowed" in body["error"]
    status, _, queues = await get(server, "/api/queues")  # the rest of the dashboard still answers
    assert (status, queues) == (200, {"queues": ["duel"]})


def test_each_client_has_a_token_bucket() -> None:
    """Issue 21: "Per-client rate limit for HTTP (by client address), with 429 and a Retry-After"."""
    now = [0.0]
    limit = RateLimit(rate=2, burst=4, clock=lambda: now[0])
    assert [limit.take("a") for _ in range(4)] == [0, 0, 0, 0]
    assert limit.take("a") == pytest.approx(0.5)  # one token at 2 a second
    assert limit.take("b", 4) == 0  # another address has its own bucket
    now[0] = 1.0
    assert limit.take("a", 2) == 0 and limit.take("a") == pytest.approx(0.5)


async def test_a_flooding_client_gets_429_with_retry_after(server: LiveServer) -> None:
    """Issue 21: "clients are rate-limited": odds cost HEAVY_COST of a BURST-token bucket."""
    # All at once: one after another, a loaded machine can take long enough per answer for the bucket to
    # refill between them (RATE tokens a second) and never run dry.
    answers = await asyncio.gather(
        *(get(server, "/api/odds?attackers=5&defenders=5") for _ in range(BURST // HEAVY_COST + 1))
    )
    statuses = [status for status, _, _ in answers]
    assert 200 in statuses and 429 in statuses, statuses
    _, headers, body = next(a for a in answers if a[0] == 429)
    assert int(headers["retry-after"]) >= 1
    assert f"{RATE:g} a second" in body["error"] and "retry in" in body["error"]
    assert "content-security-policy" in headers, "a refusal carries the security headers too"


async def test_a_forwarded_for_header_does_not_choose_the_bucket(server: LiveServer) -> None:
    """Issue 33, item 4: "`X-Forwarded-For` from `::1` chooses the rate-limit bucket (uvicorn trusts it):
    120 of 120 requests and 60 of 60 heavy odds requests answered where ~60 and 12 should be". Each request
    claims another address; all come from this one, which is the bucket they drain."""
    answers = await asyncio.gather(
        *(
            get(server, "/api/odds?attackers=5&defenders=5", f"X-Forwarded-For: 203.0.113.{i}\r\n")
            for i in range(BURST // HEAVY_COST + 1)
        )
    )
    statuses = [status for status, _, _ in answers]
    assert 429 in statuses, statuses


async def test_no_answer_redirects_to_the_host_a_client_names(server: LiveServer) -> None:
    """Issue 33, item 10: "`GET /static` with `Host: evil.example` redirects to
    `http://evil.example/static/`"."""
    assert server.dashboard is not None
    reader, writer = await asyncio.open_connection("127.0.0.1", server.dashboard.port)
    writer.write(b"GET /static HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n")
    answer = (await reader.read()).decode()
    writer.close()
    assert answer.split()[1] == "404", answer
    assert "evil.example" not in answer
    assert (await get(server, "/static/app.js"))[0] == 200


async def test_every_response_carries_the_security_headers(server: LiveServer) -> None:
    """Issue 21: "The dashboard sends no Content-Security-Policy, X-Content-Type-Options or frame-ancestors
    header."""
    for path in ("/", "/static/app.js", "/api/queues", "/api/games/nope", "/api/odds?attackers=1"):
        _, headers, _ = await get(server, path)
        policy = headers["content-security-policy"]
        assert "script-src 'self'" in policy and "frame-ancestors 'none'" in policy, path
        assert "'unsafe-inline'" not in policy.split("script-src")[1].split(";")[0], path
        assert headers["x-content-type-options"] == "nosniff", path


def test_a_replay_of_piled_armies_is_bounded() -> None:
    """Issue 21: "Two colluding bots can make a replay that costs every visitor of /api/games/<id>/replay
    25 s and a 592 MiB peak (200-turn duel, armies stacked on two territories, one pile-against-pile
    attack)."; docs/dashboard.md states the worst case (a bounded cost per step)."""
    replay = piled_duel(200)
    tracemalloc.start()
    try:
        data = viewer_data(replay.to_dict())
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    [attack] = [s for s in data["steps"] if "odds" in s]
    assert attack["odds"]["attackers"] > 300 and attack["odds"]["defenders"] > 300
    assert attack["odds"]["method"] == "estimate"
    assert peak < 32 * 2**20, f"viewer data of a piled duel peaked at {peak / 2**20:.0f} MiB"


async def test_a_replay_is_computed_once_and_kept(server: LiveServer) -> None:
    """Issue 21: "a cached/closed-form answer": a finished game never changes, so its steps are kept."""
    assert server.dashboard is not None
    bot = server.bot()
    await bot.hello("keeper")
    await bot.join("duel", games=1)
    over = await bot.play_until_over(random.Random(1))
    first = await get(server, f"/api/games/{over.game_id}/replay")
    assert first[0] == 200 and first[2]["game_id"] == over.game_id
    server.dashboard.dashboard.heavy.slots = 0  # nothing may be computed again
    assert await get(server, f"/api/games/{over.game_id}/replay") == first
    await bot.close()


def test_embedded_replay_data_cannot_end_its_script_block() -> None:
    """Issue 21: "A Decision annotation <!--<script> breaks the standalone replay page (conquest replay
    render): the embedded data block no longer ends at its </script>" — "embedded JSON is escaped for HTML
    script context"."""
    replay = piled_duel(4, notes=HOSTILE)
    replay.seats = list(HOSTILE[:2])
    data = viewer_data(replay.to_dict())
    page = standalone_page(data)
    block = re.search(r'<script type="application/json" id="replay-data">(.*?)</script>', page, re.S)
    assert block is not None
    assert not re.search(r"[<>&]", block.group(1)), "nothing in the data block the HTML parser reads"
    assert json.loads(block.group(1)) == json.loads(json.dumps(data))
    # the data, each script (board.js, board2210.js, replay.js), the mount: nothing a bot wrote
    assert page.count("<script") == 2 + len(STANDALONE_SCRIPTS)


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, exited but not yet reaped, counts as gone)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except FileNotFoundError:
        return False


async def wait_gone(pid: int, within_s: float = 10.0) -> bool:
    for _ in range(int(within_s / 0.05)):
        if not alive(pid):
            return True
        await asyncio.sleep(0.05)
    return False


async def test_closing_stops_a_busy_worker_at_once() -> None:
    """Issue 21, "bounded resources": the dashboard's worker, busy with a long job when the server stops,
    outlived it by the job's length (holding its memory and the server's output pipes); close ends it."""
    heavy = HeavyWork()
    worker = await heavy.run(os.getpid)
    job = asyncio.create_task(heavy.run(time.sleep, 60))
    await asyncio.sleep(0.2)  # the worker has the job
    heavy.close()
    assert await wait_gone(worker)
    with pytest.raises(BusyError):
        await job  # its caller is told, not left waiting a minute


def test_a_worker_dies_with_its_killed_parent(tmp_path: Path) -> None:
    """Issue 21: a server killed outright (SIGKILL: no cleanup runs) leaves no dashboard worker behind."""
    script = (
        "import asyncio, os, time\n"
        "from server.web.heavy import HeavyWork\n"
        "async def main():\n"
        "    heavy = HeavyWork()\n"
        "    print(await heavy.run(os.getpid), flush=True)\n"
        "    await heavy.run(time.sleep, 60)\n"
        "asyncio.run(main())\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert parent.stdout is not None
    worker = int(parent.stdout.readline())
    assert alive(worker)
    time.sleep(0.3)  # busy with the minute-long job
    parent.kill()
    parent.wait()
    assert asyncio.run(wait_gone(worker))
