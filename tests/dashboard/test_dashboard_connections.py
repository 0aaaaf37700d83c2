"""Issue 33, "no one client can starve the others", on the dashboard: item 2 ("One address can take all 200
live-view slots of the dashboard (`/watch` SSE, never reading); every other visitor gets 503") and item 3
("The dashboard never times out slow or silent connections: 800 slowloris connections (headers at one byte
a second) and 2,000 silent ones were held for good; at the 20,000 open-file limit it answered no visitor
for ~40 s and logged nothing"). The dashboard runs in the test's process over a feed with one endless
live game (no game server); clients come from several loopback addresses (127.0.0.x), each a client of
its own. ``make chaos`` runs the same attacks at the issue's sizes (tests/support/chaos_dashboard.py)."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncGenerator, AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import structlog
from chromium import open_page
from playwright.async_api import Browser
from serve_process import Serve, free_port

from conquest.v1 import arena_pb2, bot_pb2, game_pb2
from server.arena.ledger import Ledger
from server.web.connections import FILE_RESERVE, OpenConnections, within_open_files
from server.web.dashboard import RunningDashboard, start_dashboard
from server.web.limits import WebLimits
from server.web.live import LiveFeed

GAME = "g-endless"
WATCH = f"/api/games/{GAME}/watch"


class EndlessFeed(LiveFeed):
    """One live game, ``GAME``, that never ends, and no game server: each stream sends a snapshot, then a
    batch of ``batch`` events every ``every_s`` seconds (0: as fast as the dashboard takes them)."""

    def __init__(self, batch: int = 1, every_s: float = 3600) -> None:
        super().__init__("127.0.0.1:1")  # never called: the channel connects on a first call only
        self.ids.add(GAME)
        self.batch = batch
        self.every_s = every_s
        self.streams = 0
        """Streams open (a stream the dashboard stopped reading is closed when its request ends)."""

    async def watch(self, game_id: str) -> AsyncGenerator[arena_pb2.WatchGameResponse] | None:
        return self._endless() if game_id == GAME else None

    async def _endless(self) -> AsyncGenerator[arena_pb2.WatchGameResponse]:
        self.streams += 1
        try:
            yield arena_pb2.WatchGameResponse(snapshot=arena_pb2.GameSnapshot(game_id=GAME))
            events = [game_pb2.GameEvent(sequence=i) for i in range(self.batch)]
            while True:
                await asyncio.sleep(self.every_s)
                yield arena_pb2.WatchGameResponse(events=bot_pb2.GameEvents(game_id=GAME, events=events))
        finally:
            self.streams -= 1


@pytest.fixture
async def dashboards() -> AsyncIterator[Any]:
    """``start(feed, limits)``: a dashboard on 127.0.0.1 (stopped after the test)."""
    running: list[RunningDashboard] = []

    async def start(limits: WebLimits, feed: LiveFeed | None = None) -> RunningDashboard:
        feed = feed or EndlessFeed()
        web = await start_dashboard(
            Ledger(None, ("duel",), feed.ids), feed, 0, "127.0.0.1", web_limits=limits
        )
        running.append(web)
        return web

    yield start
    for web in running:
        await web.stop()


async def connect(web: RunningDashboard, source: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A connection to the dashboard from the loopback address ``source`` (a client of its own)."""
    return await asyncio.open_connection("127.0.0.1", web.port, local_addr=(source, 0))


async def answer_head(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    """The status of an answer and the rest of what has come of it (its body, for a refusal)."""
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
    if b"content-length:" in head.lower():
        length = int(head.lower().split(b"content-length:")[1].split(b"\r\n")[0])
        return int(head.split()[1]), await asyncio.wait_for(reader.readexactly(length), 10)
    return int(head.split()[1]), b""


async def get(web: RunningDashboard, source: str, path: str) -> tuple[int, Any]:
    """Status and JSON body of ``GET path`` from ``source`` on a connection of its own."""
    reader, writer = await connect(web, source)
    writer.write(f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
    status, body = await answer_head(reader)
    writer.close()
    return status, json.loads(body) if body.startswith(b"{") else body


async def live_view(web: RunningDashboard, source: str) -> tuple[int, Any, asyncio.StreamWriter]:
    """``GET WATCH`` from ``source``: its status, and the first event's kind (a stream) or the JSON error
    (a refusal), and the connection, left open."""
    reader, writer = await connect(web, source)
    writer.write(f"GET {WATCH} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    status, body = await answer_head(reader)
    if status != 200:
        return status, json.loads(body), writer
    event = await asyncio.wait_for(reader.readuntil(b"\n\n"), 10)
    return status, event.split(b"\n")[1].removeprefix(b"event: ").decode(), writer


async def closed_after(reader: asyncio.StreamReader, within_s: float) -> tuple[float, bytes]:
    """Seconds until the dashboard closed the connection (everything it sent meanwhile); fails past
    ``within_s``."""
    start = time.monotonic()
    got = b""
    async with asyncio.timeout(within_s):
        while chunk := await reader.read(65536):
            got += chunk
    return time.monotonic() - start, got


async def until(condition: Any, within_s: float = 10) -> None:
    async with asyncio.timeout(within_s):
        while not condition():
            await asyncio.sleep(0.02)


async def test_one_address_cannot_take_every_live_view(dashboards: Any) -> None:
    """Item 2: one address follows at most ``client_watches`` live games at once; one more is refused with
    429 saying why and what to do, while another address is served, and a view closed frees its slot."""
    web = await dashboards(WebLimits(client_watches=2))
    views = [await live_view(web, "127.0.0.2") for _ in range(2)]
    assert [(status, kind) for status, kind, _ in views] == [(200, "snapshot")] * 2
    status, refusal, _ = await live_view(web, "127.0.0.2")
    assert status == 429
    assert refusal["error"] == (
        "too many live games followed from 127.0.0.2: 2 are open, at most 2 at once; close one (each page "
        "following a live game holds one) and retry in 10 s"
    )
    assert (await live_view(web, "127.0.0.3"))[:2] == (200, "snapshot")  # another visitor is served
    views[0][2].close()
    await until(lambda: web.dashboard.asgi.watching.get("127.0.0.2") == 1)
    assert (await live_view(web, "127.0.0.2"))[:2] == (200, "snapshot")


async def test_a_refused_live_view_tells_the_visitor_why_in_the_page(
    dashboards: Any, browser: Browser
) -> None:
    """Item 2, in the browser: an EventSource cannot read a refusal's words, so the page says what may
    have refused it and what to do, instead of "Connecting" for ever."""
    web = await dashboards(WebLimits(client_watches=1))
    _view = await live_view(web, "127.0.0.1")  # the browser's address has its one live view already
    page, _ = await open_page(browser, f"http://127.0.0.1:{web.port}/#/game/{GAME}")
    refused = page.locator("p.error.refused")
    await refused.wait_for(timeout=10_000)
    text = await refused.inner_text()
    assert "too many live games are open from your address" in text and "Reload the page" in text


async def test_live_views_asked_for_all_at_once_get_no_more_than_the_bound(dashboards: Any) -> None:
    """Item 2: a slot is taken when the request is, not when its stream starts: twenty requests at once
    from one address get two streams."""
    web = await dashboards(WebLimits(client_watches=2))
    answers = await asyncio.gather(*(live_view(web, "127.0.0.2") for _ in range(20)))
    assert sorted(status for status, _, _ in answers) == [200] * 2 + [429] * 18


async def test_a_live_view_nobody_reads_is_cut_and_frees_its_slot(dashboards: Any) -> None:
    """Item 2: "`/watch` SSE, never reading": a stream whose client stops reading is cut once its answer
    has stood unread ``send_timeout_s``, and what it held (its slot, its game stream, its connection) is
    freed; a reader that keeps up is not cut."""
    feed = EndlessFeed(batch=2000, every_s=0)  # about 40 KB an event, as fast as they are taken
    web = await dashboards(WebLimits(send_timeout_s=1.5), feed)
    reader, writer = await connect(web, "127.0.0.2")
    writer.write(f"GET {WATCH} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    await until(lambda: feed.streams == 1)  # ... and never reads a byte
    await until(lambda: feed.streams == 0 and web.connections.total == 0, within_s=20)
    assert web.dashboard.asgi.watching == {}
    writer.close()

    reader, writer = await connect(web, "127.0.0.3")
    writer.write(f"GET {WATCH} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    end = time.monotonic() + 4.5
    while time.monotonic() < end:  # three times the deadline, reading all the while
        assert await asyncio.wait_for(reader.read(2**20), 5), "a reader that keeps up was cut"
    assert feed.streams == 1
    writer.close()


async def test_a_request_head_sent_a_byte_at_a_time_is_cut_at_its_deadline(dashboards: Any) -> None:
    """Item 3: "800 slowloris connections (headers at one byte a second) ... were held for good": a request
    not whole ``request_timeout_s`` after its connection opened is answered 408 and closed."""
    web = await dashboards(WebLimits(request_timeout_s=1.0))
    reader, writer = await connect(web, "127.0.0.2")

    async def trickle() -> None:
        for byte in b"GET /api/queues HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 1000:
            writer.write(bytes([byte]))
            await asyncio.sleep(0.05)

    sending = asyncio.create_task(trickle())
    took, answer = await closed_after(reader, within_s=5)
    sending.cancel()
    assert 0.9 <= took < 3, f"closed after {took:.1f} s"
    assert answer.startswith(b"HTTP/1.1 408 "), answer
    assert b"did not arrive whole within 1 s" in answer and b"send each request whole, at once" in answer
    assert web.connections.total == 0


async def test_a_silent_connection_is_closed_at_its_deadline(dashboards: Any) -> None:
    """Item 3: "2,000 silent ones were held for good": a connection that sends nothing is closed, without a
    word, ``request_timeout_s`` after it opened."""
    web = await dashboards(WebLimits(request_timeout_s=1.0))
    reader, _ = await connect(web, "127.0.0.2")
    took, answer = await closed_after(reader, within_s=5)
    assert 0.9 <= took < 3 and answer == b""


async def test_a_kept_alive_connection_has_the_deadline_for_its_next_request_too(dashboards: Any) -> None:
    """Item 3: uvicorn's keep-alive clock stops at the next request's first byte, so a slowloris after one
    honest request would be held for good; the next request has the same deadline as the first."""
    web = await dashboards(WebLimits(request_timeout_s=1.0))
    reader, writer = await connect(web, "127.0.0.2")
    writer.write(b"GET /api/queues HTTP/1.1\r\nHost: x\r\n\r\n")
    assert (await answer_head(reader))[0] == 200
    writer.write(b"G")  # uvicorn's keep-alive clock stops here

    async def trickle() -> None:
        for byte in b"ET /api/queues HTTP/1.1\r\nX-Slow: " + b"a" * 1000:
            await asyncio.sleep(0.05)
            writer.write(bytes([byte]))

    sending = asyncio.create_task(trickle())
    took, answer = await closed_after(reader, within_s=5)
    sending.cancel()
    assert took < 3 and answer.startswith(b"HTTP/1.1 408 "), (took, answer)


async def test_one_address_cannot_hold_every_connection(dashboards: Any) -> None:
    """Item 3 (and the issue's title): one address holds at most ``client_connections`` connections; one
    more is answered 429 at once, saying why, and closed, while another address is served."""
    web = await dashboards(WebLimits(client_connections=3, request_timeout_s=30))
    held = [await connect(web, "127.0.0.2") for _ in range(3)]
    await until(lambda: web.connections.by_client.get("127.0.0.2") == 3)
    reader, _ = await connect(web, "127.0.0.2")
    took, answer = await closed_after(reader, within_s=5)
    assert took < 2, "refused at once, not at the request deadline"
    assert answer.startswith(b"HTTP/1.1 429 ") and b"retry-after: 5" in answer.lower(), answer
    error = json.loads(answer.partition(b"\r\n\r\n")[2])["error"]
    assert error == (
        "too many connections from 127.0.0.2: 3 are open, at most 3 at once; close some (or send your "
        "requests over fewer, kept alive) and retry in 5 s"
    )
    assert b"content-security-policy" in answer.lower(), "a refusal carries the security headers"
    assert await get(web, "127.0.0.3", "/api/queues") == (200, {"queues": ["duel"]})
    held[0][1].close()
    await until(lambda: web.connections.by_client.get("127.0.0.2") == 2)
    assert (await get(web, "127.0.0.2", "/api/queues"))[0] == 200


async def test_at_the_connection_limit_visitors_are_told_and_the_log_says_so(dashboards: Any) -> None:
    """Item 3: "at the 20,000 open-file limit it answered no visitor for ~40 s and logged nothing": past
    ``connections`` in all, a visitor is answered 503 with Retry-After, and the log says why (one line,
    however many are refused)."""
    web = await dashboards(WebLimits(connections=3, request_timeout_s=30))
    _held = [await connect(web, f"127.0.0.{n}") for n in (2, 3, 4)]
    await until(lambda: web.connections.total == 3)
    with structlog.testing.capture_logs() as logs:
        answers = [await get(web, "127.0.0.5", "/api/queues") for _ in range(5)]
    assert {status for status, _ in answers} == {503}
    assert answers[0][1]["error"] == (
        "the dashboard is serving as many connections as it can (3); retry in 5 s"
    )
    [line] = [entry for entry in logs if entry["event"] == "dashboard_connections_full"]
    assert "server.dashboard_connection_limit" in line["detail"] and "reverse proxy" in line["detail"]


def test_the_connection_limit_stays_below_the_open_file_limit() -> None:
    """Item 3: each connection is an open file; a limit the process could not reach before running out of
    files would never be hit (accepting fails silently instead), so it is lowered, and the log says so."""
    assert within_open_files(4000, None) == 4000
    assert within_open_files(4000, 1_048_576) == 4000
    with structlog.testing.capture_logs() as logs:
        lowered = OpenConnections(WebLimits(connections=4000), open_files=1024)
    assert lowered.limit == 1024 - FILE_RESERVE
    [line] = logs
    assert line["event"] == "dashboard_connection_limit_lowered" and "ulimit -n" in line["detail"]


async def test_conquest_serve_gives_its_dashboard_the_configured_limits(tmp_path: Path) -> None:
    """Each limit is a setting (docs/configuration.md): ``server.dashboard_request_timeout_ms`` reaches the
    dashboard's process."""
    dashboard = free_port()
    serve = Serve(
        tmp_path,
        '[server]\naddress = "127.0.0.1:0"\ndatabase_url = ""\nmetrics_port = 0\nlog_format = "json"\n',
        env={
            "CONQUEST_SERVER_DASHBOARD_PORT": str(dashboard),
            "CONQUEST_SERVER_DASHBOARD_REQUEST_TIMEOUT_MS": "1000",
        },
    )
    try:
        await serve.serving()
        reader, _ = await asyncio.open_connection("127.0.0.1", dashboard)
        took, _ = await closed_after(reader, within_s=10)
        assert 0.9 <= took < 5
    finally:
        serve.stop(30)
