"""The relay between replicas (server.play.relay over server.play.relay_link) when its connection is cut
mid-game: issue 20's "bots reconnect and resume their seats with the existing resume mechanism", here for
seats whose bots are connected to another replica than the game's host."""

from __future__ import annotations

import asyncio
from pathlib import Path
from socket import AF_UNIX

import pytest
from relay_pair import linked, play, relayed_game

from conquest.cluster.v1 import relay_pb2
from conquest.v1 import bot_pb2
from server.app import build_lobby
from server.ops.config import ServerConfig
from server.play import relay_link
from server.play.relay import Relay
from server.play.session import Session
from server.play.stream import NO_SEAT, NOT_TAKEN, TAKEN
from server.records import practice_identity


@pytest.mark.parametrize("via", ["unix", "tcp"])
async def test_a_relayed_game_survives_its_relay_connection_being_cut_mid_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, via: str
) -> None:
    """ "a dropped connection leaves the host's relayed seats disconnected (their reconnect grace starts)
    and the bot's replica asks for them back over a new connection (SeatResume)": a game hosted on A with
    both seats' bots connected to B plays on to its end after A's connection with B is cut twice; over
    the Unix socket of replicas on one machine and over TCP."""
    monkeypatch.setattr(relay_link, "LOCAL", via == "unix")
    host, bots, listening = await linked(ServerConfig(database_url="", replay_dir=tmp_path))
    runner, sessions, seats = relayed_game(host, bots, "g1", 30, tmp_path)
    over: list[bot_pb2.GameOver] = []
    playing = [asyncio.create_task(play(bots, session, over)) for session in sessions]
    game = asyncio.create_task(runner.run())
    try:
        for cut in (10, 40):
            # the cut falls mid-game, with both seats back over a live connection (a quiet machine can
            # play to the second cut before the first is mended)
            while len(runner.replay.actions) < cut or not (
                bots.replica in host.links
                and host.links[bots.replica].transport is not None
                and all(seat.connection is not None for seat in seats)
            ):
                await asyncio.sleep(0.005)
            connection = host.links[bots.replica].transport
            assert connection is not None
            assert (connection.get_extra_info("socket").family == AF_UNIX) == (via == "unix")
            connection.abort()  # as a network failure would
            await asyncio.sleep(0)
            assert all(seat.connection is None for seat in seats), "A: both seats wait for their bots"
        await asyncio.wait_for(asyncio.gather(*playing, game), 30)
        host.ended(runner)  # as the host's cluster does when a game ends: its seats are relayed no more
    finally:
        runner.stop()
        host.stop()
        bots.stop()
        for server in listening:
            server.close()
    assert runner.state.is_over() and len(over) == 2, "the game played on to its end"
    assert all(seat.forfeit is None and seat.crashes == 2 for seat in seats), (
        "each seat was taken back over a new connection after each cut, and never forfeited"
    )


async def test_replicas_on_one_machine_relay_over_a_unix_socket_and_others_over_tcp(tmp_path: Path) -> None:
    """Replicas in one network namespace (``conquest serve --processes N``) dial each other's Unix socket,
    which costs a relayed round trip less CPU than loopback TCP (docs/benchmarks.md, ``make
    bench-relay``); a replica whose Unix socket is not in this namespace (another pod or machine) is dialled
    at its published TCP address."""
    host, bots, listening = await linked(ServerConfig(database_url="", replay_dir=tmp_path))
    # an address whose replica has no Unix socket here: bots' TCP port under another replica's name
    host.addresses["elsewhere"] = host.addresses[bots.replica]
    try:
        here, elsewhere = host.link(bots.replica), host.link("elsewhere")
        assert here is not None and elsewhere is not None
        while here.transport is None or elsewhere.transport is None:
            await asyncio.sleep(0.005)
        assert here.transport.get_extra_info("socket").family == AF_UNIX
        assert elsewhere.transport.get_extra_info("socket").family != AF_UNIX, "TCP"
    finally:
        host.stop()
        bots.stop()
        for server in listening:
            server.close()


async def test_two_relays_of_one_name_on_one_machine_are_refused_with_the_reason(tmp_path: Path) -> None:
    """A replica's Unix socket is named by the replica, unique by construction (host, process id, a random
    part); should a name be taken anyway, the second relay does not start, and says which socket."""
    lobby = build_lobby(ServerConfig(database_url="", replay_dir=tmp_path), None)
    first = await Relay(lobby, "twin", "secret").listen(0)
    try:
        with pytest.raises(OSError, match="cannot listen on the relay's Unix socket @conquest-relay/twin"):
            await Relay(lobby, "twin", "secret").listen(0)
    finally:
        first.close()


async def test_a_replica_that_stops_reading_is_cut_off_before_memory_grows_without_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ "backpressure (a slow peer must not grow memory without bound: use the transport's write buffer
    limits)": frames for a peer that reads nothing pile up in the transport to its limit, then the
    connection is cut and counted, and the link is gone (its seats' reconnect grace would start)."""
    monkeypatch.setattr(relay_link, "UNREAD_LIMIT", 1 << 20)
    stalled = asyncio.Event()

    async def never_read(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await stalled.wait()
        writer.close()

    peer = await asyncio.start_server(never_read, "127.0.0.1", 0)
    host = Relay(build_lobby(ServerConfig(database_url="", replay_dir=tmp_path), None), "a", "secret")
    # no replica "stalled" listens on a Unix socket here: the link is dialled over TCP
    host.addresses["stalled"] = f"127.0.0.1:{peer.sockets[0].getsockname()[1]}"
    link = host.link("stalled")
    assert link is not None
    try:
        sent = 0
        while not link.closed and sent < 400:  # MiB: far beyond the socket buffers and the limit
            link.send(b"\0" * (1 << 20))
            sent += 1
            await asyncio.sleep(0)
        assert link.closed and "stalled" not in host.links
        assert sent < 64, "cut once the socket buffers (Linux: tens of MiB at most) and the limit were full"
        assert host.lobby.metrics.streams_cut.labels("relay_unread")._value.get() == 1
    finally:
        stalled.set()
        peer.close()


async def test_a_decision_relayed_to_its_host_keeps_its_rate_token_once_per_request(tmp_path: Path) -> None:
    """The session's message rate counts only what a bot sends unasked: "a Decision that answers its open
    request gives its token back, so answers never count, however many games the bot plays"
    (docs/configuration.md, ``session_message_rate``), also for a game another replica hosts: a forwarded
    Decision is an answer once per DecisionRequest relayed to the bot, no more."""
    lobby = build_lobby(ServerConfig(database_url="", replay_dir=tmp_path), None)
    relay = Relay(lobby, "bots", "secret")
    session = Session(practice_identity("ann"), capacity=1)
    relay.sessions[session.session_id] = session
    link = relay_link.Link("host", dialed=False)  # this replica dialled the game's host
    relay.remote["g1", session.session_id] = link
    session.games["g1"] = 0

    def relayed(response: bot_pb2.ConnectResponse) -> None:
        message = relay_pb2.SeatMessage(
            game_id="g1", session_id=session.session_id, response=response.SerializeToString()
        )
        frames = [relay_pb2.RelayFrame(seat_message=message)]
        relay.received(link, relay_pb2.RelayResponse(frames=frames).SerializeToString())

    decision = bot_pb2.Decision(game_id="g1", request_id=1)
    assert relay.forward(session, decision) == NOT_TAKEN, "nothing was asked yet"
    relayed(bot_pb2.ConnectResponse(decision_request=bot_pb2.DecisionRequest(game_id="g1", request_id=1)))
    relayed(bot_pb2.ConnectResponse(game_over=bot_pb2.GameOver(game_id="g1")))
    assert relay.forward(session, decision) == TAKEN
    assert relay.forward(session, decision) == NOT_TAKEN, "one answer per request"
    assert relay.forward(session, bot_pb2.Decision(game_id="g2")) == NO_SEAT
