"""The wire format pinned by golden fixtures, hidden cards, and the standard health and reflection."""

from __future__ import annotations

import asyncio
import random

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from make_golden import GOLDEN, PHASES, golden_requests
from raw_client import events_in


def test_golden_decision_requests_match_byte_for_byte():
    """Issue 3: "a golden JSON fixture pins one DecisionRequest of each phase". A difference means the
    wire format changed: if on purpose, run tests/server/make_golden.py and review the diff."""
    generated = golden_requests()
    assert sorted(generated) == sorted(f"decision_request_{p.name.lower()}.json" for p in PHASES)
    for name, text in generated.items():
        assert (GOLDEN / name).read_text() == text, f"{name} differs from the golden fixture"


async def test_health_is_serving_and_reflection_lists_bot_service(start_server):
    """Issue 3: "Standard gRPC health checking and server reflection, so grpcurl and any gRPC tool can
    find and check the service"."""
    server = await start_server()
    async with grpc.aio.insecure_channel(f"localhost:{server.port}") as channel:
        health = await health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest())
        assert health.status == health_pb2.HealthCheckResponse.SERVING
        stream = reflection_pb2_grpc.ServerReflectionStub(channel).ServerReflectionInfo(
            iter([reflection_pb2.ServerReflectionRequest(list_services="")])
        )
        reply = await anext(aiter(stream))
        names = {s.name for s in reply.list_services_response.service}
        assert "conquest.v1.BotService" in names
        assert "grpc.health.v1.Health" in names


async def test_health_answers_for_each_service_by_name(start_server):
    """Issue 23: "Health answers only the empty service name; `conquest.v1.BotService` and
    `conquest.v1.ArenaService` are `NOT_FOUND`. Register each" (and reflection lists both)."""
    server = await start_server()
    async with grpc.aio.insecure_channel(f"localhost:{server.port}") as channel:
        health = health_pb2_grpc.HealthStub(channel)
        for name in ("", "conquest.v1.BotService", "conquest.v1.ArenaService"):
            reply = await health.Check(health_pb2.HealthCheckRequest(service=name))
            assert reply.status == health_pb2.HealthCheckResponse.SERVING, name
        with pytest.raises(grpc.aio.AioRpcError) as unknown:
            await health.Check(health_pb2.HealthCheckRequest(service="conquest.v1.NoSuchService"))
        assert unknown.value.code() == grpc.StatusCode.NOT_FOUND
        stream = reflection_pb2_grpc.ServerReflectionStub(channel).ServerReflectionInfo(
            iter([reflection_pb2.ServerReflectionRequest(list_services="")])
        )
        listed = {s.name for s in (await anext(aiter(stream))).list_services_response.service}
        assert {"conquest.v1.BotService", "conquest.v1.ArenaService"} <= listed


async def test_no_bot_ever_receives_another_seats_cards(start_server):
    """Issue 3: "never receives another seat's cards" / "observations never contain other seats' cards"."""
    server = await start_server()
    bots = [server.bot() for _ in range(3)]
    for i, bot in enumerate(bots):
        await bot.hello(f"cards-{i}")
        await bot.join("classic-long-3")
    await asyncio.gather(*(bot.play_until_over(random.Random(i)) for i, bot in enumerate(bots)))
    cards_shown = 0
    for bot in bots:
        seat = next(m.game_started.seat for m in bot.log if m.WhichOneof("message") == "game_started")
        own: set[int] = set()
        for message in bot.log:
            kind = message.WhichOneof("message")
            for event in events_in(message):  # a request's events come before its observation
                which = event.WhichOneof("kind")
                if which == "drew":
                    shown = event.drew.card != -1
                    assert shown == (event.drew.seat == seat), event
                    own |= {event.drew.card} if shown else set()
                    cards_shown += shown
                elif which == "cards_taken":
                    shown_cards = [c for c in event.cards_taken.cards if c != -1]
                    assert event.cards_taken.seat == seat or not shown_cards, event
                    own |= set(shown_cards)
            if kind == "decision_request":
                observation = message.decision_request.observation
                assert set(observation.hand) <= own
                assert len(observation.hand) == observation.hand_sizes[seat]
    assert cards_shown > 0  # cards were drawn, so the check above saw real card ids


@pytest.mark.parametrize("live", [False, True], ids=["in requests", "live"])
async def test_every_seat_gets_every_event_once_in_order_and_the_asked_seat_in_its_request(
    start_server, live: bool
):
    """bot.proto: a DecisionRequest carries "the game's public events since the last ones you were sent",
    and GameEvents go to the seats not about to be asked "before GameOver and, if your Hello asked for
    live_events, once per turn": so every seat receives each event exactly once, in sequence order, all of
    them before GameOver; without live events only one GameEvents comes (before GameOver)."""
    server = await start_server()
    bots = [server.bot() for _ in range(3)]
    for i, bot in enumerate(bots):
        await bot.hello(f"events-{i}", live_events=live)
        await bot.join("classic-long-3")
    await asyncio.gather(*(bot.play_until_over(random.Random(i)) for i, bot in enumerate(bots)))
    for bot in bots:
        kinds = [m.WhichOneof("message") for m in bot.log]
        sequences = [e.sequence for m in bot.log for e in events_in(m)]
        assert sequences == list(range(len(sequences))), "each event once, in order"
        ended = [e.game_ended for m in bot.log for e in events_in(m) if e.WhichOneof("kind") == "game_ended"]
        assert len(ended) == 1 and kinds[-1] == "game_over"
        requests = kinds.count("decision_request")
        assert requests > 50
        turns = max(e.turn_started.turn for m in bot.log for e in events_in(m) if e.HasField("turn_started"))
        if live:  # one GameEvents at least every turn the bot was not asked first
            assert turns / 3 < kinds.count("game_events") < requests / 2, "events mostly ride in the requests"
        else:
            assert kinds.count("game_events") <= 1
