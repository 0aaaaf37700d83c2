"""Hostile clients meet bounds (issue 21, items 1, 2, 9, 10, 11, 12): what a client sends is echoed and
logged bounded, ranges are checked, streams without a Hello, streams nobody reads, floods of messages and
one client's many streams are cut off with a reason. Every flood here is bounded in count and time."""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import sys
import time
from pathlib import Path

import grpc
import pytest
from live_server import LiveServer, serving
from raw_client import RawBot, seat_three
from server_support import FAST
from structlog.testing import capture_logs

from conquest.v1 import arena_pb2, arena_pb2_grpc, bot_pb2, bot_pb2_grpc, game_pb2
from engine import preset
from server.ops import logs
from server.ops.calls import client_of
from server.ops.config import QueueConfig, queue_2210


async def _ended(bot: RawBot, timeout: float = 5.0) -> list[bot_pb2.ConnectResponse]:
    """The messages still to come on ``bot``'s stream until the server ends it (a client still sending
    then sees its call fail: what it read is kept)."""
    messages = []
    while True:
        try:
            messages.append(await bot.next(timeout))
        except (EOFError, grpc.aio.AioRpcError):
            return messages


async def test_a_refused_hello_repeats_a_long_name_cut_short_with_its_length(start_server) -> None:
    """Issue 21 item 1: "A refused Hello echoes the whole name back: a 3.5 MB name gives a 3,500,100-byte
    error"; fixed: "every string from a client that is echoed or logged is bounded (and says how long it
    was)"."""
    server = await start_server()
    error = (await server.bot().hello("n" * 3_000)).error
    assert error.code == "bad_hello"
    assert "(3000 characters)" in error.message
    assert len(error.message) < 300
    error = (await server.bot().hello("n" * 60_000)).error  # over the Hello's own bound: not even read
    assert error.code == "bad_hello" and "at most 4096" in error.message
    assert len(error.message) < 300


async def test_a_message_over_the_servers_bound_is_refused_by_grpc_in_a_few_bytes(start_server) -> None:
    """Issue 21 item 1: "A trade of 1,000,000 card indices gets a 3,000,072-byte rejection"; fixed: "every
    message kind has a size bound at the gRPC layer fit for it"."""
    server = await start_server()
    bot = server.bot()
    await bot.hello("big-trader")
    trade = game_pb2.Action(trade_cards=game_pb2.TradeCardsAction(cards=range(1_000_000)))
    bot.send(decision=bot_pb2.Decision(game_id="g", request_id=1, action=trade))
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await bot.next()
    assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "65536" in (refused.value.details() or "")
    assert len(refused.value.details() or "") < 200


async def test_unknown_queue_and_game_names_are_cut_short(start_server) -> None:
    """Issue 21 item 1: "An unknown queue name of 2 MB comes back in a 2,000,097-byte error"."""
    server = await start_server()
    bot = server.bot()
    await bot.hello("long-names")
    error = (await bot.join("q" * 3_000)).error
    assert error.code == "unknown_queue"
    assert "(3000 characters)" in error.message and len(error.message) < 400
    error = (await bot.join("q" * 50_000)).error  # over the message's own bound
    assert error.code == "invalid_argument" and "at most 4096" in error.message
    assert len(error.message) < 400
    bot.send(decision=bot_pb2.Decision(game_id="g" * 50_000, request_id=1))
    error = (await bot.expect("error")).error
    assert error.code == "unknown_game"
    assert "(50000 characters)" in error.message and len(error.message) < 400
    assert len(error.game_id) <= 64


async def test_a_trade_naming_thousands_of_cards_is_rejected_in_a_line(start_server) -> None:
    """Issue 21 item 1: a trade's rejection must not repeat its card list ("a 3,000,072-byte rejection")."""
    server = await start_server()
    bots = [server.bot() for _ in range(3)]
    for i, bot in enumerate(bots):
        await bot.hello(f"trader-{i}")
        await bot.join("classic-3")
    asked = await asyncio.wait_for(_first_request(bots), 10)
    bot, request = asked
    trade = game_pb2.Action(trade_cards=game_pb2.TradeCardsAction(cards=range(10_000)))
    bot.send(decision=bot_pb2.Decision(game_id=request.game_id, request_id=request.request_id, action=trade))
    rejected = (await bot.expect("decision_rejected")).decision_rejected
    assert "10000 card ids" in rejected.reason
    assert len(rejected.reason) < 200


async def _first_request(bots: list[RawBot]) -> tuple[RawBot, bot_pb2.DecisionRequest]:
    """The first bot asked for a decision, and its request (the others' messages are kept unread)."""
    waits = {asyncio.ensure_future(b.expect("decision_request", timeout=10)): b for b in bots}
    done, pending = await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
    for wait in pending:
        wait.cancel()
    first = done.pop()
    return waits[first], first.result().decision_request


async def test_client_version_is_logged_bounded(start_server) -> None:
    """Issue 21 item 1: "a 1 MB `client_version` writes 1 MB of log" (a Hello is at most 4 KiB now, and what
    it carries is logged cut short)."""
    server = await start_server()
    bot = server.bot()
    with capture_logs() as logs:
        bot.send(hello=bot_pb2.Hello(name="chatty", client_name="raw", client_version="v" * 3_000))
        assert (await bot.next()).WhichOneof("message") == "welcome"
    opened = [line for line in logs if line["event"] == "session_opened"]
    assert opened and "(3004 characters)" in opened[0]["client"]
    assert len(opened[0]["client"]) < 200


async def test_join_queue_with_negative_games_is_refused_naming_the_range(start_server) -> None:
    """Issue 21 item 2: "`JoinQueue{games: -5}` is accepted and means "no limit"."""
    server = await start_server()
    bot = server.bot()
    await bot.hello("negative")
    error = (await bot.join("classic-3", games=-5)).error
    assert error.code == "invalid_argument"
    assert "JoinQueue.games = -5" in error.message and "0 for no limit" in error.message
    assert server.lobby.matchmaker.waiting_count("classic-3") == 0


async def test_a_stream_that_sends_no_hello_is_closed_at_its_deadline(start_server) -> None:
    """Issue 21 item 9: "3,000 streams that never send Hello: none closed in 20 s"; fixed: "Unauthenticated
    streams have a Hello deadline"."""
    server = await start_server(hello_timeout_ms=300)
    bot = server.bot()
    messages = await asyncio.wait_for(_ended(bot), 5)
    assert [m.error.code for m in messages] == ["hello_timeout"]
    assert "300 ms" in messages[0].error.message and messages[0].error.fatal


async def test_streams_waiting_for_hello_are_bounded(start_server) -> None:
    """Issue 21 item 9: "Unauthenticated streams have a Hello deadline and a bound"."""
    server = await start_server(unauthenticated_stream_limit=3, hello_timeout_ms=3000)
    silent = [server.bot() for _ in range(3)]  # open their streams and send nothing
    await asyncio.sleep(0.5)  # the server has taken them
    reply = await server.bot().hello("late")
    assert reply.error.code == "server_busy"
    assert "unauthenticated_stream_limit = 3" in reply.error.message
    assert len(silent) == 3


async def _until(condition, timeout: float = 5.0) -> None:  # type: ignore[no-untyped-def]
    async with asyncio.timeout(timeout):
        while not condition():
            await asyncio.sleep(0.02)


async def test_one_client_holds_a_bounded_number_of_streams(start_server) -> None:
    """Issue 21 item 9: "2,000 practice sessions from one client were all held"; fixed: "one client's
    sessions are bounded" (practice sessions included)."""
    server = await start_server(client_stream_limit=3)
    for i in range(3):
        assert (await server.bot().hello(f"many-{i}")).WhichOneof("message") == "welcome"
    refused = (await server.bot().hello("one-too-many")).error
    assert refused.code == "too_many_streams" and refused.fatal
    assert "client_stream_limit = 3" in refused.message
    assert len(server.lobby.sessions) == 3


async def test_a_bot_that_sends_and_never_reads_is_cut_off_and_its_queue_stays_bounded(start_server) -> None:
    """Issue 21 item 10: "A client that sends and never reads its responses: server RSS 123 → 418 MiB in
    20 s, stream never closed"; fixed: "every stream, bot or spectator, has a bounded outbound queue (a
    reader that stops is disconnected with a reason)"."""
    server = await start_server(send_queue_limit=50, session_message_rate=1_000_000)
    # Without BDP probing the stream's window stays at HTTP/2's 64 KiB: the server's writes block once that
    # much is unread, as they do for any client that stops reading (later for a fast link's larger window).
    channel = grpc.aio.insecure_channel(server.address, options=[("grpc.http2.bdp_probe", 0)])
    sent = 0

    async def flood():  # type: ignore[no-untyped-def]
        nonlocal sent
        yield bot_pb2.ConnectRequest(hello=bot_pb2.Hello(name="never-reads"))
        while sent < 20_000:  # each is answered with a QueueStatus nobody reads
            sent += 1
            yield bot_pb2.ConnectRequest(leave_queue=bot_pb2.LeaveQueue(queue="classic-3"))
            if sent % 100 == 0:
                await asyncio.sleep(0.005)

    call = bot_pb2_grpc.BotServiceStub(channel).Connect(flood())
    longest = 0
    reason = (grpc.StatusCode.OK, "")
    try:
        async with asyncio.timeout(15):
            await _until(lambda: server.lobby.sessions, timeout=5)
            session = next(iter(server.lobby.sessions))
            while server.lobby.sessions:
                longest = max(longest, len(session.outbox))
                await asyncio.sleep(0.01)
            stopped_at = sent
            sent = 20_000  # the flood stops; what reached the client is read, then the reason
            while await call.read() is not grpc.aio.EOF:
                pass
    except grpc.aio.AioRpcError as ended:
        reason = (ended.code(), ended.details() or "")
    finally:
        call.cancel()
        await channel.close()
    assert reason[0] == grpc.StatusCode.RESOURCE_EXHAUSTED and "send_queue_limit" in reason[1]
    assert longest <= 50
    assert stopped_at < 20_000  # cut off before the flood was over
    assert server.lobby.metrics.streams_cut.labels("unread")._value.get() == 1


async def test_a_session_over_its_message_rate_is_told_then_closed(start_server) -> None:
    """Issue 21 item 11: "No per-session rate limit: one session at 22–27k messages/s held the server at
    80–98% CPU"; fixed: "a rate limit well above what its games need", beyond it "a clear error (and is
    closed if it persists)"."""
    server = await start_server(session_message_rate=50)
    bot = server.bot()
    await bot.hello("flooder")
    errors: list[bot_pb2.Error] = []
    answered = 0

    async def flood() -> None:  # ~1,000 messages a second until the session is closed
        for _ in range(3_000):
            if errors and errors[-1].fatal:
                return
            bot.send(leave_queue=bot_pb2.LeaveQueue(queue="classic-3"))
            await asyncio.sleep(0.001)

    sending = asyncio.ensure_future(flood())
    async with asyncio.timeout(10):
        while not (errors and errors[-1].fatal):
            message = await bot.next()
            if message.WhichOneof("message") == "error":
                errors.append(message.error)
            answered += message.WhichOneof("message") == "queue_status"
    await sending
    assert [(e.code, e.fatal) for e in errors] == [("rate_limited", False), ("rate_limited", True)]
    assert "session_message_rate" in errors[0].message and "closed" in errors[1].message
    assert 50 <= answered < 150  # the bucket's second's worth, and what it refilled meanwhile
    await _until(lambda: not server.lobby.sessions)
    assert server.lobby.metrics.streams_cut.labels("rate_limited")._value.get() == 1


async def test_a_session_under_its_rate_loses_nothing(start_server) -> None:
    """Issue 21 item 11: the limit is "well above what its games need": a session keeping to it has every
    message answered."""
    server = await start_server(session_message_rate=200)
    bot = server.bot()
    await bot.hello("steady")
    for _ in range(150):
        bot.send(leave_queue=bot_pb2.LeaveQueue(queue="classic-3"))
    for _ in range(150):
        assert (await bot.next()).WhichOneof("message") == "queue_status"


async def test_answers_to_the_servers_requests_do_not_count_against_the_rate(start_server) -> None:
    """Issue 21 item 11: the rate limit must sit "well above what its games need", whatever they need: a
    bot playing fast games answers as many requests as the server sends it, so each Decision that answers
    its open request gives its token back. At a rate of 20 a second, three bots play a whole game (hundreds
    of decisions in a few seconds) and none is told it sent too much."""
    server = await start_server(session_message_rate=20)
    bots, _ = await seat_three(server)

    async def play(bot: RawBot, rng: random.Random) -> tuple[int, list[str]]:
        answered, errors = 0, []
        while True:
            message = await bot.next()
            kind = message.WhichOneof("message")
            if kind == "game_over":
                return answered, errors
            if kind == "error":
                errors.append(message.error.code)
            if kind == "decision_request":
                bot.answer_randomly(message.decision_request, rng)
                answered += 1

    played = await asyncio.wait_for(
        asyncio.gather(*(play(b, random.Random(i)) for i, b in enumerate(bots))), 60
    )
    assert sum(answered for answered, _ in played) > 100  # far more than the rate lets through unasked
    assert [errors for _, errors in played] == [[], [], []]
    assert server.lobby.metrics.streams_cut.labels("rate_limited")._value.get() == 0


async def test_answers_to_a_2210_games_requests_do_not_count_against_the_rate(tmp_path: Path) -> None:
    """Issue 21 item 11: the rate limit must sit "well above what its games need", whatever they need: a
    RISK 2210 A.D. game's Decisions reach their game through the lobby, not straight from the stream, and
    each that answers its open request gives its token back all the same. At a rate of 20 a second, two
    bots answer hundreds of requests and neither is told it sent too much."""
    rate = 20

    async def play(bot: RawBot, rng: random.Random) -> tuple[int, list[str]]:
        answered, errors = 0, []
        while answered < 300:
            message = await bot.next()
            kind = message.WhichOneof("message")
            if kind == "game_over":
                break
            if kind == "error":
                errors.append(message.error.code)
            if kind == "decision_request":
                bot.answer_randomly(message.decision_request, rng)
                answered += 1
        return answered, errors

    async with serving([queue_2210(2, FAST)], tmp_path / "replays", session_message_rate=rate) as server:
        bots = [server.bot(), server.bot()]
        for index, bot in enumerate(bots):
            await bot.hello(f"bidder-{index}")
            await bot.join("2210-2")
        started = time.monotonic()
        played = await asyncio.wait_for(
            asyncio.gather(*(play(b, random.Random(i)) for i, b in enumerate(bots))), 60
        )
        unasked = rate * (1 + time.monotonic() - started)  # the bucket, and what it refilled meanwhile
        assert all(answered > unasked for answered, _ in played), (played, unasked)
        assert [errors for _, errors in played] == [[], []]
        assert server.lobby.metrics.streams_cut.labels("rate_limited")._value.get() == 0


async def test_queue_messages_flood_writes_a_bounded_log(start_server, monkeypatch) -> None:
    """Issue 21 item 12: "A JoinQueue/LeaveQueue flood wrote 18 MiB of log in 12 s"; fixed: "per-message log
    lines are rate-limited or sampled"."""
    monkeypatch.setattr(logs.SAMPLED, "_seconds", {})  # what earlier tests logged this second
    server = await start_server()
    bot = server.bot()
    await bot.hello("log-flooder")
    with capture_logs() as captured:
        for _ in range(500):
            bot.send(leave_queue=bot_pb2.LeaveQueue(queue="classic-3"))
        for _ in range(500):
            await bot.next()
    lines = [line for line in captured if line["event"] == "leave_queue"]
    assert 1 <= len(lines) <= 60  # 20 a second, and the test takes under 3 s


def test_sampled_lines_say_how_many_were_left_out(monkeypatch) -> None:
    """Issue 21 item 12: per-message log lines "rate-limited or sampled", with a count of those left out."""
    now = [100.0]
    monkeypatch.setattr(logs.time, "monotonic", lambda: now[0])
    written: list[tuple[str, dict[str, object]]] = []

    class Logger:
        def info(self, event: str, **fields: object) -> None:
            written.append((event, fields))

    sampled = logs.Sampled(per_s=3)
    for i in range(10):
        sampled.info(Logger(), "join_queue", n=i)
    sampled.info(Logger(), "leave_queue", n=0)  # each event has its own count
    now[0] = 101.2
    sampled.info(Logger(), "join_queue", n=10)
    assert [(e, f["n"]) for e, f in written] == [
        ("join_queue", 0),
        ("join_queue", 1),
        ("join_queue", 2),
        ("leave_queue", 0),
        ("join_queue", 10),
    ]
    assert written[-1][1]["suppressed"] == 7
    assert "suppressed" not in written[0][1]


async def test_spectator_streams_count_against_the_clients_bound(start_server) -> None:
    """Issue 21 item 9 and the per-client limits on live streams: WatchGame streams count with the client's
    bot streams, and one over the bound is refused with RESOURCE_EXHAUSTED naming the bound."""
    server = await start_server(client_stream_limit=3)
    _, started = await seat_three(server)
    watch = server.arena().WatchGame(arena_pb2.WatchGameRequest(game_id=started[0].game_id))
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await watch.read()
    assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "client_stream_limit = 3" in (refused.value.details() or "")


async def test_a_spectator_that_never_reads_is_cut_off_while_the_game_goes_on(tmp_path: Path) -> None:
    """Issue 21 item 9: "1,000 `WatchGame` spectators that never read were never closed while the game's
    events piled up for them"; fixed: a spectator that stops reading "is disconnected with a reason"."""
    queue = QueueConfig("classic-3", preset("classic", turn_cap=300), 3, FAST)  # events enough to fill 64 KiB
    async with serving([queue], tmp_path, send_queue_limit=5) as server:
        await _watch_without_reading(server)


async def _watch_without_reading(server: LiveServer) -> None:
    bots, started = await seat_three(server)
    game_id = started[0].game_id
    # HTTP/2's 64 KiB window without BDP probing: the server's writes block once that much is unread.
    channel = grpc.aio.insecure_channel(server.address, options=[("grpc.http2.bdp_probe", 0)])
    watch = arena_pb2_grpc.ArenaServiceStub(channel).WatchGame(arena_pb2.WatchGameRequest(game_id=game_id))
    try:
        await _until(lambda: server.lobby.runners[game_id]._spectators._watching, timeout=5)
        playing = [asyncio.ensure_future(b.play_until_over(random.Random(i))) for i, b in enumerate(bots)]
        overs = await asyncio.wait_for(asyncio.gather(*playing), 60)
        assert len({o.game_id for o in overs}) == 1  # the game went on to its end
        with pytest.raises(grpc.aio.AioRpcError) as ended:
            while await watch.read() is not grpc.aio.EOF:
                pass
        assert ended.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "send_queue_limit" in (ended.value.details() or "")
        assert server.lobby.metrics.streams_cut.labels("unread")._value.get() == 1
    finally:
        watch.cancel()
        await channel.close()


FLOODER = """
import asyncio, sys, time
import grpc
from conquest.v1 import bot_pb2, bot_pb2_grpc

async def main(port, count, cap_s):
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
    stop = time.monotonic() + cap_s
    sent = 0
    all_sent = asyncio.Event()
    async def requests():
        nonlocal sent
        yield bot_pb2.ConnectRequest(hello=bot_pb2.Hello(name="rss-flooder"))
        while sent < count and time.monotonic() < stop:
            sent += 1
            yield bot_pb2.ConnectRequest(decision=bot_pb2.Decision(game_id="g" * 2000, request_id=sent))
        all_sent.set()
        await asyncio.sleep(cap_s)  # the stream stays open, its replies unread
    call = bot_pb2_grpc.BotServiceStub(channel).Connect(requests())
    ended = asyncio.ensure_future(call.code())
    sending = asyncio.ensure_future(all_sent.wait())
    await asyncio.wait([ended, sending], timeout=cap_s, return_when="FIRST_COMPLETED")
    print(sent, int(ended.done()), flush=True)
    call.cancel()
    await channel.close()

asyncio.run(main(int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])))
"""
"""A client in its own process: a Hello, then argv[2] Decisions for a game it has no seat in (each answered
with an Error) as fast as it can, never reading a reply, for at most argv[3] seconds; prints how many it
sent and 1 if the server ended the stream meanwhile (else 0)."""

FLOOD_MESSAGES = 12_000
"""A fixed amount of work, whatever the machine's speed (without the bounds: +140 MiB for 10,000)."""


def _rss_mib() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


async def test_server_memory_stays_bounded_under_a_client_that_sends_and_never_reads(start_server) -> None:
    """Issue 21 item 10: "A client that sends and never reads its responses: server RSS 123 → 418 MiB in 20
    s, stream never closed"; fixed: the server's memory stays bounded and the stream is cut off. The
    flooder is a separate process (127.0.0.1); the rate limit is lifted so that the send queue's bound is
    what holds. Issue 32: it "asserts the flooder sent > 10,000 messages in 4 s: on a busy machine it sent
    8,176 and failed"; "tests that assume the machine's speed fix the work, not the time": the flooder
    sends a fixed 12,000 messages, however long that takes, unless the server cuts it off first."""
    server = await start_server(session_message_rate=1_000_000)
    before = peak = _rss_mib()
    flooder = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        FLOODER,
        str(server.port),
        str(FLOOD_MESSAGES),
        "60",
        stdout=asyncio.subprocess.PIPE,
    )
    async with asyncio.timeout(90):
        while flooder.returncode is None:
            peak = max(peak, _rss_mib())
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(flooder.wait(), 0.05)
        sent, cut_off = map(int, (await flooder.stdout.read()).split())  # type: ignore[union-attr]
    assert sent == FLOOD_MESSAGES or cut_off, f"the flooder sent only {sent} in 60 s and was not cut off"
    assert peak - before < 30  # its replies: bounded by its send queue (or cut off once that filled)
    await _until(lambda: not server.lobby.sessions)


async def test_a_fault_on_a_bot_stream_is_logged_with_its_call_and_told(start_server, monkeypatch) -> None:
    """Issue 21 item 3: "an unexpected exception is logged with the call it came from"; the bot is told
    its stream failed on the server's side."""
    server = await start_server()

    def broken(session: object, request: object) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(server.lobby, "handle", broken)
    bot = server.bot()
    await bot.hello("unlucky")
    with capture_logs() as captured:
        bot.send(leave_queue=bot_pb2.LeaveQueue(queue="classic-3"))
        error = (await bot.expect("error")).error
    assert (error.code, error.fatal) == ("internal", True)
    failed = [line for line in captured if line["event"] == "call_failed"]
    assert [line["method"] for line in failed] == ["/conquest.v1.BotService/Connect"]


def test_every_per_client_bound_knows_a_client_by_the_same_address() -> None:
    """One piece of code per idea: the stream bound (``Admission``) and the Arena's token buckets key a
    client by ``client_of``: the peer's host without its port, whichever address family."""
    assert client_of("ipv4:127.0.0.1:50000") == client_of("ipv4:127.0.0.1:50001") == "127.0.0.1"
    assert client_of("ipv6:%5B::1%5D:50000") == client_of("ipv6:[::1]:50000") == "::1"  # as gRPC writes it
    assert client_of("unix:/tmp/conquest.sock") == "unix:/tmp/conquest.sock"
