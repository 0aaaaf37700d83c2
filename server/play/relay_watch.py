"""Spectators across replicas (``server.cluster``): WatchGame on a replica that does not host the game is
streamed by the game's host over the relay (``server.play.relay``), so a spectator never needs to know
which replica plays the game.

The spectator's replica sends the host a ``WatchStart``; the host adds a spectator to the game's runner as
for a WatchGame of its own (the same snapshot, events and GameOver, built by the host: what a spectator
may see is the host's to decide) and passes each of its messages on, serialized, in a ``WatchedMessage``
frame; the spectator's replica puts them on its spectator's mailbox as they are. The host ends the stream
with a ``WatchEnded`` (after GameOver, or why it cannot go on); the spectator's replica sends one
(``WATCH_END_LEFT``) when its spectator leaves or falls behind.

Nothing waits on a spectator: the host's mailbox is emptied onto the relay connection as soon as the event
loop runs (a connection that leaves ``relay_link.UNREAD_LIMIT`` bytes unread is cut, as for seats), and the
spectator's replica holds at most ``server.send_queue_limit`` messages for its spectator, dropping it past
that (the WatchGame stream ends as a local spectator's does that stops reading).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from conquest.cluster.v1 import relay_pb2
from conquest.v1 import arena_pb2
from server.play import relay_wire
from server.play.lobby import Lobby
from server.play.mailbox import Mailbox, Overflowed
from server.play.relay_link import Link
from server.play.runner_2210 import AnyRunner
from server.play.spectators import Spectator

CUT = "its relay connection was cut"
"""``RelayedWatch.why`` when the connection to the host dropped mid-stream (the host died or stalled)."""


class RelayedWatch:
    """The spectator's replica's side of one stream relayed from the game's host."""

    def __init__(self, watches: Watches, link: Link, watch_id: int, game_id: str, host: str, limit: int):
        self.watches = watches
        self.link = link
        self.watch_id = watch_id
        self.game_id = game_id
        self.host = host
        self.spectator: Spectator = Mailbox(max(limit, 3))
        """What WatchGame writes (``mailbox.deliver``): the host's messages, then None when it ended."""
        self.end: relay_pb2.WatchEnd.ValueType = relay_pb2.WATCH_END_UNSPECIFIED
        """How the stream ended (the host's ``WatchEnded``; ``WATCH_END_STOPPED`` when the connection was
        cut); ``WATCH_END_UNSPECIFIED`` while it runs."""
        self.why = ""
        """The host's words for an end other than GameOver (``CUT`` for a cut connection)."""

    @property
    def complete(self) -> bool:
        """The stream ended with the game's GameOver."""
        return self.end == relay_pb2.WATCH_END_GAME_OVER

    @property
    def fell_behind(self) -> bool:
        """The host dropped the stream: it fell ``send_queue_limit`` messages behind there."""
        return self.end == relay_pb2.WATCH_END_UNREAD

    def unwatch(self) -> None:
        """The spectator left (its WatchGame ended, however): the host stops streaming to it."""
        self.watches.left(self)

    def ended(self, end: relay_pb2.WatchEnd.ValueType, why: str) -> None:
        self.end, self.why = end, why
        self.spectator.put(None)


class Watches:
    """This replica's relayed spectator streams: those it hosts for spectators on other replicas, and those
    its own spectators watch of games hosted elsewhere."""

    def __init__(self, lobby: Lobby, link: Callable[[str], Link | None]) -> None:
        self.lobby = lobby
        self.link = link
        """The relay with a replica (dialled if need be), None while its address is unknown."""
        self.watching: dict[int, RelayedWatch] = {}
        """Spectator's replica: its streams of games hosted elsewhere, by watch id."""
        self.next_id = 1
        self.streaming: dict[tuple[Link, int], asyncio.Task[None]] = {}
        """Host: (the spectator's replica's link, its watch id) -> the task passing the stream on."""
        gauge = lobby.metrics.relayed_spectators
        self._hosted = gauge.labels("hosted")
        self._elsewhere = gauge.labels("elsewhere")

    # ------------------------------------------------------------------ the spectator's replica

    def watch(self, host: str, game_id: str) -> RelayedWatch | None:
        """A new spectator's stream of ``game_id``, which replica ``host`` plays; None while the host's relay
        address is unknown."""
        link = self.link(host)
        if link is None:
            return None
        limit = self.lobby.config.send_queue_limit
        watch = self.watching[self.next_id] = RelayedWatch(self, link, self.next_id, game_id, host, limit)
        self.next_id += 1
        self._elsewhere.set(len(self.watching))
        link.send(relay_wire.watch(watch.watch_id, game_id))
        return watch

    def left(self, watch: RelayedWatch) -> None:
        if self.watching.get(watch.watch_id) is watch:
            del self.watching[watch.watch_id]
            self._elsewhere.set(len(self.watching))
            watch.link.send(relay_wire.watch_ended(watch.watch_id, relay_pb2.WATCH_END_LEFT))

    def _watched(self, link: Link, watched: relay_pb2.WatchedMessage) -> None:
        watch = self.watching.get(watched.watch_id)
        if watch is not None and watch.link is link:  # a mailbox that overflowed takes nothing more
            watch.spectator.put(arena_pb2.WatchGameResponse.FromString(watched.response))

    def _ended(self, link: Link, ended: relay_pb2.WatchEnded) -> None:
        watch = self.watching.get(ended.watch_id)
        if watch is not None and watch.link is link:
            del self.watching[ended.watch_id]
            self._elsewhere.set(len(self.watching))
            watch.ended(ended.end, ended.why)

    # ------------------------------------------------------------------ the host

    def _start(self, link: Link, start: relay_pb2.WatchStart) -> None:
        runner = self.lobby.runners.get(start.game_id)
        if runner is None:
            why = self.lobby.ended.reason(start.game_id)
            why = f"it ended here ({why})" if why else "it is not played here"
            link.send(relay_wire.watch_ended(start.watch_id, relay_pb2.WATCH_END_NOT_HERE, why))
            return
        spectator = runner.watch(self.lobby.config.send_queue_limit)
        task = asyncio.get_running_loop().create_task(
            self._stream(link, start.watch_id, runner, spectator), name=f"watched-{start.game_id}"
        )
        self.streaming[link, start.watch_id] = task
        self._hosted.set(len(self.streaming))

    async def _stream(self, link: Link, watch_id: int, runner: AnyRunner, spectator: Spectator) -> None:
        """Pass the spectator's messages on until the game's end (or the spectator's replica's ``LEFT``,
        which cancels this), then say how it ended."""
        end, why = relay_pb2.WATCH_END_STOPPED, ""
        try:
            while (message := await spectator.get()) is not None:
                link.send(relay_wire.watched(watch_id, message.SerializeToString()))
                if message.WhichOneof("message") == "game_over":
                    end = relay_pb2.WATCH_END_GAME_OVER
            if end != relay_pb2.WATCH_END_GAME_OVER:
                why = runner.reason or "its game's task ended"  # "handed_over" by a draining replica
        except Overflowed:
            end, why = relay_pb2.WATCH_END_UNREAD, "it fell behind on the host"
        finally:
            runner.unwatch(spectator)
            if self.streaming.get((link, watch_id)) is asyncio.current_task():
                del self.streaming[link, watch_id]
                self._hosted.set(len(self.streaming))
        link.send(relay_wire.watch_ended(watch_id, end, why))

    def _stop(self, link: Link, watch_id: int) -> None:
        task = self.streaming.pop((link, watch_id), None)
        if task is not None:
            task.cancel()
            self._hosted.set(len(self.streaming))

    # ------------------------------------------------------------------ both

    def received(self, link: Link, frame: relay_pb2.RelayFrame, kind: str) -> None:
        """A frame of a relayed stream (``kind``: watch, watched or watch_ended) read from ``link``."""
        if kind == "watched":
            self._watched(link, frame.watched)
        elif kind == "watch":
            self._start(link, frame.watch)
        elif frame.watch_ended.end == relay_pb2.WATCH_END_LEFT:
            self._stop(link, frame.watch_ended.watch_id)
        else:
            self._ended(link, frame.watch_ended)

    def dropped(self, link: Link) -> None:
        """``link``'s connection ended: the streams it carried end (the spectators here are told why)."""
        for over, watch_id in [key for key in self.streaming if key[0] is link]:
            self._stop(over, watch_id)
        for watch in [w for w in self.watching.values() if w.link is link]:
            del self.watching[watch.watch_id]
            watch.ended(relay_pb2.WATCH_END_STOPPED, CUT)
        self._elsewhere.set(len(self.watching))
