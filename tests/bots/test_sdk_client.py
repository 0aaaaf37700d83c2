"""The SDK client's session logic, driven message by message without a server."""

from __future__ import annotations

from conquest.v1 import bot_pb2
from conquest_bots.random_bot import RandomBot
from conquest_sdk import Client
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
