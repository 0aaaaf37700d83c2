"""``conquest challenge`` and ``conquest tournament create|show|list`` against a running server: issue 4,
"challenges, create/get tournaments ... The same operations from `conquest` subcommands with readable
tables"."""

from __future__ import annotations

from arena_support import ADMIN, QUEUE
from test_arena_cli import conquest, printed


async def test_challenge_command_prints_the_refusal(start_arena, capsys) -> None:
    server = await start_arena()
    for name in ("alice", "bob"):
        server.store.register_bot(name, admin_token=ADMIN)
    at = ("--server", server.address, "--admin-token", ADMIN)
    assert await conquest(capsys, "challenge", "alice", "bob", "--queue", QUEUE, *at) == 1
    error = capsys.readouterr().err
    assert "FAILED_PRECONDITION: bot 'alice' is not connected" in error


async def test_tournament_commands_create_show_and_list(start_arena, capsys) -> None:
    server = await start_arena()
    for name in ("alice", "bob", "carol"):
        server.store.register_bot(name, admin_token=ADMIN)
    at = ("--server", server.address)
    create = ("tournament", "create", "cup", "--format", "swiss", "--queue", QUEUE, "--rounds", "2")
    assert (
        await conquest(capsys, *create, "--bots", "alice", "bob", "carol", *at, "--admin-token", ADMIN) == 0
    )
    out = printed(capsys)
    assert out[0] == "tournament cup: swiss, 2-player tables, 2 rounds, rules classic_two_player"
    assert out[1] == "3 entrants, round 1; games in queue tournament-cup"
    assert out[3].split() == [
        "rank",
        "bot",
        "seed",
        "score",
        "games",
        "byes",
        "buchholz",
        "h2h",
        "rating",
        "out",
        "in",
        "round",
    ]
    table = out[out.index("round 1") + 1 :]
    assert table[0].split() == ["table", "seats", "game", "places"]
    assert [line.split()[-1] for line in table[2:]] == ["play", "bye"]  # "to play", then the bye

    assert await conquest(capsys, "tournament", "show", "cup", *at) == 0
    assert printed(capsys)[:2] == out[:2]
    assert await conquest(capsys, "tournament", "list", *at) == 0
    listed = printed(capsys)
    assert listed[2].split() == ["cup", "swiss", "3", "2", "1", "running"]
    assert await conquest(capsys, "tournament", "show", "nope", *at) == 1
    assert "NOT_FOUND: no tournament named 'nope'" in capsys.readouterr().err
