"""``conquest replay show|verify|events|render``: a finished game's replay file, printed, re-simulated,
listed event by event or drawn.

``replay download`` (from a running server's Arena API) is registered by ``server.cli.arena``.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from google.protobuf import json_format
from google.protobuf.message import Message

from conquest.v1 import game_pb2, r2210_pb2
from engine.codec import encode_action
from engine.events import Event, GameEnded, TurnEnded, TurnStarted
from engine.r2210.replay import Replay2210, advance_2210
from engine.replay import Replay, ReplayError, Reseed, simulate, steps
from engine.state import GameState
from server.play.convert_2210 import event_2210
from server.play.replays import load_any_replay_file, load_replay_file, verify_record
from server.play.wire import event_to_pb

AnyEvent = TypeVar("AnyEvent")


def cmd_replay_verify(args: argparse.Namespace) -> int:
    failed = 0
    for path in args.files:
        try:
            replay, data = load_any_replay_file(path)
            state = verify_record(replay, data)
        except ReplayError as bad:
            print(f"FAIL {path}: {bad}")
            failed += 1
            continue
        checked = "seed commitment, " if data.get("seed_commitment") else ""
        print(
            f"OK   {path}: {len(replay.actions)} actions re-simulated (dice version "
            f"{replay.dice_version}); {checked}places {list(state.places)} and final state match"
        )
    return 1 if failed else 0


def _simulated(path: Path, command: str) -> tuple[Replay, dict[str, Any], GameState, list[Event]] | None:
    """The replay in ``path`` re-simulated, or None after telling why not (on stderr)."""
    try:
        replay, data = load_replay_file(path)
        state, events = simulate(replay)
    except ReplayError as bad:
        print(f"conquest replay {command}: {bad}", file=sys.stderr)
        return None
    return replay, data, state, events


def cmd_replay_show(args: argparse.Namespace) -> int:
    simulated = _simulated(args.file, "show")
    if simulated is None:
        return 1
    replay, data, state, events = simulated
    print(f"game {replay.game_id or '(no id)'}  queue {data.get('queue', '?')}  rules {replay.rules.name}")
    print(f"seed {replay.seed}  commitment {data.get('seed_commitment', '(not recorded)')}")
    outcomes = data.get("outcomes") or [""] * len(replay.seats)
    print(f"result: {data.get('reason') or state.end_reason or 'unfinished'} after {state.turn} turns")
    for seat in sorted(range(len(replay.seats)), key=lambda s: state.places[s] if state.places else s):
        place = state.places[seat] if state.places else "-"
        outcome = str(outcomes[seat]).removeprefix("SEAT_OUTCOME_").lower()
        print(f"  {place}. seat {seat} {replay.seats[seat]:<20} {outcome}")
    print("turns:")
    for line in turn_digest(events, replay.seats):
        print(f"  {line}")
    if replay.annotations:
        print("annotations:")
        for index, note in sorted(replay.annotations.items()):
            print(f"  action {index} {encode_action(replay.actions[index])}: {note}")
    return 0


def cmd_replay_events(args: argparse.Namespace) -> int:
    """Every event of the game, nothing hidden, one proto3 JSON ``GameEvent`` (a RISK 2210 A.D. game:
    ``GameEvent2210``) per line, zeros and empty lists written out, and a ``reseeded`` one where a game taken
    over took a fresh seed: what a verifier in another language re-derives the rolls and shuffles against
    (docs/protocol.md, "Randomness")."""
    try:
        replay, _ = load_any_replay_file(args.file)
        messages = event_messages(replay)
    except ReplayError as bad:
        print(f"conquest replay events: {bad}", file=sys.stderr)
        return 1
    for message in messages:
        fields = json_format.MessageToDict(message, always_print_fields_with_no_presence=True)
        print(json.dumps(fields, separators=(",", ":")))
    return 0


def event_messages(replay: Replay | Replay2210) -> list[Message]:
    """The replay's events re-simulated, numbered in order, each reseed as an event of its own after the
    events of the first ``at`` actions (a verifier starts the fresh seed's stream there).

    Raises:
        ReplayError: an action is illegal where the replay puts it.
    """
    reseeds, actions = replay.reseeds, len(replay.actions)
    if isinstance(replay, Replay2210):
        state_2210, setup_2210 = replay.start()
        steps_2210 = advance_2210(state_2210, replay.actions, reseeds, replay.bare_passes)
        items_2210 = _with_reseeds(setup_2210, steps_2210, reseeds, actions)
        return [
            _reseeded_2210(x, n) if isinstance(x, Reseed) else event_2210(x, n)
            for n, x in enumerate(items_2210)
        ]
    state, setup = replay.start()
    items = _with_reseeds(setup, steps(state, replay.actions, reseeds), reseeds, actions)
    return [_reseeded(x, n) if isinstance(x, Reseed) else event_to_pb(x, n) for n, x in enumerate(items)]


def _with_reseeds(
    setup: Sequence[AnyEvent],
    per_action: Iterable[Sequence[AnyEvent]],
    reseeds: Sequence[Reseed],
    actions: int,
) -> list[AnyEvent | Reseed]:
    """The setup's events, then each action's, each reseed just before the events of the action it names
    (at the end when its ``at`` is the number of actions)."""
    items: list[AnyEvent | Reseed] = list(setup)
    for i, events in enumerate(per_action):
        items.extend(r for r in reseeds if r.at == i)
        items.extend(events)
    items.extend(r for r in reseeds if r.at == actions)
    return items


def _reseeded(reseed: Reseed, sequence: int) -> game_pb2.GameEvent:
    fresh = game_pb2.ReseededEvent(at=reseed.at, seed=reseed.seed, commitment=reseed.commitment)
    return game_pb2.GameEvent(sequence=sequence, reseeded=fresh)


def _reseeded_2210(reseed: Reseed, sequence: int) -> r2210_pb2.GameEvent2210:
    """A 2210 reseed as a ``GameEvent2210`` of kind ``reseeded``; the seed is a decimal string, as proto3
    JSON writes a classic one (a JavaScript number would lose its low digits)."""
    data = {"at": reseed.at, "seed": str(reseed.seed), "commitment": reseed.commitment}
    return r2210_pb2.GameEvent2210(
        sequence=sequence, kind="reseeded", seat=-1, data_json=json.dumps(data, separators=(",", ":"))
    )


def cmd_replay_render(args: argparse.Namespace) -> int:
    from server.web.replay_view import standalone_page, viewer_data

    try:
        _, data = load_any_replay_file(args.file)  # classic or RISK 2210 A.D.
        page = standalone_page(viewer_data(data))
    except ReplayError as bad:
        print(f"conquest replay render: {bad}", file=sys.stderr)
        return 1
    output = args.output or args.file.with_suffix(".html")
    output.write_text(page)
    print(f"wrote {output}: open it in a browser (no server needed)")
    return 0


def turn_digest(events: Sequence[object], seats: Sequence[str]) -> list[str]:
    """One line per turn: who played and how many of each event it made ("2 rolled, 1 captured"; the turn's
    own start and end are the line itself)."""
    lines: list[str] = []
    counts: Counter[str] = Counter()
    current: TurnStarted | None = None

    def flush() -> None:
        if current is not None:
            summary = ", ".join(f"{n} {kind}" for kind, n in sorted(counts.items())) or "no action"
            lines.append(f"turn {current.turn:>3} {seats[current.seat]}: {summary}")

    for event in events:
        if isinstance(event, TurnStarted):
            flush()
            current, counts = event, Counter()
        elif isinstance(event, GameEnded):
            flush()
            current = None
            lines.append(f"game ended ({event.reason}), places {list(event.places)}")
        elif current is not None and not isinstance(event, TurnEnded):
            counts[re.sub(r"(?<!^)(?=[A-Z])", " ", type(event).__name__).lower()] += 1  # "card drawn"
    flush()
    return lines


def add_commands(
    commands: argparse._SubParsersAction[argparse.ArgumentParser],
) -> argparse._SubParsersAction[argparse.ArgumentParser]:
    """Register ``replay show|verify|events|render``; returns the ``replay`` subcommands for others to
    extend."""
    replay = commands.add_parser("replay", help="inspect or verify replay files")
    replay_commands = replay.add_subparsers(dest="replay_command", required=True)
    show = replay_commands.add_parser("show", help="print a replay's players, result and turns")
    show.add_argument("file", type=Path)
    show.set_defaults(run=cmd_replay_show)
    verify = replay_commands.add_parser(
        "verify", help="re-simulate replays and check their result and seed commitment"
    )
    verify.add_argument("files", type=Path, nargs="+", metavar="FILE")
    verify.set_defaults(run=cmd_replay_verify)
    events = replay_commands.add_parser(
        "events", help="print every event of a replay (nothing hidden), one GameEvent as JSON per line"
    )
    events.add_argument("file", type=Path)
    events.set_defaults(run=cmd_replay_events)
    render = replay_commands.add_parser(
        "render", help="write a replay as one self-contained HTML page (the dashboard's replay viewer)"
    )
    render.add_argument("file", type=Path)
    render.add_argument("-o", "--output", type=Path, help="the page to write (default FILE with .html)")
    render.set_defaults(run=cmd_replay_render)
    return replay_commands
