"""The starter kits' shared fixture (sample_bots/fixtures/decisions.json) is what the server sends today.

Every kit's tests (Go, TypeScript, Java, Rust) feed these recorded DecisionRequests to its strategy, so a
stale file would test the kits against a protocol the server no longer speaks.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

SCRIPT = Path(__file__).parents[2] / "sample_bots" / "fixtures" / "make_decisions.py"
spec = importlib.util.spec_from_file_location("make_decisions", SCRIPT)
assert spec and spec.loader
make_decisions = importlib.util.module_from_spec(spec)
spec.loader.exec_module(make_decisions)


def test_fixture_regenerates_identically():
    """Issue 7: each kit "handles every decision kind the protocol has", checked against recorded
    requests. A difference means the wire or the engine changed: run
    `.venv/bin/python sample_bots/fixtures/make_decisions.py`, review the diff and commit it."""
    assert make_decisions.OUT.read_text() == make_decisions.render(), "decisions.json is stale"


def test_fixture_records_the_protocol_hints_kits_rely_on():
    """Kit feedback (commit 1833bdf): kits read the move-in source from Observation.pending_source and
    a neutral placement from LegalActions.place_neutral instead of guessing them from the board."""
    games = json.loads(make_decisions.OUT.read_text())["games"]
    decisions = [d for g in games for d in g["decisions"]]
    occupy = [d["request"] for d in decisions if d["kind"] == "occupy"]
    neutral = [d["request"] for d in decisions if d["kind"] == "setup_place_neutral"]
    assert occupy and neutral
    for request in occupy:
        obs = request["observation"]  # proto3 JSON leaves out zeros
        source, target, seat = (obs.get(k, 0) for k in ("pending_source", "pending_target", "to_act"))
        assert source != target
        assert obs["owners"][source] == obs["owners"][target] == seat
    assert all(r["legal"]["place_neutral"] for r in neutral)
    assert not any(
        d["request"]["legal"].get("place_neutral") for d in decisions if d["kind"] == "setup_place"
    )
