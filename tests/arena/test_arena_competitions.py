"""Challenges and tournaments over gRPC on both databases: issue 4, "Unranked challenges: ask for a match
between named bots on a rule set, with a per-bot quota", "Round robin, Swiss and single elimination ...
resumable after a restart", and the test list's "a tournament survives a restart mid-way"."""

from __future__ import annotations

import grpc
import pytest
from arena_support import CONTROL, QUEUE, QUEUES, Bot, admin, until

from conquest.v1 import arena_pb2
from engine.r2210.rules import Rules2210
from server.arena.competitions import played_rules, player_counts, stored
from server.arena.tournaments import game_points
from server.ops.config import queue_2210

RR = arena_pb2.TOURNAMENT_FORMAT_ROUND_ROBIN
SHORT_2210 = queue_2210(2, CONTROL, Rules2210(years=1))
"""RISK 2210 A.D. for two, one year long (a few hundred decisions a game)."""


async def _register(arena, *names: str) -> list[str]:  # type: ignore[no-untyped-def]
    return [
        (await arena.RegisterBot(arena_pb2.RegisterBotRequest(name=n), metadata=admin())).token for n in names
    ]


async def tournament_finished(arena, name: str, timeout: float) -> None:  # type: ignore[no-untyped-def]
    """Wait until tournament ``name`` is finished (TimeoutError after ``timeout`` s)."""

    async def finished() -> bool:
        cup = (await arena.GetTournament(arena_pb2.GetTournamentRequest(name=name))).tournament
        return cup.finished_at_ms > 0

    await until(finished, timeout)


async def test_challenge_plays_unrated_games_between_the_named_bots(start_arena) -> None:
    """Issue 4: "Unranked challenges: ask for a match between named bots on a rule set": the bots' own token
    may ask; the games start when both have a free slot, are recorded unrated and move no rating."""
    server = await start_arena()
    arena = server.arena()
    tokens = await _register(arena, "alice", "bob", "carol")
    bots = [await Bot(server.port, t, i).start() for i, t in enumerate(tokens[:2])]
    try:
        reply = await arena.CreateChallenge(
            arena_pb2.CreateChallengeRequest(bots=["alice", "bob"], queue=QUEUE, games=2),
            metadata=(("authorization", f"Bearer {tokens[0]}"),),
        )
        assert (reply.queue, reply.games) == (QUEUE, 2)

        async def played() -> bool:
            return all(len(b.games) == 2 for b in bots)

        await until(played)
        games = (await arena.ListGames(arena_pb2.ListGamesRequest(bot="alice"))).games
        assert len(games) == 2 and not any(g.rated for g in games)
        assert all({s.name for s in g.seats} == {"alice", "bob"} for g in games)
        board = await arena.GetLeaderboard(arena_pb2.GetLeaderboardRequest(queue=QUEUE))
        assert list(board.standings) == []
        # another bot's token may not challenge for them
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await arena.CreateChallenge(
                arena_pb2.CreateChallengeRequest(bots=["alice", "bob"], queue=QUEUE),
                metadata=(("authorization", f"Bearer {tokens[2]}"),),
            )
        assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
    finally:
        for bot in bots:
            await bot.stop()


async def test_a_challenge_plays_risk_2210_on_a_2210_queue(start_arena) -> None:
    """Issue 19: RISK 2210 A.D. is "playable in tournaments and challenges": a two-player challenge on
    queue 2210-2 (whose classic rules alone would allow 3 to 6 players) plays a 2210 game, unrated."""
    server = await start_arena(queues=(*QUEUES, SHORT_2210))
    arena = server.arena()
    tokens = await _register(arena, "alice", "bob")
    bots = [await Bot(server.port, t, i).start() for i, t in enumerate(tokens)]
    try:
        reply = await arena.CreateChallenge(
            arena_pb2.CreateChallengeRequest(bots=["alice", "bob"], queue="2210-2"), metadata=admin()
        )
        assert (reply.queue, reply.games) == ("2210-2", 1)

        async def played() -> bool:
            return all(len(b.games) == 1 for b in bots)

        await until(played, timeout=120)
        (game,) = (await arena.ListGames(arena_pb2.ListGamesRequest(bot="alice"))).games
        assert game.queue == "2210-2" and not game.rated and game.reason in ("year_5", "conquest")
        assert game.turns > 0
        assert all(b.player.log[-1].WhichOneof("message") == "game_over" for b in bots)
        assert not any(m.WhichOneof("message") == "decision_rejected" for b in bots for m in b.player.log)
    finally:
        for bot in bots:
            await bot.stop()


async def test_challenge_errors_name_the_bot_and_the_quota_reset(start_arena) -> None:
    """Issue 4: "with a per-bot quota"; the brief: "bot not connected → FAILED_PRECONDITION with which bot;
    quota exceeded → RESOURCE_EXHAUSTED with when it resets" (server.challenge_quota, default 20 a day)."""
    server = await start_arena()
    arena = server.arena()
    tokens = await _register(arena, "alice", "bob")
    alice = await Bot(server.port, tokens[0], 0).start()
    try:
        with pytest.raises(grpc.aio.AioRpcError) as offline:
            await arena.CreateChallenge(
                arena_pb2.CreateChallengeRequest(bots=["alice", "bob"], queue=QUEUE), metadata=admin()
            )
        assert offline.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert "bot 'bob' is not connected" in offline.value.details()
        with pytest.raises(grpc.aio.AioRpcError) as unknown:
            await arena.CreateChallenge(
                arena_pb2.CreateChallengeRequest(bots=["alice", "zed"], queue=QUEUE), metadata=admin()
            )
        assert unknown.value.code() == grpc.StatusCode.NOT_FOUND and "zed" in unknown.value.details()
        with pytest.raises(grpc.aio.AioRpcError) as both:
            await arena.CreateChallenge(
                arena_pb2.CreateChallengeRequest(bots=["alice", "bob"], queue=QUEUE, rules="classic"),
                metadata=admin(),
            )
        assert (
            both.value.code() == grpc.StatusCode.INVALID_ARGUMENT and "either queue" in both.value.details()
        )

        bob = await Bot(server.port, tokens[1], 1).start()
        try:
            quota = server.lobby.config.challenge_quota
            await arena.CreateChallenge(
                arena_pb2.CreateChallengeRequest(bots=["alice", "bob"], queue=QUEUE, games=quota - 1),
                metadata=admin(),
            )
            with pytest.raises(grpc.aio.AioRpcError) as exhausted:
                await arena.CreateChallenge(
                    arena_pb2.CreateChallengeRequest(bots=["bob", "alice"], queue=QUEUE, games=2),
                    metadata=admin(),
                )
            assert exhausted.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            details = exhausted.value.details()
            assert f"has used {quota - 1} of its {quota} challenge games per 1 day" in details
            assert "leaves the window at" in details and "UTC" in details
        finally:
            await bob.stop()
    finally:
        await alice.stop()


async def test_a_tournament_survives_a_restart_mid_way(start_arena) -> None:
    """Issue 4 test list: "a tournament survives a restart mid-way" (both databases): a round robin of four
    bots; after round 1 the server stops (round 2's games are cut short), a new server on the same database
    carries on, round 1 is not replayed, and the standings are those of the recorded games."""
    server = await start_arena()
    arena = server.arena()
    names = ["ann", "ben", "cy", "dee"]
    tokens = await _register(arena, *names)
    bots = [await Bot(server.port, t, i).start() for i, t in enumerate(tokens)]
    created = await arena.CreateTournament(
        arena_pb2.CreateTournamentRequest(name="cup", format=RR, bots=names, queue=QUEUE), metadata=admin()
    )
    assert created.tournament.current_round == 1 and len(created.tournament.rounds[0].tables) == 2

    async def round_one_played() -> bool:
        cup = (await arena.GetTournament(arena_pb2.GetTournamentRequest(name="cup"))).tournament
        return all(t.game_id for t in cup.rounds[0].tables)

    await until(round_one_played)
    before = (await arena.GetTournament(arena_pb2.GetTournamentRequest(name="cup"))).tournament
    for bot in bots:
        await bot.stop()
    await server.stop()

    restarted = await start_arena()
    arena = restarted.arena()
    bots = [await Bot(restarted.port, t, i).start() for i, t in enumerate(tokens)]
    try:
        await tournament_finished(arena, "cup", 120)
    finally:
        for bot in bots:
            await bot.stop()
    cup = (await arena.GetTournament(arena_pb2.GetTournamentRequest(name="cup"))).tournament
    assert [len(r.tables) for r in cup.rounds] == [2, 2, 2]
    assert list(cup.rounds[0].tables) == list(before.rounds[0].tables)  # round 1 was not replayed
    pairs = [frozenset(t.bots) for r in cup.rounds for t in r.tables]
    assert len(set(pairs)) == 6  # every pair met once
    expected = dict.fromkeys(names, 0.0)
    for table in (t for r in cup.rounds for t in r.tables):
        game = (await arena.GetGame(arena_pb2.GetGameRequest(game_id=table.game_id))).game
        assert not game.rated and game.reason != "server_shutdown"
        places = [s.place for s in game.seats]
        assert [s.name for s in game.seats] == list(table.bots) and places == list(table.places)
        for seat, seat_result in enumerate(game.seats):
            expected[seat_result.name] += game_points(places, seat)
    assert {s.bot: s.score for s in cup.standings} == pytest.approx(expected)
    scores = [s.score for s in cup.standings]
    assert scores == sorted(scores, reverse=True) and sum(scores) == pytest.approx(6)
    listed = (await arena.ListTournaments(arena_pb2.ListTournamentsRequest())).tournaments
    assert [(t.name, t.entrants, t.finished_at_ms > 0) for t in listed] == [("cup", 4, True)]
    # ListGames filters by the tournament's own (unrated, unconfigured) queue (issue 8: games "with filters
    # (queue, bot, tournament)"); games the restart cut short or left unlinked are in it too
    recorded = (await arena.ListGames(arena_pb2.ListGamesRequest(queue=cup.queue, limit=100))).games
    assert {t.game_id for r in cup.rounds for t in r.tables} <= {g.game_id for g in recorded}
    assert {g.queue for g in recorded} == {"tournament-cup"}


async def test_a_tournament_of_risk_2210_plays_2210_games(start_arena) -> None:
    """Issue 19: RISK 2210 A.D. is "playable in tournaments": a round robin of three bots on queue 2210-2
    plays every table as a 2210 game under the queue's 2210 rules, which the tournament stores (so a
    restart resumes it under them)."""
    server = await start_arena(queues=(*QUEUES, SHORT_2210))
    arena = server.arena()
    names = ["ann", "ben", "cy"]
    tokens = await _register(arena, *names)
    bots = [await Bot(server.port, t, i).start() for i, t in enumerate(tokens)]
    try:
        created = await arena.CreateTournament(
            arena_pb2.CreateTournamentRequest(name="cup2210", format=RR, bots=names, queue="2210-2"),
            metadata=admin(),
        )
        assert created.tournament.rules == "2210" and created.tournament.table_size == 2
        await tournament_finished(arena, "cup2210", 180)
    finally:
        for bot in bots:
            await bot.stop()
    cup = (await arena.GetTournament(arena_pb2.GetTournamentRequest(name="cup2210"))).tournament
    played = [t.game_id for r in cup.rounds for t in r.tables if len(t.bots) == 2]
    assert len(played) == 3 and all(played)
    games = {g.game_id: g for g in (await arena.ListGames(arena_pb2.ListGamesRequest(limit=50))).games}
    assert all(games[g].reason in ("year_5", "conquest") and not games[g].rated for g in played)
    assert not any(m.WhichOneof("message") == "decision_rejected" for b in bots for m in b.player.log)


def test_a_2210_tournament_stores_its_2210_rules_and_player_counts() -> None:
    """Issue 19 ("playable in tournaments"): the stored rules give back the queue's 2210 rules and 2210's
    2 to 5 players; a classic tournament's stay its classic rules."""
    data = stored(SHORT_2210)
    assert played_rules(data)[1] == SHORT_2210.r2210 and player_counts(data) == (2, 3, 4, 5)
    (classic,) = [q for q in QUEUES if q.name == QUEUE]
    assert played_rules(stored(classic)) == (classic.rules, None)
    assert player_counts(stored(classic)) == classic.rules.player_counts()
