"""Issue 20, fencing: "a replica that comes back after being presumed dead does not play games that were
handed over". A server whose game another server claimed (its epoch moved on in the database) stops it at
its next log write: its bots are told, and it records nothing of the game. And a game that ends between two
heartbeats is opened once as it starts, and its result, recorded once, removes its record."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Sequence
from pathlib import Path

import pytest
from live_server import no_timebank, serving
from raw_client import RawBot

from engine import preset
from server.ops.config import QueueConfig
from server.records import ActionBatch, ClusterCounts, Heartbeat
from server.storage import Store

DUEL = QueueConfig("duel", preset("classic_two_player", turn_cap=200), 2, no_timebank(20_000))


async def _answer(bot: RawBot, rng: random.Random) -> str:
    """Answer every request at random until an Error comes; its code."""
    while True:
        message = await bot.next(timeout=20)
        kind = message.WhichOneof("message")
        if kind == "error":
            return message.error.code
        if kind == "decision_request":
            await asyncio.sleep(0.01)
            bot.answer_randomly(message.decision_request, rng)


async def test_a_server_whose_game_was_claimed_stops_it_and_records_nothing(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'conquest.sqlite3'}"
    replays = tmp_path / "replays"
    async with serving([DUEL], replays, database_url=url, takeover=True, replica_heartbeat_ms=200) as server:
        bots = [server.bot(), server.bot()]
        for name, bot in zip(("ann", "bob"), bots, strict=True):
            await bot.hello(name)
            await bot.join("duel", games=1)  # no second game once this one is gone
        plays = [asyncio.create_task(_answer(b, random.Random(i))) for i, b in enumerate(bots)]
        with Store.open(url) as other:  # another server that presumed this one dead
            for _ in range(100):
                live = other.live_games()
                if live and live[0][3] > 0:
                    break
                await asyncio.sleep(0.1)
            game_id, _, epoch, actions = live[0]
            other.beat("the-other-server", [])  # registered and beating: this server does not claim it back
            assert other.claim_game(game_id, epoch, actions, "the-other-server", 7, "c") is not None
            codes = await asyncio.wait_for(asyncio.gather(*plays), 20)
            assert codes == ["game_handed_over", "game_handed_over"]
            await asyncio.sleep(0.5)
            assert game_id not in server.lobby.runners
            assert other.games() == [], "the fenced server recorded no result"
            assert other.live_games() == [(game_id, "the-other-server", epoch + 1, actions)]
        assert not (replays / f"{game_id}.json").exists()


async def test_a_game_that_ends_between_two_heartbeats_is_opened_once_and_its_result_removes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ "a game's record (its header: rules, seed, seats, host, epoch, rated) is in the database before the
    game sends its first request" and "without hitting the database once per decision": a duel played out
    between two heartbeats has its record written once, alone, as it starts (``open_games``); no heartbeat,
    not even the next one, carries anything of it; its result is recorded once and its live record goes."""
    url = f"sqlite:///{tmp_path / 'conquest.sqlite3'}"
    quick = QueueConfig("quick", preset("classic_two_player", turn_cap=2), 2, no_timebank(20_000))
    async with serving(
        [quick],
        tmp_path / "replays",
        database_url=url,
        takeover=True,
        replica_heartbeat_ms=60_000,  # one beat at the start, and none during the game
        replica_timeout_ms=120_000,
    ) as server:
        assert server.takeover is not None and server.store is not None
        store = server.store
        real_beat, real_open = store.beat, store.open_games  # the action log the server writes to
        sent: list[str] = []
        opened: list[tuple[str, int, bool]] = []

        def beat(
            replica: str,
            batches: Sequence[ActionBatch],
            leaving: bool = False,
            counts: ClusterCounts | None = None,
        ) -> Heartbeat:
            sent.extend(b.game_id for b in batches)
            return real_beat(replica, batches, leaving, counts)

        def open_games(replica: str, batches: Sequence[ActionBatch]) -> dict[str, str]:
            opened.extend((b.game_id, b.count, b.game is not None) for b in batches)
            return real_open(replica, batches)

        monkeypatch.setattr(store, "open_games", open_games)
        monkeypatch.setattr(store, "beat", beat)
        bots = [server.bot(), server.bot()]
        for name, bot in zip(("ann", "bob"), bots, strict=True):
            await bot.hello(name)
            await bot.join("quick", games=1)
        overs = await asyncio.gather(*(b.play_until_over(random.Random(i)) for i, b in enumerate(bots)))
        game_id = overs[0].game_id
        for _ in range(100):
            if store.games():
                break
            await asyncio.sleep(0.05)
        await server.takeover[0].scan()  # the next heartbeat: the game is over, nothing of it is due
        assert sent == []
        assert opened == [(game_id, 0, True)], "its record, alone, once"
        assert [g.id for g in store.games()] == [game_id]
        assert store.live_games() == []
