"""End-to-end over real gRPC: deadlines, strikes, rejections, retries, reconnects, and whose turn it is."""

from __future__ import annotations

import asyncio
import dataclasses
import random

from raw_client import seat_three
from server_support import FAST

from conquest.v1 import bot_pb2, game_pb2
from engine import Claim
from server.play.seats import RemoteSeat

Outcome = bot_pb2.SeatOutcome


async def test_slow_bot_gets_defaults_and_forfeits_after_max_strikes_while_others_finish(start_server):
    """Issue 3: "On timeout: a deterministic legal default ... and a strike; after N strikes ... the seat
    forfeits and plays on passively with defaults" / "a slow bot gets defaults and forfeits after N
    strikes while the others finish"."""
    server = await start_server(dataclasses.replace(FAST, decision_ms=80, first_decision_ms=80))
    bots, _ = await seat_three(server)
    slow, fast = bots[0], bots[1:]
    finishing = [asyncio.create_task(bot.play_until_over(random.Random(i))) for i, bot in enumerate(fast)]
    strikes_seen = []
    while True:
        message = await slow.expect("decision_request", "error")
        if message.WhichOneof("message") == "error":
            break
        strikes_seen.append(message.decision_request.strikes)
    assert message.error.code == "seat_forfeited" and not message.error.fatal
    assert "3 timeouts" in message.error.message
    assert strikes_seen == [0, 1, 2]
    over = (await slow.expect("game_over")).game_over
    assert over.results[0].outcome == Outcome.SEAT_OUTCOME_FORFEIT_TIMEOUT
    others = await asyncio.gather(*finishing)
    assert others[0] == over
    assert all(r.outcome != Outcome.SEAT_OUTCOME_FORFEIT_TIMEOUT for r in over.results[1:])
    assert sorted(r.place for r in over.results)[0] == 1


async def test_illegal_and_malformed_decisions_are_rejected_and_a_retry_works(start_server):
    """Issue 3: "Illegal or malformed decisions get DecisionRejected and may be retried within the
    remaining time"; bot.proto: the reason says "why, in plain words, with what would have been legal"."""
    server = await start_server()
    bots, started = await seat_three(server)
    first = bots[started[0].observation.to_act]
    request = (await first.expect("decision_request")).decision_request

    first.decide(request, Claim(99))
    rejected = (await first.expect("decision_rejected")).decision_rejected
    assert rejected.request_id == request.request_id and rejected.can_retry
    assert 0 < rejected.time_left_ms <= 2000
    assert "territory ids are 0..41, got 99" in rejected.reason
    assert "[0, 1, 2," in rejected.reason  # what would have been legal

    first.decide(request, game_pb2.Action())
    rejected = (await first.expect("decision_rejected")).decision_rejected
    assert rejected.can_retry and "carries no action" in rejected.reason

    choice = request.legal.claim[-1]
    first.decide(request, Claim(choice))
    following = bots[(request.observation.to_act + 1) % 3]  # asked next: the claim rides in its request
    claimed = (await following.expect_event("claimed")).claimed
    assert (claimed.seat, claimed.territory) == (request.observation.to_act, choice)


async def test_late_reply_is_rejected_and_never_applied(start_server):
    """Issue 3: "a reply that arrives after its deadline, or with a stale request id, is rejected and
    never applied" / "a late reply is not applied"."""
    server = await start_server(dataclasses.replace(FAST, decision_ms=100, first_decision_ms=100))
    bots, started = await seat_three(server)
    seat = started[0].observation.to_act
    first = bots[seat]
    request = (await first.expect("decision_request")).decision_request
    await asyncio.sleep(0.3)
    late_choice = request.legal.claim[-1]
    first.decide(request, Claim(late_choice))
    rejected = (await first.expect("decision_rejected")).decision_rejected
    assert rejected.request_id == request.request_id and not rejected.can_retry
    assert "after its deadline" in rejected.reason
    claimed = (await bots[(seat + 1) % 3].expect_event("claimed")).claimed
    assert (claimed.seat, claimed.territory) == (seat, request.legal.claim[0])  # the default, not late

    first.send(
        decision=bot_pb2.Decision(game_id=request.game_id, request_id=987654, action=game_pb2.Action())
    )
    stale = (await first.expect("decision_rejected")).decision_rejected
    assert "there is no request 987654" in stale.reason and not stale.can_retry


async def test_a_bot_cannot_act_for_another_seat_or_game(start_server):
    """Issue 3: "A bot can never act for a seat or game that is not its own"."""
    server = await start_server()
    bots, started = await seat_three(server)
    seat = started[0].observation.to_act
    owner, intruder = bots[seat], bots[(seat + 1) % 3]
    request = (await owner.expect("decision_request")).decision_request

    intruder.decide(request, Claim(request.legal.claim[-1]))
    rejected = (await intruder.expect("decision_rejected")).decision_rejected
    assert f"request {request.request_id} was not sent to your seat" in rejected.reason

    outsider = server.bot()
    await outsider.hello("outsider")
    outsider.decide(request, Claim(request.legal.claim[-1]))
    error = (await outsider.expect("error")).error
    assert error.code == "unknown_game" and not error.fatal and request.game_id in error.message

    owner.decide(request, Claim(request.legal.claim[1]))  # the owner's request is still open
    claimed = (await intruder.expect_event("claimed")).claimed
    assert (claimed.seat, claimed.territory) == (seat, request.legal.claim[1])


async def test_reconnect_inside_the_grace_window_resumes_the_seat_with_a_fresh_request(start_server):
    """Issue 3: "A bot that reconnects with the same token inside the window gets its seat and a fresh
    DecisionRequest" / "a bot that disconnects and reconnects resumes its seat"."""
    server = await start_server()
    bots, started = await seat_three(server, names=("phoenix", "b", "c"))
    seat = next(i for i, s in enumerate(started) if s.players[s.seat].name == "phoenix")
    game_id = started[0].game_id
    others = [
        asyncio.create_task(b.play_until_over(random.Random(i))) for i, b in enumerate(bots) if i != seat
    ]
    request = (await bots[seat].expect("decision_request")).decision_request
    await bots[seat].close()
    runner = server.lobby.runners[game_id]
    held = runner.seats[seat]
    assert isinstance(held, RemoteSeat)
    while held.connection is not None:  # the server notices the closed stream
        await asyncio.sleep(0.01)

    back = server.bot()
    welcome = (await back.hello("phoenix")).welcome
    assert list(welcome.resumed_game_ids) == [game_id]
    again = (await back.expect("game_started")).game_started
    assert again.seat == seat and again.game_id == game_id
    fresh = (await back.expect("decision_request")).decision_request
    assert fresh.request_id > request.request_id
    assert fresh.time_allowed_ms <= 2000
    back.answer_randomly(fresh, random.Random(9))
    over = await back.play_until_over(random.Random(9))
    forfeits = (Outcome.SEAT_OUTCOME_FORFEIT_DISCONNECT, Outcome.SEAT_OUTCOME_FORFEIT_TIMEOUT)
    assert over.results[seat].outcome not in forfeits
    later = [m.decision_request for m in back.log if m.WhichOneof("message") == "decision_request"]
    assert len(later) > 1 and {r.strikes for r in later} == {0}  # the fresh request was answered in time
    assert (await asyncio.gather(*others))[0] == over


async def test_a_disconnect_longer_than_the_grace_window_forfeits_the_seat(start_server):
    """Issue 3: "after N strikes, or a disconnect longer than a grace window, the seat forfeits"."""
    server = await start_server(dataclasses.replace(FAST, reconnect_grace_ms=100))
    bots, started = await seat_three(server, names=("gone", "b", "c"))
    seat = next(i for i, s in enumerate(started) if s.players[s.seat].name == "gone")
    others = [
        asyncio.create_task(b.play_until_over(random.Random(i))) for i, b in enumerate(bots) if i != seat
    ]
    await bots[seat].close()
    over = (await asyncio.gather(*others))[0]
    assert over.results[seat].outcome == Outcome.SEAT_OUTCOME_FORFEIT_DISCONNECT
    assert all(
        r.outcome != Outcome.SEAT_OUTCOME_FORFEIT_DISCONNECT for i, r in enumerate(over.results) if i != seat
    )


async def test_reconnect_while_another_seat_decides_leaves_no_stale_request(start_server):
    """Regression (interop run, Java kit): a drop and reconnect while another seat was deciding left two
    wake-ups queued, so the bot's next request was replaced twice and its prompt, legal answers were
    rejected as "already replaced". Issue 3: "Illegal or malformed decisions get DecisionRejected" —
    legal, timely ones must not."""
    server = await start_server()
    bots, started = await seat_three(server)
    seat = (started[0].observation.to_act + 1) % 3  # not the seat being asked
    name = started[0].players[seat].name
    held = server.lobby.runners[started[0].game_id].seats[seat]
    assert isinstance(held, RemoteSeat)
    await bots[seat].close()
    while held.connection is not None:
        await asyncio.sleep(0.01)
    back = server.bot()
    await back.hello(name)
    await back.expect("game_started")
    players = [b for i, b in enumerate(bots) if i != seat] + [back]
    results = await asyncio.gather(*(b.play_until_over(random.Random(i)) for i, b in enumerate(players)))
    assert results[-1].results[seat].outcome not in (
        Outcome.SEAT_OUTCOME_FORFEIT_DISCONNECT,
        Outcome.SEAT_OUTCOME_FORFEIT_TIMEOUT,
    )
    rejected = [
        m.decision_rejected.reason for m in back.log if m.WhichOneof("message") == "decision_rejected"
    ]
    assert rejected == []


async def test_a_decision_for_a_game_that_has_ended_is_told_the_game_is_over(start_server):
    """Issue 23: "A late answer that arrives after its game ended gets `unknown_game` "you have no seat in
    game ..."; it should say the game is over (and the rejection table should list the case)"."""
    server = await start_server()
    bots = [server.bot(), server.bot()]
    for i, bot in enumerate(bots):
        await bot.hello(f"late-{i}")
        await bot.join("classic-2")
    overs = await asyncio.gather(*(bot.play_until_over(random.Random(i)) for i, bot in enumerate(bots)))
    game_id = overs[0].game_id
    for _ in range(200):  # the game is recorded and forgotten by the lobby just after its GameOver
        if game_id not in server.lobby.runners:
            break
        await asyncio.sleep(0.01)
    requests = [m.decision_request for m in bots[0].log if m.WhichOneof("message") == "decision_request"]
    bots[0].decide(requests[-1], game_pb2.Action(end_phase=game_pb2.EndPhaseAction()))
    error = (await bots[0].expect("error")).error
    assert (error.code, error.game_id, error.fatal) == ("game_over", game_id, False)
    assert f"game {game_id!r} is over ({overs[0].reason})" in error.message
    assert f"request {requests[-1].request_id} was not applied" in error.message

    outsider = server.bot()  # a bot that had no seat in it is still told it has none
    await outsider.hello("outsider")
    outsider.decide(requests[-1], game_pb2.Action(end_phase=game_pb2.EndPhaseAction()))
    assert (await outsider.expect("error")).error.code == "unknown_game"
