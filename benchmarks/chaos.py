"""``make chaos``: issue 21's chaos suite at the issue's own sizes, printing one table (docs/benchmarks.md).

Every attack and fault of the short profile (tests/chaos, run by ``make test``), from the same harness
(tests/support/chaos.py with chaos_attacks, chaos_faults and chaos_flood beside it), against real
``conquest serve`` processes on 127.0.0.1, one server per row. Beside the floods, honest bots play 250 ms
duels and count the deadlines they missed; baseline rows give the same duels with no flood. The table:
bad inputs tried, attacks that got through (the issue's bar: 0), honest bots' missed deadlines under each
flood, peak RSS and RSS after against the idle figure, finished games lost and games unaccounted for after
``kill -9`` (0), and the time to recover.

    python -m benchmarks.chaos [--only 1,16,...]

Exits 1 when any attack got through.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "support"))

import chaos_arena_relay as arena_relay  # type: ignore[import-not-found]  # tests/support, on the path above
import chaos_attacks as attacks  # type: ignore[import-not-found]
import chaos_dashboard as web_attacks  # type: ignore[import-not-found]
import chaos_disk as disk  # type: ignore[import-not-found]
import chaos_faults as faults  # type: ignore[import-not-found]
from chaos import ChaosServer, Verdict, bounded, table  # type: ignore[import-not-found]

FLOOD_S = 20.0
"""How long each flood lasts (the issue measured 12-20 s floods)."""

RUN_LIMIT_S = 300
"""Longest one attack or fault may take before the run fails (a hang, not a measurement)."""

ARENA_CALL_S = 6.0
"""How long each Arena call is flooded in row 33.5: 16 calls one after another within the flood's 120 s
(``chaos.finish``); 4 s of a flood empties the bucket's 200 tokens."""

Run = Callable[[Path], Awaitable[Verdict]]


def on_server(
    attack: Callable[[ChaosServer], Awaitable[Verdict]],
    server_in: Callable[[Path], ChaosServer] = ChaosServer,
) -> Run:
    """An attack on a server of its own (``server_in(directory)``), stopped after it."""

    async def run(directory: Path) -> Verdict:
        server = server_in(directory).start()
        try:
            return await attack(server)
        finally:
            server.stop()

    return run


def runs() -> list[tuple[str, Run]]:
    """(item, run) in the table's order."""
    return [
        ("baseline", on_server(lambda s: attacks.baseline(s, FLOOD_S))),
        ("1", on_server(attacks.item_1_oversized_strings)),
        ("2", on_server(attacks.item_2_negative_games)),
        ("3", on_server(attacks.item_3_unknown_enum)),
        ("4", on_server(attacks.item_4_inert_pages)),
        ("5", on_server(attacks.item_5_revocation)),
        ("6", on_server(attacks.item_6_challenge_hold)),
        ("7", on_server(attacks.item_7_look_alikes)),
        ("8", _sync(attacks.item_8_tokens_on_command_lines)),
        ("9", on_server(lambda s: attacks.item_9_idle_streams(s, scale=1.0))),
        ("10", on_server(lambda s: attacks.item_10_non_reader(s, seconds=FLOOD_S))),
        ("11", on_server(lambda s: attacks.item_11_message_flood(s, seconds=FLOOD_S))),
        ("12", on_server(lambda s: attacks.item_12_log_flood(s, seconds=12))),
        ("13", on_server(attacks.item_13_costly_replay)),
        ("14", on_server(attacks.item_14_huge_odds)),
        ("15", on_server(lambda s: attacks.item_15_web_flood(s, seconds=FLOOD_S))),
        ("arena", on_server(lambda s: attacks.arena_flood(s, seconds=FLOOD_S))),
        ("33.2", on_server(web_attacks.item_2_hoarded_live_views)),  # 300 live views asked, never read
        ("33.3", on_server(web_attacks.item_3_slow_and_silent_connections)),  # 800 slowloris, 2,000 silent
        ("33.4", on_server(lambda s: web_attacks.item_4_forwarded_for(s, seconds=FLOOD_S))),
        ("33.5", on_server(lambda s: arena_relay.arena_flood_per_call(s, seconds=ARENA_CALL_S))),
        ("33.6", on_server(arena_relay.relay_log_flood, arena_relay.relay_replica)),  # 41 s of wrong hellos
        ("16", lambda d: faults.kill_mid_ladder(d, pairs=2, games=30)),
        ("SIGTERM", lambda d: faults.sigterm_drain(d, pairs=2, games=30)),
        ("17", lambda d: faults.locked_database(d, seconds=40)),
        ("removed", lambda d: faults.removed_database(d, seconds=20)),
        *[(f"disk-{layout}", _full(layout)) for layout in disk.LAYOUTS],
    ]


def _full(layout: str) -> Run:
    """Issue 33, item 1: the volume of ``layout`` full for a flood's length mid-ladder."""
    return lambda directory: disk.full_volume(directory, layout, seconds=FLOOD_S)


def _sync(attack: Callable[[Path], Verdict]) -> Run:
    async def run(directory: Path) -> Verdict:
        return await asyncio.to_thread(attack, directory)

    return run


async def main(only: set[str]) -> int:
    verdicts: list[Verdict] = []
    with tempfile.TemporaryDirectory(prefix="chaos-") as root:
        for index, (item, run) in enumerate(runs()):
            if only and item not in only:
                continue
            directory = Path(root) / f"{index:02d}-{item}"
            directory.mkdir()
            start = time.monotonic()
            try:
                verdict = await bounded(run(directory), RUN_LIMIT_S)
            except TimeoutError as hung:
                verdict = Verdict(item, "(did not finish)", tried=1, through=[str(hung)])
            print(f"{item}: {time.monotonic() - start:.0f} s, {verdict.through or 'held'}", file=sys.stderr)
            verdicts.append(verdict)
    print(table(verdicts))
    return 1 if any(v.through for v in verdicts) else 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--only", default="", help="comma-separated items to run (e.g. 1,16,removed)")
    sys.exit(asyncio.run(main({i for i in parser.parse_args().only.split(",") if i})))
