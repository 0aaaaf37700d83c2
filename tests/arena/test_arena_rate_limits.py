"""Every Arena call passes its client's token bucket (issue 33, item 5): "`ListLiveGames` is the one Arena
call without a rate limit: 1,344 calls a second took the server from 0.45 to 0.79 of a core and honest
bots missed 5 deadlines". A call refused for its missing admin token takes its token too, and a call whose
database work took more than its tokens pay for takes the rest after it."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Sequence
from pathlib import Path
from typing import Any

import grpc
from arena_support import QUEUES
from live_server import serving

from conquest.v1 import arena_pb2
from server.arena.service import BURST, WORK_MS_PER_TOKEN, ArenaService, live_games_cost
from server.ops.ratelimit import RateLimit


async def _refusals(calls: Sequence[Awaitable[object]]) -> list[grpc.aio.AioRpcError]:
    """The calls refused RESOURCE_EXHAUSTED, once all are answered."""
    answers = await asyncio.gather(*calls, return_exceptions=True)
    return [
        a
        for a in answers
        if isinstance(a, grpc.aio.AioRpcError) and a.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    ]


async def test_list_live_games_takes_tokens_as_every_other_call(tmp_path: Path) -> None:
    """Issue 33, item 5: ListLiveGames is held to the client's bucket: past BURST calls at once, they are
    refused, saying what a ListLiveGames costs. Its answer is built afresh for each call, so it costs as
    ListGames does, by the games it lists."""
    assert live_games_cost(0) == live_games_cost(99) == 1 and live_games_cost(250) == 3
    async with serving(QUEUES, tmp_path / "replays") as server:
        arena = server.arena()
        calls = [arena.ListLiveGames(arena_pb2.ListLiveGamesRequest()) for _ in range(BURST + 100)]
        refused = await _refusals(calls)
        assert len(refused) >= 20, f"{len(refused)} of {len(calls)} ListLiveGames refused"
        assert "ListLiveGames 1 per 100 games being played" in (refused[0].details() or "")


async def test_a_call_without_its_admin_token_takes_a_token_too(tmp_path: Path) -> None:
    """A RegisterBot without the admin token was refused before its client's bucket was asked: a flood of
    them was served at any rate. It now takes its token first."""
    async with serving(QUEUES, tmp_path / "replays") as server:
        arena = server.arena()
        calls = [arena.RegisterBot(arena_pb2.RegisterBotRequest(name=f"bot{i}")) for i in range(BURST + 100)]
        refused = await _refusals(calls)
        assert len(refused) >= 20, f"{len(refused)} of {len(calls)} RegisterBot without a token refused"


class _Context:
    """The part of a grpc.aio servicer context that ``ArenaService._blocking`` uses, for a client at
    127.0.0.1."""

    def peer(self) -> str:
        return "ipv4:127.0.0.1:50000"

    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        return ()

    async def abort(self, code: grpc.StatusCode, details: str) -> Any:
        raise AssertionError(f"refused: {code.name} {details}")


async def test_a_call_whose_work_took_more_than_its_tokens_pay_for_takes_the_rest_after_it() -> None:
    """A ListGames of a thousand games took 11 tokens and 250-300 ms of the reader thread's CPU once a
    thousand games were recorded: at 50 tokens a second, a flood of it took more than a core, and honest
    bots beside it missed deadlines. Work past ``WORK_MS_PER_TOKEN`` a token is taken from the bucket
    after it, below empty if need be: the client waits for it before its next call."""
    limit = RateLimit(rate=50, burst=20)
    service = ArenaService(None, limit)  # type: ignore[arg-type]  # _blocking needs no Arena

    def dear() -> str:
        end = time.thread_time() + 0.1
        while time.thread_time() < end:
            pass
        return "read"

    assert await service._blocking(_Context(), dear) == "read"  # type: ignore[arg-type]
    await asyncio.sleep(0.05)  # the charge comes to the event loop from the reader thread
    owed = 100 / WORK_MS_PER_TOKEN - 1 - 19  # 100 ms of work, 1 token paid, 19 left in the bucket
    assert limit.take("127.0.0.1") > (owed - 10) / 50, "a wait for the tokens owed (less what refilled)"
