"""Issue 20's review: "A refused cluster write makes free slots drift ... Make it converge: ... a refused
write is retried at the next beat". A replica's writes to the shared queues go through the Cluster's
writer task; here the database refuses some of them (through a store that fails the calls it is told to),
and the session's free-slot count in the database still ends where the replica's own count is."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from server.app import build_lobby
from server.ops.config import ServerConfig
from server.play.cluster import Cluster
from server.play.relay import Relay
from server.play.session import Session
from server.records import DatabaseUnavailable, practice_identity
from server.storage import Store


class Refusing:
    """The cluster's store, whose next calls of a method are refused (nothing written), or written with
    their answer lost (as a connection that dropped during the commit), as ``fail`` says."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.failures: dict[str, list[str]] = {}
        """Method name -> what its next calls do, in turn: "refused" or "answer_lost"."""
        self.calls: dict[str, int] = {}

    def fail(self, method: str, *failures: str) -> None:
        self.failures.setdefault(method, []).extend(failures)

    def __getattr__(self, name: str) -> Callable[..., object]:
        method = getattr(self.store, name)

        def call(*args: object) -> object:
            self.calls[name] = self.calls.get(name, 0) + 1
            failure = self.failures.get(name, []) and self.failures[name].pop(0)
            if failure == "refused":
                raise DatabaseUnavailable(f"{name} refused by the test")
            result = method(*args)
            if failure == "answer_lost":
                raise DatabaseUnavailable(f"{name}'s commit answer lost in the test")
            return result

        return call


def _free(store: Store) -> list[int]:
    return [b.free for b in store.shared_waiting()[0]]


async def test_refused_cluster_writes_are_tried_again_and_the_free_slots_converge(
    tmp_path: Path, db_url: str
) -> None:
    """A refused session registration and refused or unanswered free-slot changes are tried again at the
    next heartbeat, in order, each counted once: the database ends with the session's true free slots,
    and the replica says its database did not answer meanwhile."""
    lobby = build_lobby(ServerConfig(database_url="", replay_dir=tmp_path), None)
    with Store.open(db_url) as real:
        store = Refusing(real)
        cluster = Cluster(lobby, store, Relay(lobby, "r1", "secret"), "127.0.0.1:1", 0.05, 1.0)  # type: ignore[arg-type]
        told: list[str] = []
        cluster.on_database = told.append
        writer = asyncio.create_task(cluster.write())
        try:
            session = Session(practice_identity("ann"), capacity=3)
            store.fail("open_shared_session", "refused", "answer_lost")
            store.fail("add_free_slots", "refused", "answer_lost", "refused")
            cluster.opened(session, [])
            for step in (-1, -1, 1, -1):  # three games started, one ended: one slot free of three
                cluster.free(session, step)
            await cluster.flushed(10)
            assert _free(real) == [1], "the session's free slots as the replica counts them"
            assert store.calls == {"open_shared_session": 3, "add_free_slots": 7}, "each failure tried again"
            assert cluster.down and told and "does not answer" in told[0]
            cluster.closed(session)
            await cluster.flushed(10)
            assert _free(real) == []
        finally:
            writer.cancel()
