"""Issue 20, "Metrics and the dashboard see the whole cluster: which replica hosts which game, replicas
alive, lease holder, games handed over": the dashboard beside one replica of three (real `conquest serve`
processes on PostgreSQL) shows, in its JSON and in Chromium, every replica and a game another replica
hosts, with that host, and draws that game live, relayed from its host ("a bot never needs to know there is
more than one process": nor a dashboard); a game whose host is killed mid-game is followed to its new host."""

from __future__ import annotations

import asyncio
import json
import urllib.request
from pathlib import Path
from typing import Any

import grpc
from chromium import open_page
from playwright.async_api import Browser
from replicas import (
    Replicas,
    hosted,
    kill_and_restart,
    lease_holder,
    listed_with_host,
    play_trio,
    postgresql_only,
    register,
)

from conquest.v1 import arena_pb2_grpc
from server.arena.ledger import Ledger
from server.storage import Store
from server.web.dashboard import start_dashboard
from server.web.live import LiveFeed


def _get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as answer:
        return json.loads(answer.read())


def _first_event(url: str) -> tuple[str, Any]:
    """The first server-sent event of ``url``: its kind and data."""
    with urllib.request.urlopen(url, timeout=10) as stream:
        lines = [stream.readline().decode().strip() for _ in range(2)]
    return lines[0].removeprefix("event: "), json.loads(lines[1].removeprefix("data: "))


@postgresql_only
async def test_the_dashboard_of_one_replica_shows_the_clusters_replicas_and_games(
    tmp_path: Path, db_url: str, browser: Browser
) -> None:
    """ "which replica hosts which game, replicas alive, lease holder": /api/cluster and /api/games of the
    dashboard beside a replica that does not host the game list every replica (alive, the lease holder)
    and the game with its host; the Games page shows them; the game's page draws it live (its stream
    relayed from its host)."""
    replicas = Replicas(tmp_path, db_url, 3)
    try:
        ids = await replicas.serving()
        playing = play_trio(replicas, register(db_url), 0.03)
        game_id, host = await hosted(db_url, actions=10, timeout=60)
        other = next(i for i in range(3) if ids[i] != host)
        holder = ids[await lease_holder(replicas, 10)]
        async with grpc.aio.insecure_channel(replicas.address(other)) as channel:
            await listed_with_host(arena_pb2_grpc.ArenaServiceStub(channel), game_id, 5)
        with Store.open(db_url) as store:
            feed = LiveFeed(replicas.address(other))
            web = await start_dashboard(Ledger(store, ("trio",), feed.ids), feed, 0, host="127.0.0.1")
            try:
                cluster = await asyncio.to_thread(_get, f"{web.url}api/cluster")
                games = await asyncio.to_thread(_get, f"{web.url}api/games")
                event = await asyncio.to_thread(_first_event, f"{web.url}api/games/{game_id}/watch")
                page, errors = await open_page(browser, f"{web.url}#/games")
                await page.wait_for_selector(f"table.cluster tr[data-replica='{holder}']")
                rows = await page.locator("table.cluster tbody tr").all_inner_texts()
                hosts = await page.locator("table.live-games td.host").all_inner_texts()
                await page.goto(f"{web.url}#/game/{game_id}")
                await page.wait_for_selector(".game-head .badge.live")
                territories = await page.locator("svg.board .territory").count()
                await page.goto(f"{web.url}#/games")  # leaving the game closes its stream, as a visitor's
                await page.wait_for_selector("table.cluster")
            finally:
                await web.stop()
        await asyncio.wait_for(playing, 120)
    finally:
        replicas.stop()
    assert cluster["replica"] == ids[other]
    assert {(r["id"], r["alive"]) for r in cluster["replicas"]} == {(i, True) for i in ids}
    assert [r["id"] for r in cluster["replicas"] if r["lease_holder"]] == [holder]
    assert cluster["handed_over"] == [], "no game changed replica"
    assert {g["game_id"]: g["host"] for g in games["live"]} == {game_id: host}
    assert event[0] == "snapshot" and event[1]["game_id"] == game_id
    assert len(rows) == 3 and any("matchmaker lease" in r and holder in r for r in rows)
    assert hosts == [host]
    assert territories == 42, "the board, drawn live"
    assert errors == []


@postgresql_only
async def test_the_dashboards_live_view_follows_a_game_whose_host_is_killed_to_its_new_host(
    tmp_path: Path, db_url: str
) -> None:
    """ "a bot never needs to know there is more than one process", nor a dashboard: the live feed of a
    dashboard beside a replica that does not host a game follows it, relayed; its host is killed (SIGKILL)
    mid-game, another replica takes the game over, and the feed goes on with a new snapshot from there (the
    page draws the board afresh) to the game's GameOver, with no error."""
    tokens = register(db_url)
    replicas = Replicas(tmp_path, db_url, 3)
    try:
        ids = await replicas.serving()
        playing = play_trio(replicas, tokens, 0.01)
        game_id, host = await hosted(db_url, actions=30, timeout=60)
        index = ids.index(host)
        feed = LiveFeed(replicas.address(next(i for i in range(3) if i != index)))
        try:
            stream = await feed.watch(game_id)
            assert stream is not None
            kinds = [(await anext(stream)).WhichOneof("message")]
            await kill_and_restart(replicas, index)
            kinds += [m.WhichOneof("message") async for m in stream]
        finally:
            await feed.close()
        await asyncio.wait_for(playing, 120)
    finally:
        replicas.stop()
    assert kinds[0] == "snapshot" and kinds.count("snapshot") == 2, "a second snapshot, from the new host"
    assert kinds[-1] == "game_over" and set(kinds[1:-1]) == {"events", "snapshot"}
