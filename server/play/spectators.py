"""The spectators of one game: each gets a snapshot, then the public events as they happen, then GameOver.

Every spectator is sent the same messages: each batch of events becomes one GameEvents for all of them,
read in one piece from the public views the event log wrote (the wire writes events only as bytes); a RISK
2210 A.D. game's runner builds its own messages (``WatchEvents2210``) and hands them to ``send``.
Compiled: the runner tells it of every action.
"""

from __future__ import annotations

from conquest.v1 import arena_pb2, bot_pb2
from server.play import wire
from server.play.mailbox import Mailbox

Spectator = Mailbox[arena_pb2.WatchGameResponse | None]
"""A spectator's stream: a snapshot, event batches, GameOver, then None when the stream ends. Bounded: a
spectator that stops reading overflows it and is dropped (``server.play.mailbox.deliver``)."""


class Spectators:
    """Who watches ``game_id``, and what they were told of its end."""

    def __init__(self, game_id: str) -> None:
        self.game_id = game_id
        self._watching: dict[Spectator, None] = {}
        """In the order they came: a dict, so that leaving is cheap."""
        self._game_over: bot_pb2.GameOver | None = None

    def add(self, snapshot: arena_pb2.GameSnapshot, limit: int) -> Spectator:
        """A new spectator's stream of at most ``limit`` unread messages, starting with ``snapshot`` (the
        board now, before any event it will be sent); a game that is over and told so adds GameOver and
        ends the stream."""
        spectator: Spectator = Mailbox(max(limit, 3))
        spectator.put(arena_pb2.WatchGameResponse(snapshot=snapshot))
        if self._game_over is not None:  # nothing more will come
            spectator.put(arena_pb2.WatchGameResponse(game_over=self._game_over))
            spectator.put(None)
        else:
            self._watching[spectator] = None
        return spectator

    def remove(self, spectator: Spectator) -> None:
        self._watching.pop(spectator, None)

    @property
    def watched(self) -> bool:
        """Someone is watching (a message for them is worth building)."""
        return bool(self._watching)

    def send(self, message: arena_pb2.WatchGameResponse) -> None:
        """Send every spectator ``message`` (one message shared: nobody changes it)."""
        for spectator in self._watching:
            spectator.put(message)

    def send_events(self, events: list[bytes]) -> None:
        """Send every spectator ``events`` (public views, serialized) as one GameEvents."""
        if not self._watching:
            return
        batch = bot_pb2.GameEvents.FromString(wire.serialized_game_events(self.game_id, events))
        self.send(arena_pb2.WatchGameResponse(events=batch))

    def send_game_over(self, over: bot_pb2.GameOver) -> None:
        self._game_over = over
        self.send(arena_pb2.WatchGameResponse(game_over=over))

    def end(self) -> None:
        """End every spectator's stream (the game's task is done)."""
        for spectator in self._watching:
            spectator.put(None)
