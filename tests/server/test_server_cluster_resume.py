"""Issue 20's review: "A Welcome can list a game that does not resume ... the SDK keeps waiting for it
forever. The host must answer a SeatResume it cannot honour, and the bot must be told". The host refuses
the seat of a game that ended (``SeatRefused``), the bot's replica tells the bot once
(``Error{not_resumed}``) and asks no more, and a game it waits for that runs nowhere any more is told too;
with real replicas, a bot whose seat forfeited while it was away is told and its client finishes."""

from __future__ import annotations

import asyncio
from pathlib import Path

from dropping_proxy import DroppingProxy
from replicas import NAMES, Replicas, SlowRandom, hosted, postgresql_only, register

from conquest.cluster.v1 import relay_pb2
from conquest.v1 import bot_pb2
from conquest_sdk import Client
from server.app import build_lobby
from server.ops.config import ServerConfig
from server.play.cluster import Cluster
from server.play.lobby import Lobby
from server.play.relay import Link, Relay
from server.play.session import Session
from server.records import HANDED_OVER, practice_identity
from server.storage import Store


async def _drained(link: Link) -> list[relay_pb2.RelayFrame]:
    """The frames queued on ``link`` (a dialed one's, with no connection: together they are a
    RelayResponse's body)."""
    frames = list(relay_pb2.RelayResponse.FromString(b"".join(link.pending)).frames)
    link.pending = []
    return frames


async def _errors(session: Session) -> list[bot_pb2.Error]:
    errors = []
    while len(session.outbox):
        message = await session.outbox.get()
        assert isinstance(message, bot_pb2.ConnectResponse)
        errors.append(message.error)
    return errors


def _lobby(tmp_path: Path) -> Lobby:
    return build_lobby(ServerConfig(database_url="", replay_dir=tmp_path), None)


def _asked(game_id: str, session_id: str) -> bytes:
    """A serialized RelayRequest: the bot of ``session_id`` asks its seat of ``game_id`` back."""
    resume = relay_pb2.SeatResume(game_id=game_id, session_id=session_id, key="practice:ann")
    return relay_pb2.RelayRequest(frames=[relay_pb2.RelayFrame(resume=resume)]).SerializeToString()


async def test_a_host_refuses_the_seat_of_a_game_that_ended_and_the_bot_is_told_once(tmp_path: Path) -> None:
    """ "A seat that was forfeited, or a game that ended within that second, can be listed in the Welcome
    and then not resume ... The host must answer a SeatResume it cannot honour": a game that ended on the
    host is refused with its end's reason; one handed over (its new host is asked next) and one the host
    never had are not answered. The bot's replica tells its bot once, naming the game and why."""
    lobby = _lobby(tmp_path)
    host = Relay(lobby, "host", "secret")
    lobby.ended.add("g1", "conquest", frozenset({"ann"}))  # what ``Lobby._game_ended`` keeps of them
    lobby.ended.add("g2", HANDED_OVER, frozenset({"ann"}))
    link = Link("bots", dialed=True)
    for game_id in ("g1", "g2", "g3"):
        host.received(link, _asked(game_id, "s1"))
    (frame,) = await _drained(link)
    assert frame.refused.game_id == "g1" and frame.refused.session_id == "s1"
    assert frame.refused.reason == "it ended (conquest) while you were away"

    bots = Relay(_lobby(tmp_path), "bots", "secret")
    session = Session(practice_identity("ann"), capacity=1)
    bots.sessions[session.session_id] = session
    bots.resume("host", "g1", session)  # the host's address is not known here: awaited all the same
    frame.refused.session_id = session.session_id
    back = relay_pb2.RelayResponse(frames=[frame]).SerializeToString()
    dialing = Link("host", dialed=False)
    bots.received(dialing, back)
    bots.received(dialing, back)
    (error,) = await _errors(session)
    assert (error.code, error.game_id, error.fatal) == ("not_resumed", "g1", False)
    assert "game g1, listed in your Welcome's resumed_game_ids, is not resumed" in error.message
    assert "it ended (conquest) while you were away" in error.message and "stop waiting" in error.message
    assert bots.awaited == {}, "asked for no more"


async def test_a_game_waited_for_that_runs_nowhere_any_more_is_told(tmp_path: Path, db_url: str) -> None:
    """ "the bot must be told" even when no host answers: at each heartbeat the bot's replica asks the
    live host of each game it waits for again; one that was running when its Welcome listed it and has
    gone from the cluster's running games since ended while the bot was away, and the bot is told once;
    a game taken over by the bot's own replica, which seats the bot at once, is waited for no more."""
    lobby = _lobby(tmp_path)
    with Store.open(db_url) as store:
        cluster = Cluster(lobby, store, Relay(lobby, "bots", "secret"), "127.0.0.1:1", 1.0, 1.0)
        session = Session(practice_identity("ann"), capacity=2)
        cluster.opened(session, [("g1", "dead"), ("g2", "host")])
        cluster.games_by_bot = {session.identity.key: [("g2", "host")]}
        cluster._take_back(alive={"host"})
        (error,) = await _errors(session)
        assert (error.code, error.game_id) == ("not_resumed", "g1")
        assert "it ended while you were away" in error.message
        assert list(cluster.relay.awaited) == [("g2", session.session_id)], "g2 runs on: still asked for"
        cluster._take_back(alive={"host"})
        assert await _errors(session) == [], "told once"
        session.games["g2"] = 0  # g2's host died and this replica took it over: ``takeover.adopt`` seated ann
        cluster.adopt(Taken("g2"))  # type: ignore[arg-type]
        assert cluster.relay.awaited == {}
        cluster.games_by_bot = {}
        cluster._take_back(alive={"host"})
        assert await _errors(session) == [], "a game taken back here is not told when it ends"


class Taken:
    """A game taken over with no seat to re-attach through the relay."""

    def __init__(self, game_id: str) -> None:
        self.game_id = game_id
        self.seats: list[object] = []


@postgresql_only
async def test_a_bot_whose_seat_forfeited_while_away_is_told_and_its_client_finishes(
    tmp_path: Path, db_url: str
) -> None:
    """ "Test with real replicas ...: a bot whose game ended/forfeited while it was away is told so, and its
    client finishes instead of hanging": cat, on the replica that does not host the game, loses its
    connection past the reconnect grace (its seat forfeits) and comes back while the game still runs; its
    Welcome lists the game, the host refuses the seat, and cat's client stops waiting: done with no
    GameOver, before the game ends. The others finish it."""
    tokens = register(db_url)
    replicas = Replicas(tmp_path, db_url, 2, turn_cap=40, reconnect_grace_ms=1000)
    proxy = DroppingProxy(replicas.ports[1])
    try:
        ids = await replicas.serving()
        await replicas.seeing_each_other()  # the matchmaker places games on both replicas now
        port = await proxy.start()
        cat = Client(
            SlowRandom(2),
            f"127.0.0.1:{port}",
            token=tokens["cat"],
            queues=["trio"],
            games=1,
            max_backoff_s=0.5,
        )
        others = [
            Client(SlowRandom(i, 0.05), replicas.address(0), token=tokens[n], queues=["trio"], games=1)
            for i, n in enumerate(NAMES[:2])
        ]
        playing = asyncio.gather(*(c.run() for c in others))
        away = asyncio.ensure_future(cat.run())
        game_id, host = await hosted(db_url, actions=10, timeout=60)
        assert host == ids[0], "placed where two of its three seats are"
        proxy.close()
        proxy.drop()
        await asyncio.sleep(3)  # three times the reconnect grace: cat's seat forfeits
        await proxy.start(port)
        assert await asyncio.wait_for(away, 30) == [], "told, cat's client finished with no GameOver"
        with Store.open(db_url) as store:
            assert game_id in [g[0] for g in store.live_games()], "the game still runs"
        results = await asyncio.wait_for(playing, 120)
    finally:
        proxy.close()
        replicas.stop()
    assert cat.welcome is not None and list(cat.welcome.resumed_game_ids) == [game_id]
    assert all([o.game_id for o in overs] == [game_id] for overs in results)
    (cat_seat,) = [r for r in results[0][0].results if r.name == "cat"]
    assert cat_seat.outcome == bot_pb2.SEAT_OUTCOME_FORFEIT_DISCONNECT
