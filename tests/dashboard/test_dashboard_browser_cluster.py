"""Issue 20, "Metrics and the dashboard see the whole cluster: which replica hosts which game, replicas
alive, lease holder, games handed over": the dashboard beside one replica of three (real `conquest serve`
processes on PostgreSQL) shows, in its JSON and in Chromium, every replica and a game another replica
hosts, with that host, and draws that game live, relayed from its host ("a bot never needs to know there is
more than one process": nor a dashboard); a game whose host is killed mid-game is followed to its new host."""

from __future__ import annotations

import asyncio
import json
import time
import urllib.request
from pathlib import Path
from typing import Any

import grpc
from chromium import open_page
from playwright.async_api import Browser
from replicas import (
    ADMIN,
    Replicas,
    counted,
    hosted,
    kill_and_restart,
    lease_holder,
    listed_with_host,
    mid_game,
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
        game = await mid_game(replicas, tokens)
        playing, game_id, index = game.playing, game.game_id, game.host_index
        feed = LiveFeed(replicas.address(game.other))
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


@postgresql_only
async def test_after_a_drain_the_dashboard_shows_the_games_handed_over_and_relayed_decisions(
    tmp_path: Path, db_url: str, browser: Browser
) -> None:
    """ "Metrics and the dashboard see the whole cluster: ... games handed over, relayed decisions": two
    games hosted on one replica (four of their six bots connected there, one seat relayed) are handed
    over as it drains; once they finish, /api/cluster beside another replica counts, in the cluster's
    totals, the two games handed over by the replica gone and the two taken over, and relayed decisions
    both ways; the Cluster table shows each replica's counts and the totals."""
    names = ("ann", "bob", "cat", "dan", "eve", "fay")
    with Store.open(db_url, admin_token=ADMIN) as store:
        tokens = {n: store.register_bot(n, admin_token=ADMIN).token for n in names}
    replicas = Replicas(tmp_path, db_url, 3, turn_cap=25, grace_ms=60_000)
    try:
        ids = await replicas.serving()
        await replicas.seeing_each_other()
        where = (0, 0, 0, 0, 0, 1)  # any three of them: most seats on replica 0, which hosts their game
        playing = play_trio(replicas, tokens, 0.015, on=where)
        await _hosting(db_url, ids[0], games=2, actions=20, timeout=60)
        assert replicas.servers[0].stop(timeout=60) == 0, "drained"
        replicas.servers.append(replicas.start(0, "restarted"))  # where its bots reconnect
        await asyncio.wait_for(playing, 120)
        listed = await counted(replicas.address(1), lambda r: r.totals.games_taken_over >= 2, 10)
        with Store.open(db_url) as store:
            feed = LiveFeed(replicas.address(1))
            web = await start_dashboard(Ledger(store, ("trio",), feed.ids), feed, 0, host="127.0.0.1")
            try:
                cluster = await asyncio.to_thread(_get, f"{web.url}api/cluster")
                page, errors = await open_page(browser, f"{web.url}#/games")
                await page.wait_for_selector("table.cluster tfoot tr.totals")
                total_row = await page.locator("table.cluster tfoot tr.totals td").all_inner_texts()
                rows = await page.locator("table.cluster tbody tr").all_inner_texts()
            finally:
                await web.stop()
    finally:
        replicas.stop()
    totals = cluster["totals"]
    assert (totals["games_handed_over"], totals["games_taken_over"]) == ("2", "2"), totals
    assert int(totals["relayed_decisions_played"]) > 0 and int(totals["relayed_decisions_sent"]) > 0
    assert listed.totals.games_handed_over == 2
    assert ids[0] not in {r["id"] for r in cluster["replicas"]}, "the drained replica left the registry"
    taken = [int(r["counts"]["games_taken_over"]) for r in cluster["replicas"]]
    assert sum(taken) == 2, "the two games, taken by the replicas still registered"
    assert total_row[2:4] == ["2", "2"], "handed over, taken over"
    shown = [int(cell) for cell in total_row[4:6]]
    fetched = [int(totals[k]) for k in ("relayed_decisions_played", "relayed_decisions_sent")]
    assert all(s >= f for s, f in zip(shown, fetched, strict=True)), "the page's, a heartbeat or so later"
    assert len(rows) == len(cluster["replicas"])
    assert errors == []


async def _hosting(url: str, host: str, games: int, actions: int, timeout: float) -> None:
    """Until ``games`` games run on replica ``host``, each with ``actions`` logged actions."""
    deadline = time.monotonic() + timeout
    with Store.open(url) as store:
        while time.monotonic() < deadline:
            live = store.live_games()
            if len(live) == games and all(h == host and n >= actions for _, h, _, n in live):
                return
            await asyncio.sleep(0.1)
        raise AssertionError(f"not {games} games on {host} with {actions} actions: {store.live_games()}")
