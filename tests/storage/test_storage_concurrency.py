"""Issue 4 test list: "two games finishing at once lose no rating update" (both databases)."""

from __future__ import annotations

import threading

from storage_support import ADMIN, QUEUE, play

from server.records import INITIAL
from server.storage import Store
from server.storage.ratings import rate

WRITERS = 4
GAMES_EACH = 4


def test_games_finishing_at_once_lose_no_rating_update(db_url: str) -> None:
    """Several servers (threads, each with its own Store and connection pool) record games between the
    same bots at the same moment. Every update must land: each bot's game count is the total, each
    history row starts where the previous one ended, and the final ratings equal replaying the games
    one by one in commit order."""
    with Store.open(db_url, admin_token=ADMIN) as setup:
        bots = [setup.register_bot(n, admin_token=ADMIN).bot for n in ("alice", "bob", "carol")]
    games = {
        f"w{w}-g{g}": play(f"w{w}-g{g}", bots[w % 3 :] + bots[: w % 3], seed=1 + (w + g) % 3)
        for w in range(WRITERS)
        for g in range(GAMES_EACH)
    }
    stores = [Store.open(db_url) for _ in range(WRITERS)]
    start = threading.Barrier(WRITERS)
    errors: list[BaseException] = []

    def writer(w: int) -> None:
        try:
            start.wait()
            for g in range(GAMES_EACH):
                stores[w].record_game(*games[f"w{w}-g{g}"])
        except BaseException as error:  # reported by the main thread
            errors.append(error)

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(WRITERS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for s in stores:
        s.close()
    assert errors == []

    with Store.open(db_url) as store:
        board = {s.bot: s for s in store.leaderboard(QUEUE)}
        assert {s.games for s in board.values()} == {WRITERS * GAMES_EACH}
        assert sum(s.wins for s in board.values()) == WRITERS * GAMES_EACH
        histories = {b.name: store.rating_history(b.name, QUEUE) for b in bots}

    skills = {b.name: INITIAL for b in bots}
    for name, history in histories.items():
        assert len(history) == WRITERS * GAMES_EACH
        chain = [INITIAL] + [h.after for h in history[:-1]]
        assert [h.before for h in history] == chain, f"{name}: an update was computed from a stale rating"
    # Re-rate the games from scratch in commit order: each bot's i-th history row is the i-th game.
    names = [b.name for b in bots]
    for history in zip(*histories.values(), strict=True):
        assert len({h.game_id for h in history}) == 1  # every game has all three bots, in the same order
        new = rate([skills[n] for n in names], [h.place for h in history])
        skills.update(zip(names, new, strict=True))
    for name, standing in board.items():
        assert standing.skill.mu == skills[name].mu
        assert standing.skill.sigma == skills[name].sigma
