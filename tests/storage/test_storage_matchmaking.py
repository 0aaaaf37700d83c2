"""The matchmaker's view of the store (server/storage/auth.py StoreRatings): issue 4, "The matchmaker uses
ratings" and "Restarting the server on the same database keeps ... ratings, games": ratings and the queue's
recent tables come from the database, so a restarted server keeps its pair caps and seat rotation."""

from __future__ import annotations

import dataclasses
from datetime import timedelta

from storage_support import ADMIN, QUEUE, play

from server.play.matchmaker import Matchmaker
from server.records import INITIAL, Identity, identity_key
from server.storage import Store
from server.storage.auth import StoreRatings


def test_ratings_and_recent_tables_come_from_the_store(store: Store) -> None:
    bots = [store.register_bot(n, admin_token=ADMIN).bot for n in ("ann", "ben", "cy")]
    ratings = StoreRatings(store)
    ann = Identity(identity_key(bots[0].id, "ann"), "ann", ranked=True, bot_id=bots[0].id)
    assert ratings.skill(QUEUE, ann) == INITIAL  # no rated game yet: the default rating
    result, replay = play("g1", bots)  # ann first
    store.record_game(result, replay)
    assert ratings.skill(QUEUE, ann) == INITIAL  # cached until told the bot played
    ratings.forget(QUEUE, [bots[0].id])
    assert ratings.skill(QUEUE, ann).mu > INITIAL.mu
    practice = Identity("practice:zed", "zed", ranked=False)
    assert ratings.skill(QUEUE, practice) == INITIAL

    result, replay = play("g2", [bots[1], bots[2], bots[0]], seed=2)
    store.record_game(
        dataclasses.replace(result, finished_at=result.finished_at + timedelta(minutes=1)), replay
    )
    tables = ratings.recent_tables(QUEUE, 10)
    assert tables == [[identity_key(s.bot_id, s.name) for s in store.game(g).seats] for g in ("g1", "g2")]
    matchmaker = Matchmaker({QUEUE: 3})
    matchmaker.remember(QUEUE, tables)
    history = matchmaker.history[QUEUE]
    assert history.met(f"bot:{bots[0].id}", f"bot:{bots[1].id}") == 2
    assert sum(history.seats[f"bot:{bots[0].id}"].values()) == 2
