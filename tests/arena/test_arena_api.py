"""The ArenaService over real gRPC: admin access, status codes with actionable messages, leaderboards and
games, and the spectator stream."""

from __future__ import annotations

import asyncio

import grpc
import pytest
from arena_support import ADMIN, QUEUE, Player, admin, play_game
from raw_client import events_in

from conquest.v1 import arena_pb2
from engine.dice import DICE_VERSION
from engine.events import public_view
from engine.replay import Replay, simulate
from server.play import wire

Code = grpc.StatusCode


async def _refusal(call) -> grpc.aio.AioRpcError:  # type: ignore[no-untyped-def]
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await call
    return refused.value


@pytest.mark.parametrize(
    ("metadata", "code", "message"),
    [
        ((), Code.UNAUTHENTICATED, "send the request metadata 'authorization: Bearer <admin token>'"),
        ((("authorization", "Basic abc"),), Code.UNAUTHENTICATED, "'authorization: Bearer <admin token>'"),
        (admin("not-the-admin-token"), Code.PERMISSION_DENIED, "wrong admin token"),
    ],
)
async def test_admin_calls_need_the_admin_token(start_arena, metadata, code, message) -> None:
    """Issue 4: "Admin calls need an admin token"; the brief: "admin calls without/with a wrong admin token
    are refused (PERMISSION_DENIED/UNAUTHENTICATED)"."""
    server = await start_arena()
    arena = server.arena()
    for call in (
        arena.RegisterBot(arena_pb2.RegisterBotRequest(name="alice"), metadata=metadata),
        arena.RotateToken(arena_pb2.RotateTokenRequest(name="alice"), metadata=metadata),
        arena.RevokeBot(arena_pb2.RevokeBotRequest(name="alice"), metadata=metadata),
    ):
        refused = await _refusal(call)
        assert refused.code() == code
        assert message in refused.details()
    assert list((await arena.ListBots(arena_pb2.ListBotsRequest())).bots) == [], "nothing was registered"


async def test_a_server_without_an_admin_token_refuses_admin_calls(start_arena) -> None:
    """docs/configuration.md: server.admin_token "" refuses register, rotate and revoke."""
    server = await start_arena(admin_token="")
    refused = await _refusal(
        server.arena().RegisterBot(arena_pb2.RegisterBotRequest(name="alice"), metadata=admin())
    )
    assert refused.code() == Code.PERMISSION_DENIED
    assert "the server has no admin token configured" in refused.details()


async def test_storage_errors_map_to_status_codes_with_what_was_wrong(start_arena) -> None:
    """Issue 4: "Clear status codes and messages (NOT_FOUND, PERMISSION_DENIED, INVALID_ARGUMENT with what
    was wrong)"."""
    server = await start_arena()
    arena = server.arena()
    registered = await arena.RegisterBot(arena_pb2.RegisterBotRequest(name="alice"), metadata=admin())
    assert len(registered.token) == 43 and registered.bot.name == "alice" and registered.bot.created_at_ms > 0
    cases = [
        (
            arena.RegisterBot(arena_pb2.RegisterBotRequest(name="alice"), metadata=admin()),
            Code.ALREADY_EXISTS,
            "a bot named 'alice' is already registered; choose another name",
        ),
        (
            arena.RegisterBot(arena_pb2.RegisterBotRequest(name="no spaces"), metadata=admin()),
            Code.INVALID_ARGUMENT,
            "bot name 'no spaces' is not allowed: use 1 to 32 letters, digits",
        ),
        (
            arena.RotateToken(arena_pb2.RotateTokenRequest(name="bob"), metadata=admin()),
            Code.NOT_FOUND,
            "no bot named 'bob'; list bots to see the registered names",
        ),
        (arena.GetGame(arena_pb2.GetGameRequest(game_id="nope")), Code.NOT_FOUND, "no game 'nope'"),
        (arena.GetReplay(arena_pb2.GetReplayRequest()), Code.INVALID_ARGUMENT, "game_id is empty"),
        (
            arena.GetLeaderboard(arena_pb2.GetLeaderboardRequest(queue="chess")),
            Code.NOT_FOUND,
            "no queue 'chess'; queues: classic-2, classic-long-2",
        ),
        (
            arena.ListGames(arena_pb2.ListGamesRequest(limit=5000)),
            Code.INVALID_ARGUMENT,
            "ListGamesRequest.limit = 5000: use 1 to 1000, or 0 for 50",
        ),
        (
            arena.ListGames(arena_pb2.ListGamesRequest(bot="zed")),
            Code.NOT_FOUND,
            "no bot named 'zed'",
        ),
        (
            arena.GetRatingHistory(arena_pb2.GetRatingHistoryRequest(bot="alice")),
            Code.INVALID_ARGUMENT,
            "GetRatingHistoryRequest.queue is empty: give a name, e.g. 'classic-4'",
        ),
    ]
    for call, code, message in cases:
        refused = await _refusal(call)
        assert (refused.code(), message in refused.details()) == (code, True), refused.details()
    await arena.RevokeBot(arena_pb2.RevokeBotRequest(name="alice"), metadata=admin())
    refused = await _refusal(arena.RotateToken(arena_pb2.RotateTokenRequest(name="alice"), metadata=admin()))
    assert refused.code() == Code.FAILED_PRECONDITION and "register a new bot instead" in refused.details()
    assert ADMIN not in refused.details()


async def test_leaderboard_and_games_over_the_api(start_arena) -> None:
    """Issue 4: leaderboard "ordered by μ−3σ with games played, wins, average place, timeouts, forfeits";
    "list/get games" with the brief's filters (queue, bot, limit)."""
    server = await start_arena()
    arena = server.arena()
    tokens = {
        name: (await arena.RegisterBot(arena_pb2.RegisterBotRequest(name=name), metadata=admin())).token
        for name in ("alice", "bob", "carol")
    }
    first = await play_game(server.port, [tokens["alice"], tokens["bob"]])
    second = await play_game(server.port, [tokens["bob"], tokens["carol"]])

    board = (await arena.GetLeaderboard(arena_pb2.GetLeaderboardRequest(queue=QUEUE))).standings
    assert sorted((s.bot, s.games) for s in board) == [("alice", 1), ("bob", 2), ("carol", 1)]
    assert [s.score for s in board] == sorted((s.score for s in board), reverse=True)
    assert [s.rank for s in board] == [1, 2, 3]
    bob = next(s for s in board if s.bot == "bob")
    places = [r.place for game in (first, second) for r in game.results if r.name == "bob"]
    assert bob.average_place == sum(places) / 2 and bob.wins == places.count(1)
    assert (bob.timeouts, bob.forfeits) == (0, 0)
    top = await arena.GetLeaderboard(arena_pb2.GetLeaderboardRequest(queue=QUEUE, limit=1))
    assert [s.bot for s in top.standings] == [board[0].bot]

    games = (await arena.ListGames(arena_pb2.ListGamesRequest())).games
    assert [g.game_id for g in games] == [second.game_id, first.game_id], "latest first"
    alice_games = (await arena.ListGames(arena_pb2.ListGamesRequest(bot="alice"))).games
    assert [g.game_id for g in alice_games] == [first.game_id]
    assert len((await arena.ListGames(arena_pb2.ListGamesRequest(limit=1))).games) == 1
    assert (await arena.ListGames(arena_pb2.ListGamesRequest(queue="classic-long-2"))).games == []
    summary = games[1]
    assert summary.rules == "classic_two_player" and summary.board == "classic"
    assert summary.finished_at_ms >= summary.started_at_ms > 0
    assert [s.outcome for s in summary.seats] == [r.outcome for r in first.results]
    # the brief: GameSummary carries dice_version "so a verifier can tell which derivation a listed game used"
    assert [g.dice_version for g in games] == [DICE_VERSION, DICE_VERSION] == [2, 2]


async def test_watch_game_streams_a_live_game_without_hidden_cards(start_arena) -> None:
    """Issue 4: "a live watch stream of a game's public events (spectating)"; the brief: "WatchGame streams
    a live game's events without any hidden card ids (every cards_taken/drew card is -1)"."""
    server = await start_arena()
    arena = server.arena()
    tokens = [
        (await arena.RegisterBot(arena_pb2.RegisterBotRequest(name=n), metadata=admin())).token
        for n in ("alice", "bob")
    ]
    players = [Player(server.port, token=t, seed=i) for i, t in enumerate(tokens)]
    for player in players:
        await player.connect()
    started = await asyncio.gather(*(p.join_one_game("classic-long-2") for p in players))
    game_id = started[0].game_id
    live = (await arena.ListLiveGames(arena_pb2.ListLiveGamesRequest())).games
    assert [(g.game_id, g.queue, [p.name for p in g.players]) for g in live] == [
        (game_id, "classic-long-2", [p.name for p in started[0].players])
    ]

    stream = arena.WatchGame(arena_pb2.WatchGameRequest(game_id=game_id))
    snapshot = (await stream.read()).snapshot  # subscribed before any decision is answered
    assert snapshot.live and snapshot.game_id == game_id and len(snapshot.map.territories) == 42
    assert list(snapshot.observation.hand) == []
    watching = asyncio.ensure_future(_read_all(stream))
    overs = await asyncio.gather(*(p.play() for p in players))
    for player in players:
        await player.close()
    messages = await asyncio.wait_for(watching, 20)

    assert messages[-1].WhichOneof("message") == "game_over" and messages[-1].game_over == overs[0]
    events = [e for m in messages[:-1] for e in m.events.events]
    assert all(m.WhichOneof("message") == "events" for m in messages[:-1])
    assert [e.sequence for e in events] == list(
        range(snapshot.next_sequence, snapshot.next_sequence + len(events))
    )
    drawn = [e.drew.card for e in events if e.WhichOneof("kind") == "drew"]
    taken = [c for e in events if e.WhichOneof("kind") == "cards_taken" for c in e.cards_taken.cards]
    assert drawn, "the game had card draws to hide (pick another seed if not)"
    assert set(drawn) | set(taken) == {-1}
    own = [
        e.drew.card
        for p in players
        for m in p.log
        for e in events_in(m)
        if e.WhichOneof("kind") == "drew" and e.drew.seat == _seat(p)
    ]
    assert own and all(card >= 0 for card in own), "the drawing bot saw its own cards: hiding is per viewer"


def _seat(player: Player) -> int:
    for message in player.log:
        if message.WhichOneof("message") == "game_started":
            return message.game_started.seat
    raise AssertionError("no GameStarted")


async def _read_all(stream) -> list[arena_pb2.WatchGameResponse]:  # type: ignore[no-untyped-def]
    """Every message until the server ends the stream."""
    messages = []
    while (message := await stream.read()) is not grpc.aio.EOF:
        messages.append(message)
    return messages


async def test_watch_game_streams_a_finished_game_from_its_record(start_arena) -> None:
    """Brief: "a finished game streams its recorded events"."""
    server = await start_arena()
    arena = server.arena()
    tokens = [
        (await arena.RegisterBot(arena_pb2.RegisterBotRequest(name=n), metadata=admin())).token
        for n in ("alice", "bob")
    ]
    over = await play_game(server.port, tokens)
    messages = await _read_all(arena.WatchGame(arena_pb2.WatchGameRequest(game_id=over.game_id)))
    snapshot = messages[0].snapshot
    assert not snapshot.live and [p.name for p in snapshot.players] == [r.name for r in over.results]
    assert messages[-1].game_over == over
    events = [e for m in messages[1:-1] for e in m.events.events]
    replay = Replay.from_json(server.store.replay(over.game_id).to_json())
    _, recorded = simulate(replay)
    assert snapshot.next_sequence + len(events) == len(recorded)
    assert [e.sequence for e in events] == list(range(snapshot.next_sequence, len(recorded)))
    assert all(e.drew.card == -1 for e in events if e.WhichOneof("kind") == "drew")
    # Issue 23: "`WatchGame` of a finished game starts after the setup events, not "from its start" as
    # documented" (docs/arena.md: "the stream replays the recorded game from its start").
    assert snapshot.next_sequence == 0, "from the start: the setup's events are streamed too"
    assert events == [wire.event_to_pb(public_view(e, None), i) for i, e in enumerate(recorded)]
    assert events[0].WhichOneof("kind") == "first_player_rolled", "the first event is the setup's roll-off"
    refused = await _refusal(_read_all(arena.WatchGame(arena_pb2.WatchGameRequest(game_id="nope"))))
    assert refused.code() == Code.NOT_FOUND and "no game 'nope'" in refused.details()
