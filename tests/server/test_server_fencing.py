"""Issue 20, fencing: "a replica that comes back after being presumed dead does not play games that were
handed over". A server whose game another server claimed (its epoch moved on in the database) stops it at
its next log write: its bots are told, and it records nothing of the game."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

from live_server import no_timebank, serving
from raw_client import RawBot

from engine import preset
from server.ops.config import QueueConfig
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
            assert other.claim_game(game_id, epoch, actions, "the-other-server", 7, "c") is not None
            codes = await asyncio.wait_for(asyncio.gather(*plays), 20)
            assert codes == ["game_handed_over", "game_handed_over"]
            await asyncio.sleep(0.5)
            assert game_id not in server.lobby.runners
            assert other.games() == [], "the fenced server recorded no result"
            assert other.live_games() == [(game_id, "the-other-server", epoch + 1, actions)]
        assert not (replays / f"{game_id}.json").exists()
