"""Issue 21, "Hostile bots and faults", items 5-7 over gRPC on both databases: revocation that bites,
challenges that reserve nothing, names that cannot be impersonated."""

from __future__ import annotations

import asyncio
import dataclasses

import grpc
import pytest
from arena_support import QUEUE, Bot, Player, admin, until

from conquest.v1 import arena_pb2, bot_pb2
from server.play.seats import RemoteSeat


async def _register(arena, *names: str) -> list[str]:  # type: ignore[no-untyped-def]
    return [
        (await arena.RegisterBot(arena_pb2.RegisterBotRequest(name=n), metadata=admin())).token for n in names
    ]


async def _until_closed(player: Player) -> list[bot_pb2.ConnectResponse]:
    """Every message up to the end of the player's stream (TimeoutError if the server keeps it open)."""
    messages = []
    while True:
        try:
            messages.append(await player.next(timeout=10))
        except EOFError:
            return messages


def _errors(messages: list[bot_pb2.ConnectResponse]) -> list[bot_pb2.Error]:
    return [m.error for m in messages if m.WhichOneof("message") == "error"]


async def _seated_pair(server, tokens: list[str]) -> tuple[Player, Player, str]:  # type: ignore[no-untyped-def]
    """Alice and Bob connected, in standing membership of the queue, seated in one game."""
    alice = Player(server.port, token=tokens[0], seed=0)
    bob = Player(server.port, token=tokens[1], seed=1)
    for player in (alice, bob):
        assert (await player.connect()).WhichOneof("message") == "welcome"
        await player.join(QUEUE)
    started = [(await p.expect("game_started", timeout=20)).game_started for p in (alice, bob)]
    assert started[0].game_id == started[1].game_id
    return alice, bob, started[0].game_id


async def test_revoking_a_bot_closes_its_sessions_and_seats_it_no_more(start_arena) -> None:
    """Issue 21, item 5: "Revoking a bot does not stop it: after an admin revoked a bot, it was seated in 7
    more rated games in the next 8 seconds on its open session." To reach: "Revocation closes the bot's
    sessions at once with a clear fatal error; its games go on by the forfeit rules; no new seat."."""
    server = await start_arena()
    arena = server.arena()
    tokens = await _register(arena, "alice", "bob")
    alice, bob, game_id = await _seated_pair(server, tokens)
    try:
        await arena.RevokeBot(arena_pb2.RevokeBotRequest(name="alice"), metadata=admin())
        errors = _errors(await _until_closed(alice))
        assert [(e.code, e.fatal) for e in errors] == [("revoked_token", True)]
        assert "revoked bot 'alice'" in errors[0].message and "register the bot again" in errors[0].message
        assert not [s for s in server.lobby.sessions if s.identity.name == "alice"]
        # the running game goes on without it: its seat is away, and forfeits by the disconnect rules
        runner = server.lobby.runners[game_id]
        seat = next(s for s in runner.seats if isinstance(s, RemoteSeat) and s.name == "alice")
        assert seat.connection is None
        over = await bob.play()
        assert over.game_id == game_id
        outcomes = {r.name: r.outcome for r in over.results}
        assert outcomes["alice"] == bot_pb2.SEAT_OUTCOME_FORFEIT_DISCONNECT
        # no new seat: once the game has ended (and the queue was matched again), Bob waits alone
        async with asyncio.timeout(10):
            while game_id in server.lobby.runners:
                await asyncio.sleep(0.05)
        assert not server.lobby.runners
        again = Player(server.port, token=tokens[0])
        try:
            refused = await again.connect()
            assert refused.WhichOneof("message") == "error" and refused.error.code == "revoked_token"
        finally:
            await again.close()
        assert not server.lobby.runners
    finally:
        await alice.close()
        await bob.close()


async def test_rotating_a_token_closes_the_old_tokens_sessions(start_arena) -> None:
    """Issue 21, item 5 (token rotation closes the sessions of the old token the same way): the session is
    ended with a fatal ``rotated_token``, and the bot takes its seat back with the new token."""
    server = await start_arena()
    arena = server.arena()
    tokens = await _register(arena, "alice", "bob")
    alice, bob, game_id = await _seated_pair(server, tokens)
    try:
        rotated = await arena.RotateToken(arena_pb2.RotateTokenRequest(name="alice"), metadata=admin())
        errors = _errors(await _until_closed(alice))
        assert [(e.code, e.fatal) for e in errors] == [("rotated_token", True)]
        assert "reconnect with the new token" in errors[0].message
        back = Player(server.port, token=rotated.token)
        try:
            welcome = await back.connect()
            assert welcome.WhichOneof("message") == "welcome"
            assert list(welcome.welcome.resumed_game_ids) == [game_id]
        finally:
            await back.close()
    finally:
        await alice.close()
        await bob.close()


async def test_practice_bots_are_not_welcomed_under_a_look_alike_of_a_registered_name(start_arena) -> None:
    """Issue 21, item 7: "Look-alike names: with `alice` registered, practice bots are welcomed as `Alice`,
    `ALICE`, `alice.` and `alice_`, and appear beside the real one on the dashboard." To reach: "Names are
    unique after case folding and punctuation (no `Alice` beside `alice`)"."""
    server = await start_arena()
    arena = server.arena()
    await _register(arena, "alice")
    for name in ("Alice", "ALICE", "alice.", "alice_"):
        refused = await server.bot().hello(name)
        assert refused.WhichOneof("message") == "error", name
        assert (refused.error.code, refused.error.fatal) == ("name_taken", True)
        assert f"{name!r} is too like the registered bot 'alice'" in refused.error.message
    with pytest.raises(grpc.aio.AioRpcError) as taken:
        await arena.RegisterBot(arena_pb2.RegisterBotRequest(name="ALICE"), metadata=admin())
    assert taken.value.code() == grpc.StatusCode.ALREADY_EXISTS
    assert "'ALICE' is too like the registered bot 'alice'" in taken.value.details()
    assert [b.name for b in (await arena.ListBots(arena_pb2.ListBotsRequest())).bots] == ["alice"]
    assert not server.lobby.sessions


def _bearer(token: str) -> tuple[tuple[str, str]]:
    return (("authorization", f"Bearer {token}"),)


async def _seated(server, *names: str, other_than: str = "", timeout: float = 20) -> str:  # type: ignore[no-untyped-def]
    """Wait until these bots play a game together (not ``other_than``); its id."""

    def game() -> str:
        games = server.lobby.runners.items()
        return next((g for g, r in games if {s.name for s in r.seats} == set(names) and g != other_than), "")

    await until(lambda: _ready(game()), timeout=timeout)
    return game()


async def _ready(value: object) -> bool:
    return bool(value)


async def test_a_challenger_that_goes_away_holds_none_of_its_rivals_slots(start_arena) -> None:
    """Issue 21, item 6: "A bot can hold a rival's slots: it challenges the rival with only its own token
    and disconnects; the rival fell from 7 games in 5 s to 1 game in 10 s." To reach: challenges are
    "cancelled when the challenger goes away"."""
    server = await start_arena()
    arena = server.arena()
    tokens = await _register(arena, "mallory", "bob", "carol")
    bob = await Bot(server.port, tokens[1], 1).start()
    carol = Player(server.port, token=tokens[2])  # answers nothing: the game lasts (seconds per request)
    mallory = Player(server.port, token=tokens[0])
    try:
        for player in (mallory, carol):
            assert (await player.connect()).WhichOneof("message") == "welcome"
        carol.send(join_queue=bot_pb2.JoinQueue(queue=QUEUE))
        bob.player.send(join_queue=bot_pb2.JoinQueue(queue=QUEUE))
        first = await _seated(server, "bob", "carol")  # so the challenge waits for Bob's slot
        await arena.CreateChallenge(
            arena_pb2.CreateChallengeRequest(bots=["mallory", "bob"], queue=QUEUE, games=5),
            metadata=_bearer(tokens[0]),
        )
        assert [a.bots for a in server.lobby.appointments] == [("mallory", "bob")]
        await mallory.close()
        await until(lambda: _ready(not server.lobby.connected("mallory")), timeout=10)
        assert server.lobby.appointments == []
        # Bob's slot is the queue's again: once the first game is over, Bob and Carol play on
        second = await _seated(server, "bob", "carol", other_than=first, timeout=90)
        assert second != first
    finally:
        await mallory.close()
        await carol.close()
        await bob.stop()


async def test_open_challenges_are_bounded_per_bot_and_expire(start_arena) -> None:
    """Issue 21, item 6, to reach: "Challenges reserve nothing a challenger can hold: bounded open
    challenges per bot, expiry" (server.challenge_open_limit, server.challenge_expiry_ms)."""
    server = await start_arena()
    arena = server.arena()
    tokens = await _register(arena, "alice", "bob", "carol")
    alice = Player(server.port, token=tokens[0])  # answers nothing: its game lasts (seconds per request)
    bob, carol = [await Bot(server.port, t, i).start() for i, t in enumerate(tokens[1:])]
    try:
        assert (await alice.connect()).WhichOneof("message") == "welcome"
        alice.send(join_queue=bot_pb2.JoinQueue(queue=QUEUE, games=1))
        carol.player.send(join_queue=bot_pb2.JoinQueue(queue=QUEUE, games=1))
        await _seated(server, "alice", "carol")  # Alice is busy: a challenge naming her waits
        config = server.lobby.config
        server.lobby.config = dataclasses.replace(config, challenge_open_limit=2, challenge_expiry_ms=60_000)
        for _ in range(2):
            await arena.CreateChallenge(
                arena_pb2.CreateChallengeRequest(bots=["bob", "alice"], queue=QUEUE, games=3),
                metadata=admin(),
            )
        with pytest.raises(grpc.aio.AioRpcError) as bounded:
            await arena.CreateChallenge(
                arena_pb2.CreateChallengeRequest(bots=["alice", "bob"], queue=QUEUE), metadata=admin()
            )
        assert bounded.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "bot 'alice' is already named in 2 unfinished challenges" in bounded.value.details()
        assert "at most 2 at once" in bounded.value.details()
        assert len(server.lobby.appointments) == 2  # one game at a time per challenge
        for appointment in list(server.lobby.appointments):  # nothing more waits for them
            server.lobby.withdraw(appointment, "the test")
        # expiry: a challenge game that cannot start is cancelled, and its bots' slots are free again
        server.lobby.config = dataclasses.replace(config, challenge_expiry_ms=300)
        await arena.CreateChallenge(
            arena_pb2.CreateChallengeRequest(bots=["alice", "bob"], queue=QUEUE, games=3), metadata=admin()
        )
        assert [a.bots for a in server.lobby.appointments] == [("alice", "bob")]
        await until(lambda: _ready(not server.lobby.appointments), timeout=10)
        await arena.CreateChallenge(  # it is no longer open either
            arena_pb2.CreateChallengeRequest(bots=["alice", "bob"], queue=QUEUE), metadata=admin()
        )
    finally:
        await alice.close()
        for bot in (bob, carol):
            await bot.stop()
