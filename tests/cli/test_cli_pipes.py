"""A command whose reader stops reading ends quietly (``conquest replay events FILE | head``).

The brief: "`conquest replay events FILE | head` ends with a BrokenPipe traceback: fix it for every CLI
command that prints a stream (handle SIGPIPE/BrokenPipeError cleanly)". Each test reads a line of the
command's output, closes the pipe as ``head`` does, and expects the command to end with no traceback.
"""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

from server.cli.output import PIPE_CLOSED

ROOT = Path(__file__).resolve().parents[2]
LONG_REPLAY = ROOT / "sample_bots" / "fixtures" / "replay_classic_long.json"  # ~100 kB of events


def read_a_line_then_close(*args: str, timeout: float, sigint_ignored: bool = False) -> tuple[int, str, str]:
    """Run ``conquest ARGS`` (with SIGINT ignored, as a shell starts a command with &, if asked), read its
    first line of output, close the pipe; (status, line, stderr)."""
    command = [sys.executable, "-m", "server.cli.main", *args]
    ignore = (lambda: signal.signal(signal.SIGINT, signal.SIG_IGN)) if sigint_ignored else None
    with subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=ignore
    ) as process:
        assert process.stdout is not None and process.stderr is not None
        line = process.stdout.readline()
        process.stdout.close()
        try:
            status = process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            raise AssertionError(f"conquest {args[0]} went on after its reader had gone") from None
        return status, line, process.stderr.read()


def test_replay_events_into_a_closed_pipe_ends_with_sigpipes_status_and_no_traceback() -> None:
    """More events than a pipe holds: the writes after the close fail, and the command says nothing."""
    status, line, stderr = read_a_line_then_close("replay", "events", str(LONG_REPLAY), timeout=30)
    assert line.startswith('{"firstPlayerRolled"')
    assert "Traceback" not in stderr and "BrokenPipeError" not in stderr, stderr
    assert stderr == ""
    assert status == PIPE_CLOSED == 141


@pytest.mark.parametrize("sigint_ignored", [False, True])
def test_match_stops_its_games_when_its_reader_goes(tmp_path: Path, sigint_ignored: bool) -> None:
    """A result line per finished game: once nobody reads them, the match stops as on Ctrl-C (its games
    end recorded) instead of playing on or printing a traceback; also when started with SIGINT ignored,
    as a shell starts `conquest match ... | head &` (it played all its games then, and exited 0)."""
    replays = tmp_path / "replays"
    args = ("match", "random", "house:aggressive", "--games", "500", "--turn-cap", "15")
    status, line, stderr = read_a_line_then_close(
        *args, "--replay-dir", str(replays), timeout=60, sigint_ignored=sigint_ignored
    )
    assert line.startswith("[1/500] game ")
    assert "Traceback" not in stderr and "BrokenPipeError" not in stderr, stderr
    assert status != 0
    assert 1 <= len(list(replays.glob("*.json"))) < 500
