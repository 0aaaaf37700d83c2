"""Persistence end to end over real gRPC: registered bots play rated games that survive a restart."""

from __future__ import annotations

import asyncio
import json

import grpc
import pytest
from arena_support import ADMIN, QUEUE, Player, admin, play_game

from conquest.v1 import arena_pb2
from engine.replay import Replay
from server.play.replays import verify_record


async def _register(arena, *names: str) -> list[str]:  # type: ignore[no-untyped-def]
    replies = [await arena.RegisterBot(arena_pb2.RegisterBotRequest(name=n), metadata=admin()) for n in names]
    return [r.token for r in replies]


async def test_a_registered_bot_plays_rated_and_the_game_is_recorded_with_ratings(start_arena) -> None:
    """Issue 4: "Results, ratings and the replay of a game are written in one transaction"; the brief:
    "a registered bot plays over BotService with its token and the game is recorded with ratings"."""
    server = await start_arena()
    arena = server.arena()
    tokens = await _register(arena, "alice", "bob")
    welcome = (await (player := Player(server.port, token=tokens[0])).connect()).welcome
    assert (welcome.bot_name, welcome.ranked) == ("alice", True)
    await player.close()

    over = await play_game(server.port, tokens)
    game = (await arena.GetGame(arena_pb2.GetGameRequest(game_id=over.game_id))).game
    assert game.rated and game.queue == QUEUE and game.seed == over.seed and game.turns == over.turns
    assert [(s.name, s.place, s.outcome, s.registered) for s in game.seats] == [
        (r.name, r.place, r.outcome, True) for r in over.results
    ]
    board = (await arena.GetLeaderboard(arena_pb2.GetLeaderboardRequest(queue=QUEUE))).standings
    assert sorted(s.bot for s in board) == ["alice", "bob"]
    assert all(s.games == 1 and s.sigma < 25 / 3 for s in board), "one rated game moved both ratings"
    assert [s.rank for s in board] == [1, 2] and board[0].score >= board[1].score
    assert all(abs(s.score - (s.mu - 3 * s.sigma)) < 1e-9 for s in board)
    winner = next(r for r in over.results if r.place == 1).name
    history = await arena.GetRatingHistory(arena_pb2.GetRatingHistoryRequest(bot=winner, queue=QUEUE))
    assert [(c.game_id, c.place) for c in history.changes] == [(over.game_id, 1)]
    change = history.changes[0]
    assert (change.mu_before, change.sigma_before) == (25.0, pytest.approx(25 / 3))
    assert change.mu_after > change.mu_before, "a lone winner's rating goes up"

    metrics = server.lobby.metrics.registry
    assert metrics.get_sample_value("conquest_database_write_seconds_count") == 1
    assert metrics.get_sample_value("conquest_rating_updates_total", {"queue": QUEUE}) == 2


async def test_restart_on_the_same_database_keeps_bots_tokens_ratings_games_and_replays(start_arena) -> None:
    """Issue 4 test list: "Both databases: restart keeps everything" — over gRPC: a rated game, the server
    stopped, a new server on the same database."""
    server = await start_arena()
    arena = server.arena()
    tokens = await _register(arena, "alice", "bob")
    await _register(arena, "carol")
    await arena.RevokeBot(arena_pb2.RevokeBotRequest(name="carol"), metadata=admin())
    over = await play_game(server.port, tokens)

    async def everything(stub):  # type: ignore[no-untyped-def]
        return (
            await stub.ListBots(arena_pb2.ListBotsRequest()),
            await stub.GetLeaderboard(arena_pb2.GetLeaderboardRequest(queue=QUEUE)),
            await stub.ListGames(arena_pb2.ListGamesRequest()),
            await stub.GetReplay(arena_pb2.GetReplayRequest(game_id=over.game_id)),
            await stub.GetRatingHistory(arena_pb2.GetRatingHistoryRequest(bot="alice", queue=QUEUE)),
        )

    before = await everything(arena)
    await server.stop()

    restarted = await start_arena()
    after = await everything(restarted.arena())
    assert after == before
    bots, board, games, replay, history = after
    assert [(b.name, b.revoked_at_ms > 0) for b in bots.bots] == [
        ("alice", False),
        ("bob", False),
        ("carol", True),
    ]
    assert len(board.standings) == 2 and len(games.games) == 1 and len(history.changes) == 1
    data = json.loads(replay.replay_json)
    assert verify_record(Replay.from_dict(data), data).places == tuple(r.place for r in over.results)
    # the tokens still work, and the ladder goes on from the stored ratings
    second = await play_game(restarted.port, tokens)
    board = (await restarted.arena().GetLeaderboard(arena_pb2.GetLeaderboardRequest(queue=QUEUE))).standings
    assert [s.games for s in board] == [2, 2]
    history = await restarted.arena().GetRatingHistory(
        arena_pb2.GetRatingHistoryRequest(bot="alice", queue=QUEUE)
    )
    assert [c.game_id for c in history.changes] == [over.game_id, second.game_id]
    assert history.changes[1].mu_before == history.changes[0].mu_after


@pytest.mark.parametrize(
    ("case", "code", "message"),
    [
        ("unknown", "unknown_token", "unknown bot token: no registered bot has it"),
        ("revoked", "revoked_token", "bot 'alice' was revoked on"),
        ("rotated", "rotated_token", "this token of bot 'alice' was replaced on"),
    ],
)
async def test_an_unknown_or_revoked_token_is_refused_at_hello(start_arena, case, code, message) -> None:
    """Issue 4 test list: "an unknown or revoked token is refused with a clear message"."""
    server = await start_arena()
    arena = server.arena()
    (token,) = await _register(arena, "alice")
    if case == "unknown":
        token = token[::-1]
    elif case == "revoked":
        await arena.RevokeBot(arena_pb2.RevokeBotRequest(name="alice"), metadata=admin())
    else:
        await arena.RotateToken(arena_pb2.RotateTokenRequest(name="alice"), metadata=admin())
    player = Player(server.port, token=token)
    reply = await player.connect()
    await player.close()
    assert reply.WhichOneof("message") == "error"
    assert (reply.error.code, reply.error.fatal) == (code, True)
    assert message in reply.error.message and token not in reply.error.message


async def test_practice_players_play_unrated_next_to_the_ladder(start_arena) -> None:
    """Issue 4: "An open practice mode may let unregistered bots play unranked": recorded, rating nothing."""
    server = await start_arena()
    (token,) = await _register(server.arena(), "alice")
    players = [Player(server.port, token=token), Player(server.port, name="visitor", seed=1)]
    for player in players:
        assert (await player.connect()).WhichOneof("message") == "welcome"
    await asyncio.gather(*(p.join_one_game() for p in players))
    over = (await asyncio.gather(*(p.play() for p in players)))[0]
    for player in players:
        await player.close()
    game = (await server.arena().GetGame(arena_pb2.GetGameRequest(game_id=over.game_id))).game
    assert not game.rated
    assert sorted((s.name, s.registered) for s in game.seats) == [("alice", True), ("visitor", False)]
    board = await server.arena().GetLeaderboard(arena_pb2.GetLeaderboardRequest(queue=QUEUE))
    assert list(board.standings) == []


async def test_a_game_that_is_not_over_has_no_record_yet(start_arena) -> None:
    """Brief: "NOT_FOUND ... with actionable messages" — a live game points to WatchGame."""
    server = await start_arena()
    tokens = await _register(server.arena(), "alice", "bob")
    players = [Player(server.port, token=t) for t in tokens]
    for player in players:
        await player.connect()
    started = await asyncio.gather(*(p.join_one_game() for p in players))
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await server.arena().GetReplay(arena_pb2.GetReplayRequest(game_id=started[0].game_id))
    assert refused.value.code() == grpc.StatusCode.NOT_FOUND
    assert "is still being played: WatchGame streams it" in refused.value.details()
    assert ADMIN not in refused.value.details()
    await asyncio.gather(*(p.play() for p in players))
    for player in players:
        await player.close()
