"""Issue 21, item 7: "Look-alike names: with `alice` registered, practice bots are welcomed as `Alice`,
`ALICE`, `alice.` and `alice_`, and appear beside the real one on the dashboard." On a practice server:
a name that differs from a connected bot's only in case and '.', '_', '-' is refused."""

from __future__ import annotations


async def test_a_practice_name_may_not_look_like_a_connected_bots(start_server) -> None:
    server = await start_server()
    alice = server.bot()
    assert (await alice.hello("alice")).WhichOneof("message") == "welcome"
    for name in ("Alice", "ALICE", "alice.", "alice_"):
        twin = server.bot()
        refused = await twin.hello(name)
        assert refused.WhichOneof("message") == "error", name
        assert (refused.error.code, refused.error.fatal) == ("name_taken", True)
        assert f"{name!r} is too like 'alice', a bot connected now" in refused.error.message
        assert "ignoring case and the punctuation" in refused.error.message
    assert sorted(s.identity.name for s in server.lobby.sessions) == ["alice"]
    # the same name is the same practice identity (a second stream, e.g. a reconnect), and others are free
    for name in ("alice", "bob"):
        assert (await server.bot().hello(name)).WhichOneof("message") == "welcome"
    # once alice has gone, the name is free again in any spelling
    for session in [s for s in server.lobby.sessions if s.identity.name == "alice"]:
        server.lobby.close_session(session)
    assert (await server.bot().hello("Alice")).WhichOneof("message") == "welcome"


async def test_a_name_of_punctuation_alone_is_refused(start_server) -> None:
    """Issue 33, item 8: "A name with no letter or digit (`..`) registers (its comparison key is empty;
    `/api/bots/..` turns into `/api/` in a browser)": a practice Hello's name must hold a letter or digit."""
    server = await start_server()
    for name in ("..", "_", "-.-"):
        refused = await server.bot().hello(name)
        assert refused.WhichOneof("message") == "error", name
        assert refused.error.code == "bad_hello"
        assert "at least one of them a letter or digit" in refused.error.message
    assert (await server.bot().hello("a.b")).WhichOneof("message") == "welcome"
