"""Interop, dice: every kit's replay verifier agrees with ``conquest replay verify`` on every rule set.

Issue 23: "Each starter kit (TypeScript, Go, Rust, Java) ships a replay verifier (re-derive every roll and
shuffle from the revealed seed and compare with the events), run in `make interop` on replays of every
ruleset against `conquest replay verify`."

``run_interop.py`` calls ``check_dice`` with the replays its kit games recorded. It adds one game of each
rule set and seat count of the default configuration's queues, played with ``conquest match`` (classic
ones short, with a turn cap; RISK 2210 A.D. at 2, 3, 4 and 5 players, whole), a dice version 1 replay
(tests/engine/fixtures) and the two games taken over by another server (sample_bots/fixtures, format 2:
a classic and a 2210 game, each reseeded twice; issue 20: "recorded in the replay so it still verifies").
For each file it writes ``conquest replay events FILE``, runs ``conquest replay verify`` on all of them and
each kit's verifier on each: all must accept them. Then tampered copies, which must be rejected: of the
Secret Mission game and of a 2210 game, the replay with another seed and that seed's own commitment (only
the dice give it away), by ``conquest replay verify`` and by every kit, and the events with one battle roll
changed, by every kit; of each game taken over, the replay and its events with the first fresh seed
changed and that seed's own commitment (only the dice after it give it away), by ``conquest replay
verify`` and by every kit. Run alone (after ``make kits``): ``.venv/bin/python tests/interop/dice_check.py``.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from server.cli.match import RULES_2210
from server.ops.config import default_queues

ROOT = Path(__file__).resolve().parents[2]
CONQUEST = ROOT / ".venv" / "bin" / "conquest"
JAVA_JAR = ROOT / "sample_bots" / "java" / "target" / "conquest-bot.jar"
VERIFIERS = {
    "go": [str(ROOT / "sample_bots" / "go" / "bin" / "verify-replay")],
    "ts": ["node", str(ROOT / "sample_bots" / "typescript" / "dist" / "src" / "verify.js")],
    "java": ["java", "-cp", str(JAVA_JAR), "conquest.bot.ReplayVerifier"],
    "rust": [str(ROOT / "sample_bots" / "rust" / "target" / "debug" / "verify-replay")],
}
V1_REPLAY = ROOT / "tests" / "engine" / "fixtures" / "v1-secret_mission.json"
RESEEDED_REPLAYS = [
    ROOT / "sample_bots" / "fixtures" / f"replay_{game}_reseeded.json" for game in ("classic", "2210")
]
"""Format 2 replays: games taken over by another server (sample_bots/fixtures/make_reseeded.py)."""
TURN_CAP = 24
"""Enough turns for cards to be drawn and traded, few enough that the 11 games take seconds."""
PARALLEL = 2
"""Processes at once (the machine has 2 cores)."""


async def run(args: list[str], gate: asyncio.Semaphore) -> tuple[int, str]:
    """Run a command (at most PARALLEL at once); its exit status and output (stdout and stderr)."""
    async with gate:
        process = await asyncio.create_subprocess_exec(
            *args, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT, cwd=ROOT
        )
        out, _ = await process.communicate()
    assert process.returncode is not None
    return process.returncode, out.decode(errors="replace")


def rule_sets() -> list[tuple[str, int]]:
    """(rules, players) of each default queue (RISK 2210 A.D.'s as "2210"); classic queues differing only
    in rule options (the defender's choice of dice draws nothing) count once, and run_interop's kit games
    play that option."""
    return sorted({(q.rules_name, q.players) for q in default_queues()})


async def record_rule_sets(work: Path, gate: asyncio.Semaphore) -> tuple[list[Path], list[str]]:
    """One game of each rule set with the sample bots (classic games capped at TURN_CAP turns; a 2210 game
    is its 5 years); the replay files and the problems."""

    async def one(rules: str, players: int) -> tuple[list[Path], list[str]]:
        folder = work / f"{rules}-{players}"
        bots = ["random" if rules == RULES_2210 else "aggressive"] * players
        args = [str(CONQUEST), "match", *bots, "--games=1", f"--queue-rules={rules}"]
        cap = [] if rules == RULES_2210 else [f"--turn-cap={TURN_CAP}"]
        code, out = await run([*args, *cap, f"--replay-dir={folder}"], gate)
        files = sorted(folder.glob("*.json"))
        if code != 0 or len(files) != 1:
            what = f"conquest match of {rules} with {players} players"
            return [], [f"{what} exited {code} with {len(files)} replays, expected 0 and 1:\n{out}"]
        return files, []

    results = await asyncio.gather(*(one(rules, players) for rules, players in rule_sets()))
    return [f for files, _ in results for f in files], [p for _, problems in results for p in problems]


def tamper_seed(replay: Path, out: Path) -> Path:
    """A copy of the replay with the next seed and that seed's commitment: only the dice disagree."""
    data = json.loads(replay.read_text())
    data["seed"] = (data["seed"] + 1) % (1 << 64)
    data["seed_commitment"] = hashlib.sha256(f"{data['seed']}:{data['game_id']}".encode()).hexdigest()
    out.write_text(json.dumps(data))
    return out


def tamper_reseed(replay: Path, events: Path, out: Path) -> tuple[Path, Path]:
    """Copies of a format 2 replay and its events whose first fresh seed is the next one, with that seed's
    own commitment in both: every reseed check holds and only the dice after it disagree."""
    data = json.loads(replay.read_text())
    reseed = data["reseeds"][0]
    reseed["seed"] = (reseed["seed"] + 1) % (1 << 63)
    reseed["commitment"] = hashlib.sha256(
        f"{reseed['seed']}:{data['game_id']}:{reseed['at']}".encode()
    ).hexdigest()
    out.write_text(json.dumps(data))

    def fresh_seed(facts: dict[str, Any]) -> None:
        facts["seed"], facts["commitment"] = str(reseed["seed"]), reseed["commitment"]  # int64: a string

    return out, edit_first(events, "reseeded", fresh_seed, out.with_suffix(".events.jsonl"))


def tamper_roll(events: Path, out: Path) -> Path:
    """A copy of the events with the attacker's highest die of the first battle roll changed."""

    def other_die(facts: dict[str, Any]) -> None:
        dice = facts["attackerDice" if "attackerDice" in facts else "attacker_dice"]
        dice[0] = 1 if dice[0] == 6 else 6

    return edit_first(events, "rolled", other_die, out)


def edit_first(events: Path, kind: str, edit: Callable[[dict[str, Any]], None], out: Path) -> Path:
    """A copy of ``conquest replay events`` output with the facts of the first event of ``kind`` changed by
    ``edit`` (a classic ``GameEvent``'s oneof field, or a 2210 one's ``dataJson``), written to ``out``."""
    lines = events.read_text().splitlines()
    for i, line in enumerate(lines):
        event = json.loads(line)
        if kind in event or event.get("kind") == kind:
            facts = event[kind] if kind in event else json.loads(event["dataJson"])
            edit(facts)
            if kind not in event:
                event["dataJson"] = json.dumps(facts, separators=(",", ":"))
            lines[i] = json.dumps(event, separators=(",", ":"))
            break
    else:
        raise ValueError(f"{events} has no {kind} event to tamper with")
    out.write_text("\n".join(lines) + "\n")
    return out


def one_per_rules(replays: list[Path]) -> list[Path]:
    """The first of the replays with each distinct rules (rule set and options)."""
    chosen: dict[str, Path] = {}
    for replay in sorted(replays):
        chosen.setdefault(json.dumps(json.loads(replay.read_text())["rules"], sort_keys=True), replay)
    return list(chosen.values())


async def check_dice(kit_replays: list[Path], work: Path, kits: list[str]) -> list[str]:
    """Record, verify and cross-check with the verifiers of ``kits`` as the module docstring says; the
    problems found."""
    gate = asyncio.Semaphore(PARALLEL)
    work.mkdir(parents=True, exist_ok=True)
    recorded, problems = await record_rule_sets(work / "rule-sets", gate)
    v1 = work / V1_REPLAY.name
    shutil.copy(V1_REPLAY, v1)
    reseeded = [Path(shutil.copy(replay, work / replay.name)) for replay in RESEEDED_REPLAYS]
    replays = [*recorded, *kit_replays, v1, *reseeded]

    async def write_events(replay: Path) -> Path:
        code, out = await run([str(CONQUEST), "replay", "events", str(replay)], gate)
        if code != 0:
            problems.append(f"conquest replay events {replay} exited {code}: {out}")
        events = replay.with_suffix(".events.jsonl")
        events.write_text(out)
        return events

    pairs = list(zip(replays, await asyncio.gather(*(write_events(r) for r in replays)), strict=True))
    tampered: list[tuple[Path, Path]] = []  # (replay, events) that every verifier must reject
    for label in ("secret_mission", RULES_2210):
        game = next((p for p in pairs if p[0] in recorded and p[0].parent.name.startswith(label)), None)
        if game is None:
            return [*problems, f"no {label} game was recorded to tamper with"]
        tampered.append((tamper_seed(game[0], work / f"tampered-seed-{label}.json"), game[1]))
        tampered.append((game[0], tamper_roll(game[1], work / f"tampered-roll-{label}.events.jsonl")))
    for replay, events in (pair for pair in pairs if pair[0] in reseeded):
        tampered.append(tamper_reseed(replay, events, work / f"tampered-reseed-{replay.name}"))

    code, out = await run([str(CONQUEST), "replay", "verify", *map(str, replays)], gate)
    if code != 0:
        problems.append(f"conquest replay verify rejected a recorded game:\n{out}")
    for bad_seed in (
        replay for replay, _ in tampered if replay.name.startswith(("tampered-seed", "tampered-reseed"))
    ):
        code, out = await run([str(CONQUEST), "replay", "verify", str(bad_seed)], gate)
        if code != 1:
            problems.append(f"conquest replay verify exited {code} on {bad_seed.name}, not 1:\n{out}")

    cases = [(kit, replay, events, 0) for kit in kits for replay, events in pairs]
    cases += [(kit, replay, events, 1) for kit in kits for replay, events in tampered]
    results = await asyncio.gather(
        *(run([*VERIFIERS[kit], str(replay), str(events)], gate) for kit, replay, events, _ in cases)
    )
    for (kit, replay, events, wanted), (code, out) in zip(cases, results, strict=True):
        if code != wanted:
            verdict = "accept" if wanted == 0 else "reject (exit 1)"
            files = f"{replay.name} {events.name}"
            problems.append(f"{kit} verifier exited {code} on {files}; it must {verdict} them:\n{out}")
    print(
        f"dice: {len(replays)} replays ({len(recorded)} rule sets, {len(kit_replays)} kit games, 1 of dice"
        f" version 1, {len(reseeded)} taken over) and {len(tampered)} tampered copies: conquest replay verify"
        f" and the {', '.join(kits)} verifiers agree"
    )
    return problems


def main() -> int:
    work = Path(tempfile.mkdtemp(prefix="conquest-dice-"))
    problems = asyncio.run(check_dice([], work, list(VERIFIERS)))
    for problem in problems:
        print(f"FAIL {problem}")
    if problems:
        print(f"dice: {len(problems)} problem(s); files kept in {work}")
        return 1
    shutil.rmtree(work)
    print("dice: OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
