"""The SDK client's session logic, driven message by message without a server."""

from __future__ import annotations

from conquest.v1 import bot_pb2
from conquest_bots.random_bot import RandomBot
from conquest_sdk import Client


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
