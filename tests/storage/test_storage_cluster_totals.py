"""Issue 20, "Metrics and the dashboard see the whole cluster: which replica hosts which game, replicas
alive, lease holder, games handed over, relayed decisions": each replica's counts go into its registry row
with its heartbeat, and into the cluster's totals as the row leaves, so that they outlive the process that
counted them (both databases)."""

from __future__ import annotations

import random

from storage_support import opening

from server.records import ClusterCounts
from server.storage import Store


def _counts(handed: int = 0, taken: int = 0, played: int = 0, sent: int = 0) -> ClusterCounts:
    return ClusterCounts(handed, taken, played, sent)


def test_a_beat_writes_its_counts_as_they_are_so_a_repeated_beat_counts_once(store: Store) -> None:
    """ "games handed over, relayed decisions": a replica's counts are its process's so far, written as
    they are by each beat, so a beat sent again (its commit's answer lost) counts nothing twice; a beat
    without counts keeps its row's; the totals are every registered replica's."""
    assert store.cluster_counts() == ({}, ClusterCounts()), "a new database: nothing yet"
    store.beat("r1", [], counts=_counts(taken=1, played=40, sent=3))
    store.beat("r1", [], counts=_counts(taken=1, played=40, sent=3))
    store.beat("r2", [], counts=_counts(sent=7))
    store.beat("r2", [])
    replicas, totals = store.cluster_counts()
    assert replicas == {"r1": _counts(taken=1, played=40, sent=3), "r2": _counts(sent=7)}
    assert totals == _counts(taken=1, played=40, sent=10)
    store.beat("r1", [], counts=_counts(taken=2, played=55, sent=3))
    assert store.cluster_counts()[1] == _counts(taken=2, played=55, sent=10), "grown by the difference"


def test_a_replica_leaving_adds_its_counts_to_the_totals_once(store: Store) -> None:
    """ "games handed over": a draining replica's last beat releases its games, counts them as handed
    over, and its row's counts go to the totals in that transaction; its stop after that (``leave``) adds
    nothing more. A replica that stops cleanly adds its last counts as it leaves, once however often it
    tries. The totals stay what they were with the rows there."""
    store.beat("drained", [opening("g1"), opening("g2")], counts=_counts(played=12, sent=5))
    store.beat("stopped", [], counts=_counts(taken=1, played=2))
    heartbeat = store.beat("drained", [], leaving=True, counts=_counts(played=13, sent=6))
    assert sorted(heartbeat.released) == ["g1", "g2"]
    replicas, totals = store.cluster_counts()
    assert set(replicas) == {"stopped"}, "the drained replica left the registry"
    assert totals == _counts(handed=2, taken=1, played=15, sent=6), "its two games counted as handed over"
    store.leave("drained", _counts(handed=2, played=13, sent=6))
    assert store.cluster_counts()[1] == totals, "its stop after the drain adds nothing: its row went already"
    store.leave("stopped", _counts(taken=1, played=9))
    store.leave("stopped", _counts(taken=1, played=9))
    assert store.cluster_counts() == ({}, _counts(handed=2, taken=1, played=22, sent=6))


def test_a_replica_presumed_dead_is_counted_once_even_if_it_comes_back(store: Store) -> None:
    """ "replicas alive ... games handed over": a replica killed (SIGKILL) keeps its row and the counts of
    its last beat, counted in the totals; the replica that takes its games over counts them; the killed
    one coming back (a paused process, presumed dead meanwhile) goes on with its own row, so nothing is
    counted twice."""
    store.beat("killed", [opening("g1")], counts=_counts(played=30, sent=4))
    store.beat("heir", [], counts=_counts(sent=1))
    assert store.claim_game("g1", 1, 1, "heir", 5, "c" * 64) is not None
    store.beat("heir", [], counts=_counts(taken=1, played=8, sent=1))
    assert store.cluster_counts()[1] == _counts(taken=1, played=38, sent=5)
    store.beat("killed", [], counts=_counts(played=31, sent=4))
    replicas, totals = store.cluster_counts()
    assert replicas["killed"] == _counts(played=31, sent=4)
    assert totals == _counts(taken=1, played=39, sent=5)


def test_the_totals_only_grow_and_end_as_every_process_counted(store: Store) -> None:
    """ "Metrics and the dashboard see the whole cluster": replicas beat (some beats repeated), drain,
    stop or die and new ones start, in a random order, their counters growing; after each step the
    totals are at least what they were, and in the end they are the sum of every process's last counts."""
    rng = random.Random(20)
    counters: dict[str, ClusterCounts] = {}
    last: dict[str, ClusterCounts] = {}
    gone: set[str] = set()
    seen = ClusterCounts()
    for step in range(120):
        running = sorted(set(counters) - gone)
        if not running or rng.random() < 0.1:  # a replica starts: it beats before anything else
            counters[f"r{step}"] = last[f"r{step}"] = ClusterCounts()
            store.beat(f"r{step}", [], counts=ClusterCounts())
            continue
        replica = rng.choice(running)
        grown = counters[replica] + ClusterCounts(
            rng.randrange(2), rng.randrange(2), rng.randrange(20), rng.randrange(20)
        )
        counters[replica] = grown
        move = rng.random()
        if move < 0.7:
            for _ in range(rng.choice((1, 1, 2))):  # a beat tried again after a lost commit answer
                store.beat(replica, [], counts=grown)
            last[replica] = grown
        elif move < 0.8:
            released = len(store.beat(replica, [], leaving=True, counts=grown).released)
            store.leave(replica, grown)  # its stop after the drain
            last[replica], gone = grown, gone | {replica}
            assert released == 0, "no game was opened here"
        elif move < 0.9:
            store.leave(replica, grown)
            last[replica], gone = grown, gone | {replica}
        else:
            gone.add(replica)  # killed: its last beat's counts stay in its row
        totals = store.cluster_counts()[1]
        assert all(a >= b for a, b in zip(_fields(totals), _fields(seen), strict=True)), f"step {step}"
        seen = totals
    assert seen == sum(last.values(), ClusterCounts())


def _fields(counts: ClusterCounts) -> tuple[int, int, int, int]:
    return (
        counts.games_handed_over,
        counts.games_taken_over,
        counts.relayed_decisions_played,
        counts.relayed_decisions_sent,
    )
