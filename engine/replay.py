"""Replays: a game is (rules, board, seed, dice version, seats, actions); re-simulating one reproduces every
state.

The recorded result (places and the final state's fingerprint) lets ``verify`` prove a replay honest.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.actions import Action
from engine.board import Board
from engine.classic_map import CLASSIC
from engine.codec import decode_action, encode_action
from engine.dice import DICE_VERSION, DICE_VERSIONS, make_dice
from engine.errors import ActionError
from engine.events import Event
from engine.game import new_game
from engine.rules import Rules
from engine.state import GameState

BOARDS: dict[str, Board] = {CLASSIC.name: CLASSIC}
FORMAT_VERSION = 1
RESEEDED_FORMAT = 2
"""The format of a replay with ``reseeds`` (a game taken over by another server): a reader of format 1
would re-simulate it with the wrong dice, so it is told plainly that it cannot read it."""
FORMATS = (FORMAT_VERSION, RESEEDED_FORMAT)


class ReplayError(ValueError):
    """A replay that cannot be read, or whose re-simulation does not match what it records."""


@dataclass(frozen=True, slots=True)
class Reseed:
    """From action ``at`` on (after ``at`` actions), the game's randomness comes from a fresh ``seed``
    (``reseed``): what a server that took the game over from a dead one draws, so that nothing a bot saw
    of the old stream after the last action kept tells it anything about the rest (docs/protocol.md,
    "Games taken over")."""

    at: int
    seed: int
    commitment: str = ""
    """``sha256(f"{seed}:{game_id}:{at}")`` in hex, stored before the first action after ``at`` was
    played (the server checks it; the engine does not)."""


def reseed(state: GameState, seed: int) -> None:
    """Continue ``state``'s game with the dice stream of ``seed`` (same dice version) and the undrawn
    cards shuffled again by it, top first, Fisher-Yates as every shuffle: no future roll or draw follows
    from anything drawn before.

    Raises:
        ValueError: a seed the dice version does not take.
    """
    state.dice = make_dice(state.dice.version, seed)
    pile = list(state.deck)
    state.dice.shuffle(pile)
    state.deck = deque(pile)


@dataclass(slots=True)
class Replay:
    rules: Rules
    seed: int
    seats: list[str]
    """A name per seat, in seat order."""
    actions: list[Action] = field(default_factory=list)
    board: str = CLASSIC.name
    game_id: str = ""
    places: list[int] = field(default_factory=list)
    """Recorded final places (1 = best), empty while the game runs."""
    fingerprint: str = ""
    """Recorded ``GameState.fingerprint()`` of the final state."""
    annotations: dict[int, str] = field(default_factory=dict)
    """Bot-written notes by action index (shown by replay viewers)."""
    dice_version: int = DICE_VERSION
    """How the game's randomness derives from ``seed`` (``engine.dice``); a file without the field
    predates version 2 and is version 1."""
    reseeds: list[Reseed] = field(default_factory=list)
    """Where the game changed servers and its dice their seed (``Reseed``), in order; none for a game
    played on one server (the file is then format 1, as before)."""

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "format": RESEEDED_FORMAT if self.reseeds else FORMAT_VERSION,
            "game_id": self.game_id,
            "board": self.board,
            "rules": self.rules.to_dict(),
            "seed": self.seed,
            "dice_version": self.dice_version,
            "seats": list(self.seats),
            "actions": [encode_action(a) for a in self.actions],
            "places": list(self.places),
            "fingerprint": self.fingerprint,
            "annotations": {str(k): v for k, v in self.annotations.items()},
        }
        if self.reseeds:
            data["reseeds"] = [{"at": r.at, "seed": r.seed, "commitment": r.commitment} for r in self.reseeds]
        return data

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), separators=(",", ":"))

    @staticmethod
    def from_dict(data: dict[str, Any]) -> Replay:
        """Raises: ReplayError, naming the field that is missing or wrong."""
        try:
            if data.get("format") not in FORMATS:
                raise ReplayError(f"replay format {data.get('format')!r} is not one of 1, 2")
            dice_version = data.get("dice_version", 1)
            if dice_version not in DICE_VERSIONS:
                versions = ", ".join(str(v) for v in DICE_VERSIONS)
                raise ReplayError(f"replay dice_version {dice_version!r} is not one of {versions}")
            if data["board"] not in BOARDS:
                raise ReplayError(f"unknown board {data['board']!r}; boards: {', '.join(BOARDS)}")
            return Replay(
                rules=Rules.from_dict(data["rules"]),
                seed=int(data["seed"]),
                seats=[str(s) for s in data["seats"]],
                actions=[decode_action(a) for a in data["actions"]],
                board=data["board"],
                game_id=str(data.get("game_id", "")),
                places=[int(p) for p in data.get("places", [])],
                fingerprint=str(data.get("fingerprint", "")),
                annotations={int(k): str(v) for k, v in data.get("annotations", {}).items()},
                dice_version=dice_version,
                reseeds=read_reseeds(data),
            )
        except KeyError as missing:
            raise ReplayError(f"replay is missing the field {missing}") from None
        except (TypeError, ValueError) as bad:
            if isinstance(bad, ReplayError):
                raise
            raise ReplayError(f"replay has a malformed field: {bad}") from None

    @staticmethod
    def from_json(text: str) -> Replay:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as bad:
            raise ReplayError(f"replay is not valid JSON: {bad}") from None
        if not isinstance(data, dict):
            raise ReplayError("a replay is a JSON object")
        return Replay.from_dict(data)

    def start(self) -> tuple[GameState, list[Event]]:
        """Raises: RulesConfigError (seats, seed or dice version the rules do not take)."""
        return new_game(self.rules, len(self.seats), self.seed, BOARDS[self.board], self.dice_version)


def read_reseeds(data: dict[str, Any]) -> list[Reseed]:
    """The ``reseeds`` of a replay file's JSON object, classic or RISK 2210 A.D.

    Raises: ReplayError (reseeds out of order or in a format 1 file), KeyError, TypeError, ValueError."""
    reseeds = [
        Reseed(int(r["at"]), int(r["seed"]), str(r.get("commitment", ""))) for r in data.get("reseeds", [])
    ]
    if reseeds and data["format"] != RESEEDED_FORMAT:
        raise ReplayError(f"a replay with reseeds is format {RESEEDED_FORMAT}, not {data['format']!r}")
    ats = [r.at for r in reseeds]
    if ats != sorted(ats) or any(not 0 <= at <= len(data["actions"]) for at in ats):
        raise ReplayError(
            f"replay reseeds at actions {ats}: each must be between 0 and the {len(data['actions'])} "
            "actions, in order"
        )
    return reseeds


def advance(state: GameState, actions: Sequence[Action], reseeds: Sequence[Reseed] = ()) -> list[Event]:
    """Apply ``actions`` (checked) to a game at its start, each of ``reseeds`` just before the action it
    names (after the last when its ``at`` is their number), and return their events: a replay's
    re-simulation, and a game taken over brought to where its log ends.

    Raises:
        ReplayError: an action is illegal where it stands.
    """
    return [event for step in steps(state, actions, reseeds) for event in step]


def steps(
    state: GameState, actions: Sequence[Action], reseeds: Sequence[Reseed] = ()
) -> Iterator[list[Event]]:
    """``advance`` action by action: yields the events of each action in turn (the i-th list is action i's),
    so a reader can tell where each reseed fell (``conquest replay events``).

    Raises:
        ReplayError: an action is illegal where it stands.
    """
    pending = list(reversed(reseeds))
    for i, action in enumerate(actions):
        while pending and pending[-1].at == i:
            reseed(state, pending.pop().seed)
        try:
            events = state.apply(action)
        except ActionError as bad:
            raise ReplayError(f"action {i} {encode_action(action)} is illegal: {bad}") from None
        yield events
    while pending:  # a takeover after the last action (its game then ended, or goes on from there)
        reseed(state, pending.pop().seed)


def simulate(replay: Replay) -> tuple[GameState, list[Event]]:
    """Re-apply every action (checked), each reseed before the action it names, and return the final
    state and all events.

    Raises:
        ReplayError: an action is illegal where the replay puts it.
    """
    state, events = replay.start()
    events.extend(advance(state, replay.actions, replay.reseeds))
    return state, events


def verify(replay: Replay) -> GameState:
    """Re-simulate and check the recorded places and final fingerprint.

    Raises:
        ReplayError: an illegal action, or a result that differs from the recording.
    """
    state, _ = simulate(replay)
    check_recorded(list(state.places), state.fingerprint(), replay.places, replay.fingerprint)
    return state


def check_recorded(places: list[int], fingerprint: str, recorded_places: list[int], recorded: str) -> None:
    """A re-simulated game's ``places`` and final ``fingerprint`` against the recorded ones (either kind of
    game; an empty recording is not checked).

    Raises:
        ReplayError: they differ.
    """
    if recorded_places and places != recorded_places:
        raise ReplayError(f"re-simulated places {places} differ from recorded {recorded_places}")
    if recorded and fingerprint != recorded:
        raise ReplayError("re-simulated final state differs from the recorded fingerprint")
