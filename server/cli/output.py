"""How the commands print: aligned tables, one line per finished game, and what happens when the reader of
the output goes away (``conquest replay events FILE | head``)."""

from __future__ import annotations

import os
import signal
from collections.abc import Sequence
from typing import TextIO

from conquest.v1 import bot_pb2
from server.play.results import seat_outcome
from server.play.runner import GameRunner
from server.play.runner_2210 import AnyRunner, Runner2210
from server.play.seats import RemoteSeat

PIPE_CLOSED = 128 + signal.SIGPIPE
"""The exit status when the reader stopped reading: what a shell reports for a tool that SIGPIPE ended."""


def silence(out: TextIO) -> None:
    """Point ``out`` at /dev/null once its reader has gone: what is left in its buffer, and Python's flush
    at exit, then go nowhere instead of failing again with a BrokenPipeError traceback."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, out.fileno())
    finally:
        os.close(devnull)


def say(out: TextIO, text: str) -> None:
    """Print ``text`` as a line of a running command's output (a game's result, the leaderboard). If the
    reader has gone (``conquest match ... | head -3``) the command stops as on Ctrl-C: its games end and
    are recorded, and nothing more is written."""
    try:
        print(text, file=out, flush=True)
    except BrokenPipeError:
        silence(out)
        signal.raise_signal(signal.SIGINT)


def stop_on_signals() -> None:
    """Ctrl-C, SIGTERM and a reader gone (``say``) stop this command alike, as Ctrl-C does (its bot
    processes are stopped, its games recorded): SIGINT gets Python's handler back even where the parent
    ignored it (a shell does, for a command started with &; ``say`` could not stop it then), and SIGTERM,
    which would kill it at once and leave its bots running, raises SIGINT."""
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, lambda signum, frame: signal.raise_signal(signal.SIGINT))


def table(headers: Sequence[str], rows: Sequence[Sequence[object]], empty: str = "(none)") -> str:
    """Plain aligned columns: text to the left, numbers to the right, a dashed rule under the headers;
    ``empty`` under them when there are no rows (a new server's first answer)."""
    cells = [[str(c) for c in row] for row in rows]
    widths = [max([len(h), *(len(r[i]) for r in cells)]) for i, h in enumerate(headers)]
    numeric = [bool(rows) and all(isinstance(r[i], int | float) for r in rows) for i in range(len(headers))]

    def line(values: Sequence[str]) -> str:
        return "  ".join(
            v.rjust(w) if right else v.ljust(w) for v, w, right in zip(values, widths, numeric, strict=True)
        ).rstrip()

    body = [line(r) for r in cells] if cells else [empty]
    return "\n".join([line(headers), line(["-" * w for w in widths]), *body])


def outcome(runner: AnyRunner, index: int) -> str:
    """Seat ``index``'s outcome in its finished game: won, eliminated, turn_cap, forfeit_timeout, ..."""
    if isinstance(runner, Runner2210):
        value = runner.outcome(index)
    else:
        seat = runner.seats[index]
        forfeit = seat.forfeit if isinstance(seat, RemoteSeat) else None
        value = seat_outcome(runner.state, index, forfeit)
    return bot_pb2.SeatOutcome.Name(value).removeprefix("SEAT_OUTCOME_").lower()


def result_line(runner: AnyRunner) -> str:
    """``game <id>: 1. name (outcome), 2. ...; <reason> after <n> turns`` (RISK 2210 A.D.: years), best
    place first."""
    state = runner.state
    if not state.is_over():
        return f"game {runner.game_id}: ended without a result"
    ranked = sorted(range(len(runner.seats)), key=lambda i: state.places[i])
    seats = ", ".join(f"{state.places[i]}. {runner.seats[i].name} ({outcome(runner, i)})" for i in ranked)
    played = f"{runner.state.turn} turns" if isinstance(runner, GameRunner) else f"{runner.state.year} years"
    return f"game {runner.game_id}: {seats}; {runner.reason} after {played}"
