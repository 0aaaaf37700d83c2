"""A stream's free slots shared across its queues (issue 34, item 8: "One stream joined to 15 queues with
capacity 15 got all 214 of its games from the first queue joined; the 14 others never got a slot (a
freed slot goes straight back to the queue of the game that freed it). Share a stream's free slots across
its queues fairly, document how, and test it.")."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

from live_server import serving
from server_support import FAST

from conquest.v1 import bot_pb2
from engine import preset
from server.ops.config import QueueConfig
from server.play.matchmaker import Matchmaker
from server.records import practice_identity

QUEUES = [f"q{n:02}" for n in range(15)]


def house_queues() -> tuple[QueueConfig, ...]:
    """15 two-player queues whose second seat is a house opponent: a bot is seated as soon as it has a free
    slot, so only the sharing of its slots decides which queue gets the next game."""
    rules = preset("classic_two_player", turn_cap=2)
    return tuple(QueueConfig(name, rules, 2, FAST, house_opponents=("random",)) for name in QUEUES)


async def test_one_stream_in_15_queues_gets_games_from_every_queue(tmp_path: Path) -> None:
    """The issue's scenario: one stream, capacity 15, joined to 15 queues, its games ended one by one
    (stopped here, so that only the seating is under test). The first queue joined takes every free slot
    it can fill before the next JoinQueue; as its games end, their slots go to the other queues in the order
    they were joined; from then on each queue plays one of the stream's games at a time, so every game
    that ends is followed by one of its own queue (docs/protocol.md, "Several queues share your slots")."""
    async with serving(house_queues(), tmp_path / "replays") as server:
        bot = server.bot()
        await bot.hello("many-queues", capacity=15)
        running: dict[str, str] = {}

        async def next_start() -> str:
            while True:
                message = await bot.next(timeout=30)
                kind = message.WhichOneof("message")
                if kind == "game_started":
                    running[message.game_started.game_id] = message.game_started.queue
                    return message.game_started.queue
                if kind == "game_over":
                    running.pop(message.game_over.game_id, None)

        for queue in QUEUES:
            bot.send(join_queue=bot_pb2.JoinQueue(queue=queue))
        assert [await next_start() for _ in range(15)] == [QUEUES[0]] * 15

        def end(game_id: str) -> None:
            server.lobby.runners[game_id].stop()

        for game_id in [g for g, q in running.items() if q == QUEUES[0]][1:]:
            end(game_id)
            await next_start()
        assert sorted(running.values()) == QUEUES  # the other 14 queues got the first queue's slots, in turn
        rng = random.Random(34)
        started = Counter(running.values())
        for _ in range(200):  # the 214 games
            game_id = rng.choice(sorted(running))
            ended = running[game_id]
            end(game_id)
            assert await next_start() == ended
            started[ended] += 1
        assert sorted(running.values()) == QUEUES
        assert set(started) == set(QUEUES) and min(started.values()) >= 2, started


class _Member:
    """A queue member for the matchmaker alone: free slots counted here."""

    def __init__(self, name: str, capacity: int) -> None:
        self.identity = practice_identity(name)
        self.closed = False
        self.capacity = capacity
        self.playing: Counter[str] = Counter()

    def free_slots(self) -> int:
        return self.capacity - sum(self.playing.values())


def test_free_slots_go_to_the_queue_owed_a_game_most() -> None:
    """Matchmaker.next_games: each next game comes from the queue where a ready bot plays fewest of its games,
    then has waited longest; one game per queue before the order is taken again."""
    now = [0.0]
    queues = {name: 1 for name in QUEUES}  # one bot a game: the rest of the table is the house's
    matchmaker: Matchmaker[_Member] = Matchmaker(queues, clock=lambda: now[0])
    member = _Member("sharer", 15)
    for queue in QUEUES:
        now[0] += 1
        matchmaker.join(queue, member)
    playing = member.playing

    def seat_all() -> list[str]:
        seated = []
        for queue, seating in matchmaker.next_games(QUEUES, playing=lambda q, m: m.playing[q]):
            assert seating.sessions == [member]
            playing[queue] += 1
            seated.append(queue)
        return seated

    assert seat_all() == QUEUES  # 15 free slots, 15 queues: one each, the longest waiting first
    for _ in range(200):  # a random game ends: its slot goes back to a queue now playing none of its games
        now[0] += 1
        ended = random.choice([q for q in QUEUES if playing[q]])
        playing[ended] -= 1
        assert seat_all() == [ended]
    playing.clear()
    now[0] += 1
    # Every slot freed at once: shared again one a queue, the one waiting longest (seated longest ago) first.
    longest_first = sorted(QUEUES, key=lambda q: -matchmaker.waited_s(q, member))
    assert seat_all() == longest_first


def test_a_queue_that_forms_no_table_leaves_the_slot_to_the_next() -> None:
    """A queue owed a game that cannot form a table (its other seats are not ready) does not keep the slot
    from the bot's other queues."""
    matchmaker: Matchmaker[_Member] = Matchmaker({"pair": 2, "solo": 1}, clock=lambda: 0.0)
    member = _Member("sharer", 1)
    matchmaker.join("pair", member)  # waits for a second bot that never comes
    matchmaker.join("solo", member)
    seated = []
    for queue, _ in matchmaker.next_games(["pair", "solo"]):
        member.playing[queue] += 1
        seated.append(queue)
    assert seated == ["solo"]
