"""The cluster's shared queues and the matchmaker's lease in the database (issue 20, "Matchmaking across
replicas ... one matchmaker at a time holds a lease in PostgreSQL")."""

from __future__ import annotations

import threading

from storage_support import opening

from server.records import (
    QueueCount,
    SharedAppointment,
    SharedBot,
    SharedSeat,
    SharedSeating,
    SharedWait,
    practice_identity,
)
from server.storage import Store

LEASE = "matchmaker"


def _bot(replica: str, session_id: str, name: str, free: int = 1) -> SharedBot:
    return SharedBot(replica, session_id, practice_identity(name), free)


def _seat(bot: SharedBot, done: bool = False) -> SharedSeat:
    identity = bot.identity
    return SharedSeat(bot.replica, bot.session_id, identity.key, identity.name, None, False, done=done)


def test_two_would_be_holders_of_the_lease_one_wins_and_the_loser_cannot_renew(store: Store) -> None:
    """ "split-brain of the matchmaker lease is tested": eight replicas try to take a free lease at once
    and exactly one wins; two take it over from the same term and one wins; the holder that lost it can
    neither renew it nor seat a game."""
    won: list[str] = []
    start = threading.Barrier(8)

    def take(replica: str) -> None:
        start.wait()
        if store.take_lease(LEASE, replica, 0):
            won.append(replica)

    threads = [threading.Thread(target=take, args=(f"r{i}",)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(won) == 1
    first = won[0]
    assert store.lease(LEASE) == (first, 1, 0)
    assert store.renew_lease(LEASE, first, 1)
    assert store.lease(LEASE) == (first, 1, 1)
    assert store.take_lease(LEASE, "a", 1) and not store.take_lease(LEASE, "b", 1)
    assert store.lease(LEASE) == ("a", 2, 0)
    assert not store.renew_lease(LEASE, first, 1), "a holder that lost the lease stops"
    bot = _bot("r0", "s0", "ann")
    store.open_shared_session(bot)
    seating = SharedSeating("g1", "duel", "r0", (_seat(bot),))
    assert not store.seat_shared(LEASE, first, 1, seating, 1.0)
    assert store.take_seatings("r0") == []


def test_a_seating_takes_free_slots_and_memberships_in_one_transaction(store: Store) -> None:
    """ "writes each seating (game id, queue, host replica, seats with their replicas and session ids) in
    one transaction that also removes the seated waiting rows": the seated sessions lose a free slot, a
    session that reached its games limit leaves the queue, the host takes the seating once; a session
    without a free slot refuses the whole seating."""
    ann, bob = _bot("r1", "s1", "ann", free=2), _bot("r2", "s2", "bob", free=1)
    _publish(store, "r1", "r2", "r3")
    for bot, games in ((ann, 1), (bob, 0)):
        store.open_shared_session(bot)
        store.join_shared_queue(SharedWait(bot.replica, bot.session_id, "duel", games, 10.0))
    assert store.take_lease(LEASE, "r1", 0)
    seating = SharedSeating("g1", "duel", "r2", (_seat(ann, done=True), _seat(bob)))
    assert store.seat_shared(LEASE, "r1", 1, seating, 20.0)
    bots, waits, _ = store.shared_waiting()
    assert sorted((b.session_id, b.free) for b in bots) == [("s1", 1), ("s2", 0)]
    assert waits == [SharedWait("r2", "s2", "duel", 0, 20.0)], "ann left the queue at her games limit"
    assert store.take_seatings("r1") == []
    assert store.take_seatings("r2") == [seating]
    assert store.take_seatings("r2") == [], "a seating is started once"
    again = SharedSeating("g2", "duel", "r2", (_seat(bob), _seat(ann)))
    assert not store.seat_shared(LEASE, "r1", 1, again, 30.0), "bob has no free slot"
    store.add_free_slots("r2", "s2", 1)
    assert _free(store, "s2") == 1
    assert store.seat_shared(LEASE, "r1", 1, SharedSeating("g3", "duel", "r3", (_seat(bob),)), 40.0)
    assert _free(store, "s2") == 0
    store.forget_replicas({"r3"})
    assert _free(store, "s2") == 1, "a seating its dead host never started gives its slots back"
    store.forget_replicas({"r2"})
    assert [b.session_id for b in store.shared_waiting()[0]] == ["s1"]
    assert store.shared_waiting()[1] == []
    assert store.sessions_of(ann.identity.key) == [("r1", "s1", False)]
    assert store.connected_bots() == {"ann"}
    store.close_shared_session("r1", "s1")
    assert store.sessions_of(ann.identity.key) == []


def _publish(store: Store, *replicas: str) -> None:
    for replica in replicas:
        store.publish_replica(replica, "127.0.0.1:1", 0)


def test_a_draining_replica_gets_no_seatings_and_its_lease_is_taken_at_once(store: Store) -> None:
    """ "On SIGTERM a cluster replica stops seating (health NOT_SERVING, no new seatings placed on it)": a
    seating placed on a replica that left the cluster (``forget_replicas``) is refused, taking nothing;
    the lease its holder gave up as it stopped is taken by the next replica at once, with the next term,
    and the old holder can renew it no more."""
    ann = _bot("r2", "s2", "ann")
    _publish(store, "r1", "r2")
    store.open_shared_session(ann)
    assert store.take_lease(LEASE, "r1", 0)
    store.forget_replicas({"r1"})
    assert not store.seat_shared(LEASE, "r1", 1, SharedSeating("g1", "duel", "r1", (_seat(ann),)), 1.0)
    assert _free(store, "s2") == 1
    assert store.seat_shared(LEASE, "r1", 1, SharedSeating("g2", "duel", "r2", (_seat(ann),)), 2.0)
    store.give_up_lease(LEASE, "r1", 1)
    assert store.lease(LEASE) == ("", 1, 0)
    assert not store.renew_lease(LEASE, "r1", 1)
    assert store.take_lease(LEASE, "r2", 1)
    assert store.lease(LEASE) == ("r2", 2, 0)


def _free(store: Store, session_id: str) -> int:
    return next(b.free for b in store.shared_waiting()[0] if b.session_id == session_id)


def test_an_appointment_is_seated_once_by_the_holder_unless_withdrawn(store: Store) -> None:
    """ "put appointments in the shared store too, matched by the lease holder": an appointment's seating
    takes its bots' slots, leaves their queue memberships alone and removes the appointment, once; a
    withdrawn one is not seated; a dead replica's appointments go."""
    ann, bob = _bot("r1", "s1", "ann"), _bot("r2", "s2", "bob")
    _publish(store, "r1", "r2")
    for bot in (ann, bob):
        store.open_shared_session(bot)
        store.join_shared_queue(SharedWait(bot.replica, bot.session_id, "duel", 0, 10.0))
    store.appoint_shared(SharedAppointment("a1", "r1", ("bob", "ann")), 1.0)
    store.appoint_shared(SharedAppointment("a2", "r1", ("ann", "bob")), 2.0)
    assert [a.key for a in store.shared_waiting()[2]] == ["a1", "a2"], "oldest first"
    assert store.take_lease(LEASE, "r2", 0)
    seating = SharedSeating("g1", "", "r1", (_seat(bob), _seat(ann)), "a1")
    assert store.seat_shared(LEASE, "r2", 1, seating, 5.0)
    assert not store.seat_shared(LEASE, "r2", 1, SharedSeating("g2", "", "r1", seating.seats, "a1"), 6.0)
    assert store.take_seatings("r1") == [seating]
    assert [w.since for w in store.shared_waiting()[1]] == [10.0, 10.0], "the queue waits are not reset"
    store.add_free_slots("r1", "s1", 1)
    store.add_free_slots("r2", "s2", 1)
    store.withdraw_shared("a2")
    assert not store.seat_shared(LEASE, "r2", 1, SharedSeating("g3", "", "r1", seating.seats, "a2"), 7.0)
    store.appoint_shared(SharedAppointment("a3", "r1", ("ann", "bob")), 3.0)
    store.forget_replicas({"r1"})
    assert store.shared_waiting()[2] == []


def test_the_heartbeat_reads_every_replicas_waiting_bots_and_running_games(store: Store) -> None:
    """ "Metrics and the dashboard see the whole cluster: which replica hosts which game, ... games handed
    over": the waiting bots are counted by replica and queue (ready: with a free slot), and every running
    game comes with its host, its seats' names and keys and how many times it changed replica."""
    ann, bob, cat = _bot("r1", "s1", "ann"), _bot("r2", "s2", "bob", free=0), _bot("r2", "s3", "cat")
    for bot in (ann, bob, cat):
        store.open_shared_session(bot)
        store.join_shared_queue(SharedWait(bot.replica, bot.session_id, "trio", 0, 1.0))
    store.join_shared_queue(SharedWait("r1", "s1", "duel", 0, 1.0))
    assert store.waiting_counts() == {
        ("r1", "trio"): QueueCount(1, 1),
        ("r2", "trio"): QueueCount(2, 1),
        ("r1", "duel"): QueueCount(1, 1),
    }, "bob, with no free slot, waits but is not ready"
    store.beat("r1", [opening("g1", names=["ann", "bob", "cat"])])
    store.beat("r2", [opening("g2")])
    assert store.claim_game("g2", 1, 1, "r1", 5, "c" * 64) is not None
    games = store.running_games()
    assert [(g.game_id, g.host, g.handovers, g.queue) for g in games] == [
        ("g1", "r1", 0, "classic-3"),
        ("g2", "r1", 1, "classic-3"),
    ]
    assert games[0].seats == (("ann", "bot:None"), ("bob", "bot:None"), ("cat", "bot:None"))


def test_a_write_tried_again_after_its_commit_counts_once(store: Store) -> None:
    """Issue 20's review: "a refused write is retried at the next beat" so that "a session's free-slot count"
    does not drift: a write whose commit's answer was lost may come again. The session and the appointment
    are kept once, as first written (the matchmaker's slot taken meanwhile stays taken); a numbered slot
    change is applied once however often it comes, the next number applies; unnumbered changes (slots the
    matchmaker took, given back) always apply."""
    ann = _bot("r1", "s1", "ann", free=2)
    _publish(store, "r1")
    store.open_shared_session(ann)
    assert store.take_lease(LEASE, "r1", 0)
    assert store.seat_shared(LEASE, "r1", 1, SharedSeating("g1", "duel", "r1", (_seat(ann),)), 1.0)
    store.open_shared_session(ann)
    assert _free(store, "s1") == 1, "the session kept as it was, its slot taken by the seating"
    store.add_free_slots("r1", "s1", -1, change=1)
    store.add_free_slots("r1", "s1", -1, change=1)
    assert _free(store, "s1") == 0, "change 1 applied once"
    store.add_free_slots("r1", "s1", 1, change=2)
    store.add_free_slots("r1", "s1", 1, change=1)
    assert _free(store, "s1") == 1, "change 2 applied; change 1 again, after it, not"
    store.add_free_slots("r1", "s1", 1)
    store.add_free_slots("r1", "s1", 1)
    assert _free(store, "s1") == 3
    store.appoint_shared(SharedAppointment("a1", "r1", ("ann",)), 1.0)
    store.appoint_shared(SharedAppointment("a1", "r1", ("ann",)), 2.0)
    assert [(a.key, a.bots) for a in store.shared_waiting()[2]] == [("a1", ("ann",))]
