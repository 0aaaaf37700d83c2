"""The SDK client's session logic, driven message by message without a server."""

from __future__ import annotations

import asyncio
import time

from conquest.v1 import bot_pb2, game_pb2
from conquest_bots.random_bot import RandomBot
from conquest_sdk import Bot, Client, Game, Turn
from conquest_sdk.cli import parse_args
from conquest_sdk.client import queue_status_line


def _joins(client: Client) -> list[bot_pb2.JoinQueue]:
    sent = []
    while not client._outbox.empty():
        message = client._outbox.get_nowait()
        if message is not None and message.WhichOneof("message") == "join_queue":
            sent.append(message.join_queue)
    return sent


def _started(game_id: str) -> bot_pb2.GameStarted:
    players = [bot_pb2.Player(seat=0, name="me"), bot_pb2.Player(seat=1, name="other")]
    return bot_pb2.GameStarted(game_id=game_id, seat=0, players=players)


async def test_join_asks_the_server_for_only_the_games_still_wanted() -> None:
    """bot.proto JoinQueue.games: the server seats the session in at most that many games from the join,
    so a client asked for N games asks for N, and after a reconnect for those it has not started: no game
    is seated and then abandoned while a LeaveQueue is on its way."""
    client = Client(RandomBot(1), "localhost:0", name="me", queues=["classic-2", "classic-3"], games=3)
    client._on_welcome(bot_pb2.Welcome())
    assert [(j.queue, j.games) for j in _joins(client)] == [("classic-2", 3), ("classic-3", 3)]

    client._on_game_started(_started("g1"))
    client._on_welcome(bot_pb2.Welcome(resumed_game_ids=["g1"]))  # a reconnect during game g1
    assert [j.games for j in _joins(client)] == [2, 2]

    unlimited = Client(RandomBot(1), "localhost:0", name="me", queues=["classic-2"])
    unlimited._on_welcome(bot_pb2.Welcome())
    assert [j.games for j in _joins(unlimited)] == [0]  # 0: no limit


async def test_a_game_listed_as_resumed_that_does_not_come_back_is_not_waited_for() -> None:
    """Issue 20's review: "A Welcome can list a game that does not resume ... the SDK keeps waiting for it
    forever ... the bot must be told ... the SDK stops waiting for it": Error{not_resumed} for a game the
    Welcome listed ends the wait; the game counts as played (lost), so a client that wanted one game is
    done. Another game's Error, or another code, changes nothing."""
    client = Client(RandomBot(1), "localhost:0", name="me", queues=["classic-2"], games=1)
    client._on_welcome(bot_pb2.Welcome())
    client._on_game_started(_started("g1"))
    client._on_welcome(bot_pb2.Welcome(resumed_game_ids=["g1"]))  # a reconnect during game g1
    client._on_error(bot_pb2.Error(code="unknown_game", game_id="g1"))
    client._on_error(bot_pb2.Error(code="not_resumed", game_id="g2"))
    assert list(client.games) == ["g1"] and not client._finished()
    client._on_error(bot_pb2.Error(code="not_resumed", message="it ended", game_id="g1"))
    assert client.games == {} and client._finished(), "g1 is over for the client: it stops"


def test_queue_status_says_why_the_bot_waits() -> None:
    """Issue 23: "a bot waiting in a queue should learn why it waits (how many seats are filled, how long
    it has waited), which the SDK logs"; the README points a lone bot at `conquest practice`."""
    lone = bot_pb2.QueueStatus(queue="classic-2", joined=True, waiting=1, seats=2, ready=1, waited_ms=30_400)
    line = queue_status_line(lone)
    assert line.startswith("queue classic-2: waited 30 s; 1 of 2 seats filled, a game starts when 1 more bot")
    assert "conquest practice" in line
    three = bot_pb2.QueueStatus(queue="classic-4", joined=True, waiting=1, seats=4, ready=1)
    assert "joined; 1 of 4 seats filled, a game starts when 3 more bots join" in queue_status_line(three)
    full = bot_pb2.QueueStatus(queue="classic-2", joined=True, waiting=2, seats=2, ready=2)
    assert queue_status_line(full) == "queue classic-2: joined; 2 of 2 seats filled"
    apart = bot_pb2.QueueStatus(queue="classic-2", joined=True, waiting=2, seats=2, ready=2, waited_ms=9_600)
    assert "waited 10 s; 2 bots ready for a game of 2" in queue_status_line(apart)
    assert "rating" in queue_status_line(apart)
    assert queue_status_line(bot_pb2.QueueStatus(queue="classic-2")) == "queue classic-2: left"


class Instant(Bot):
    """Decides at once: any delay before its answer is sent is the SDK's."""

    def decide(self, game: Game, turn: Turn) -> game_pb2.Action:
        return turn.legal.default()


async def _answer_after(client: Client, time_allowed_ms: int) -> float:
    """Seconds from a DecisionRequest reaching ``client`` (seated in game g1) until its Decision is sent."""
    while not client._outbox.empty():  # the Hello's answers: the JoinQueue
        client._outbox.get_nowait()
    request = bot_pb2.DecisionRequest(
        game_id="g1",
        request_id=7,
        legal=game_pb2.LegalActions(claim=[3, 5]),
        time_allowed_ms=time_allowed_ms,
    )
    asked = time.monotonic()
    client._on_decision_request(request)
    sent = await asyncio.wait_for(client._outbox.get(), 10)
    answered = time.monotonic() - asked
    assert sent is not None and sent.decision.request_id == 7 and sent.decision.action.claim.territory == 3
    return answered


async def test_pace_holds_each_answer_but_never_past_its_deadline() -> None:
    """Issue 32: "`--pace-ms N` ... answer no sooner than N ms after a request arrived (0: at once); a
    demo's bots use it so a visitor can follow a game live": a bot that decides at once answers after the
    pace, and a pace longer than the decision's time still answers within that time (no timeout)."""
    assert parse_args(Instant(), ["--pace-ms", "400"]).pace_ms == 400
    assert parse_args(Instant(), []).pace_ms == 0

    paced = Client(Instant(), "localhost:0", name="me", queues=["classic-2"], pace_ms=400)
    paced._on_welcome(bot_pb2.Welcome())
    paced._on_game_started(_started("g1"))
    assert await _answer_after(paced, time_allowed_ms=5000) >= 0.4 - 0.002  # uvloop's clock counts whole ms

    at_once = Client(Instant(), "localhost:0", name="me", queues=["classic-2"])
    at_once._on_welcome(bot_pb2.Welcome())
    at_once._on_game_started(_started("g1"))
    assert await _answer_after(at_once, time_allowed_ms=5000) < 0.2

    # 300 ms allowed, 25 of them kept back (Client.safety_ms): the pace of 5 s stops at the budget.
    hurried = Client(Instant(), "localhost:0", name="me", queues=["classic-2"], pace_ms=5000)
    hurried._on_welcome(bot_pb2.Welcome())
    hurried._on_game_started(_started("g1"))
    assert 0.2 <= await _answer_after(hurried, time_allowed_ms=300) < 0.3
    for client in (paced, at_once, hurried):
        client._executor.shutdown()


async def test_a_stopped_client_whose_server_is_gone_gives_up_its_games_and_ends(monkeypatch) -> None:
    """Issue 32: "`conquest demo` on SIGTERM dies at once and leaves its 4 bot processes reconnecting
    forever": a client told to stop while it cannot reach its server tries to finish its games for
    STOP_RECONNECT_S (a server keeps a seat that long), then counts them lost and ends."""
    monkeypatch.setattr("conquest_sdk.client.STOP_RECONNECT_S", 0.5)
    client = Client(RandomBot(1), "127.0.0.1:1", name="me", queues=["classic-2"], max_backoff_s=0.1)
    client._on_welcome(bot_pb2.Welcome())
    client._on_game_started(_started("g1"))  # a game in progress when the server went away
    client.stop()
    started = time.monotonic()
    results = await asyncio.wait_for(client.run(), 10)
    assert results == [] and client.games == {} and client._lost == 1
    assert 0.5 <= time.monotonic() - started < 5
