"""RISK 2210 A.D. over real gRPC (issue 19): queues 2210-2..2210-5 play to a result with the Python SDK's
random bot, bids are asked of every seat at once, a bad bid is rejected with what was legal while the game
goes on, and the replay verifies."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from live_server import LiveServer, serving
from server_support import FAST

from conquest.v1 import bot_pb2, r2210_pb2
from conquest_bots.random_bot import RandomBot
from conquest_sdk import Client, Game, Turn2210
from engine.r2210.rules import Rules2210
from server.cli.main import main
from server.ops.config import ConfigError, default_queues, queue_2210
from server.ops.config_file import load_config
from server.play.replays import load_any_replay_file, verify_record

YEARS = 2
"""Short games: two years instead of five."""
FINISHED = {bot_pb2.SEAT_OUTCOME_WON, bot_pb2.SEAT_OUTCOME_ELIMINATED, bot_pb2.SEAT_OUTCOME_SURVIVED}


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[LiveServer]:
    control = dataclasses.replace(FAST, max_strikes=1000)
    queues = [queue_2210(n, control, Rules2210(years=YEARS)) for n in (2, 3, 4, 5)]
    async with serving(queues, tmp_path / "replays") as live:
        yield live


class Recording(RandomBot):
    """The random bot, keeping every 2210 request it was sent; its first bid asks one energy too many."""

    def __init__(self, seed: int, overbid: bool = False) -> None:
        super().__init__(seed)
        self.requests: list[bot_pb2.DecisionRequest] = []
        self.overbid = overbid

    def decide_2210(self, game: Game, turn: Turn2210) -> r2210_pb2.Action2210:
        self.requests.append(turn.request)
        if self.overbid and turn.phase == r2210_pb2.PHASE2210_BID:
            self.overbid = False
            return r2210_pb2.Action2210(bid=r2210_pb2.BidAction(energy=turn.legal.bid_max + 1))
        return super().decide_2210(game, turn)


class RejectionsSeen(Client):
    """A client that also keeps the DecisionRejected it was sent."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.rejections: list[bot_pb2.DecisionRejected] = []

    def _on_decision_rejected(self, rejected: bot_pb2.DecisionRejected) -> None:
        self.rejections.append(rejected)
        super()._on_decision_rejected(rejected)


def test_the_default_config_has_rated_2210_queues_for_2_to_5_players() -> None:
    """Issue 19: "Queues `2210-2` ... `2210-5` in the default config; rated on the ladder"."""
    queues = {q.name: q for q in default_queues() if q.r2210 is not None}
    assert sorted(queues) == ["2210-2", "2210-3", "2210-4", "2210-5"]
    assert all(q.rated and q.players == int(name[-1]) for name, q in queues.items())


def test_a_config_file_declares_a_2210_queue_and_bad_values_are_refused_naming_what_is_allowed(
    tmp_path: Path,
) -> None:
    """Issue 19: 2210 queues in the config; every user-facing error says what would be right."""
    path = tmp_path / "conquest.toml"
    path.write_text('[queues.short-2210]\nrules = "2210"\nplayers = 3\nrules_options = { years = 3 }\n')
    (queue,) = load_config(path, environ={}).queues
    assert queue.r2210 == Rules2210(years=3) and queue.rules_name == "2210" and queue.players == 3
    path.write_text('[queues.q]\nrules = "2210"\nplayers = 6\n')
    with pytest.raises(ConfigError, match="rules '2210' allow 2, 3, 4, 5"):
        load_config(path, environ={})
    path.write_text('[queues.q]\nrules = "2210"\nplayers = 4\nrules_options = { turn_cap = 9 }\n')
    with pytest.raises(ConfigError, match=r"unknown key 'turn_cap'.*allowed keys: .*years"):
        load_config(path, environ={})


@pytest.mark.parametrize("players", [2, 3, 4, 5])
async def test_python_bots_play_a_whole_2210_game_and_its_replay_verifies(
    server: LiveServer, players: int, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 19: "`make test` ... plays 2210 end to end over gRPC for every player count with Python bots";
    "replays verify; the dice commitment covers the d8 rolls and every deck"; bids are "a simultaneous
    decision asked of every seat at once"; "a bid above your energy ... get[s] a rejection that names what
    was legal; the game goes on"."""
    queue = f"2210-{players}"
    bots = [Recording(seed, overbid=seed == 0) for seed in range(players)]
    clients = [
        RejectionsSeen(bot, server.address, name=f"r2210-{i}", queues=[queue], games=1)
        for i, bot in enumerate(bots)
    ]
    results = await asyncio.wait_for(asyncio.gather(*(c.run() for c in clients)), 240)
    over = results[0][0]
    assert all(r[0] == over for r in results)
    assert sorted(r.place for r in over.results)[0] == 1
    assert all(r.outcome in FINISHED for r in over.results), over
    assert over.reason in ("year_5", "conquest") and 1 <= over.turns <= YEARS

    path = server.replay_dir / f"{over.game_id}.json"
    replay, data = load_any_replay_file(path)
    state = verify_record(replay, data)  # the seed commitment, every action, places and final state
    capsys.readouterr()  # the server's logs so far
    assert main(["replay", "verify", str(path)]) == 0
    assert f"OK   {path}: " in capsys.readouterr().out
    tampered = path.with_name("tampered.json")
    tampered.write_text(json.dumps({**data, "seed": data["seed"] + 1}))
    assert main(["replay", "verify", str(tampered)]) == 1
    assert "does not match the seed commitment" in capsys.readouterr().out
    assert [r.place for r in over.results] == list(state.places)
    assert data["game"] == "2210" and data["rules"]["years"] == YEARS

    first_bids = [
        next(r for r in bot.requests if r.r2210.legal.phase == r2210_pb2.PHASE2210_BID) for bot in bots
    ]
    assert all(sorted(r.r2210.observation.asked) == list(range(players)) for r in first_bids)
    assert all(r.r2210.legal.bid_max == r.r2210.observation.energy[seat] for seat, r in enumerate(first_bids))
    (rejected,) = clients[0].rejections
    assert rejected.can_retry
    assert f"bid 0 to {first_bids[0].r2210.legal.bid_max} energy" in rejected.reason
