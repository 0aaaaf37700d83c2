"""RISK 2210 A.D. replays: (rules, seed, dice version, seats, actions); re-simulating one reproduces the game.

Every random choice of a 2210 game (devastation, decks, d6 and d8 rolls, roll-offs) is drawn from the one
stream the seed fixes (``engine.r2210.dice``), so the seed commitment covers them all. A replay file is
marked ``"game": "2210"``; an action is ``[kind, field, ...]`` with the kind a name of
``ACTION_KINDS_2210`` and tuple fields as lists. Each action is recorded with the seat that took it (several
seats are asked at once in the bids). A game taken over by another server lists its fresh seeds
(``reseeds``, format 2) as a classic one does (``engine.replay.Reseed``); ``reseed_2210`` says what one
changes.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.dice import DICE_VERSION
from engine.errors import ActionError
from engine.r2210.actions import ACTION_KINDS_2210, Action2210, Commander, EndPhase, Phase
from engine.r2210.cardplay import plays, window
from engine.r2210.dice import Dice
from engine.r2210.events import Event2210
from engine.r2210.game import apply, new_game_2210
from engine.r2210.rules import Rules2210
from engine.r2210.state import GameState2210
from engine.replay import (
    FORMAT_VERSION,
    FORMATS,
    RESEEDED_FORMAT,
    Replay,
    ReplayError,
    Reseed,
    check_recorded,
    read_reseeds,
)
from engine.rules import DefenderDice

GAME = "2210"
"""The ``game`` field of a 2210 replay file (a classic file has none)."""
_KIND_NAMES = {kind: name for name, kind in ACTION_KINDS_2210.items()}
_COMMANDER_FIELDS = frozenset({"commander", "deck"})
_COMMANDERS_FIELDS = frozenset({"d8", "commanders"})
_CARD_WINDOWS = frozenset({Phase.REACT, Phase.TURN_END, Phase.GAME_END, Phase.EXCHANGE})
"""The phases that ask a seat only whether to play a card (``EndPhase`` passes)."""


def rules_to_dict(rules: Rules2210) -> dict[str, Any]:
    data = {f.name: getattr(rules, f.name) for f in dataclasses.fields(Rules2210)}
    data["defender_dice"] = rules.defender_dice.value
    return data


def rules_from_dict(data: dict[str, Any]) -> Rules2210:
    """Raises: ReplayError naming an unknown rules field."""
    known = {f.name for f in dataclasses.fields(Rules2210)}
    unknown = sorted(set(data) - known)
    if unknown:
        raise ReplayError(f"unknown 2210 rules fields {unknown}; known: {sorted(known)}")
    values = dict(data)
    if "defender_dice" in values:
        values["defender_dice"] = DefenderDice(values["defender_dice"])
    return Rules2210(**values)


def encode_action(seat: int, action: Action2210) -> list[Any]:
    """``[seat, kind, field, ...]``: the seat first (a bid is applied with its seat)."""
    return [seat, _KIND_NAMES[type(action)], *(list(v) if isinstance(v, tuple) else int(v) for v in action)]


def decode_action(data: list[Any]) -> tuple[int, Action2210]:
    """Raises: ReplayError for an unknown kind or wrong fields."""
    if not isinstance(data, list) or len(data) < 2 or data[1] not in ACTION_KINDS_2210:
        raise ReplayError(f"not a 2210 action [seat, kind, ...]: {data!r}")
    kind = ACTION_KINDS_2210[data[1]]
    values = data[2:]
    if len(values) != len(kind._fields):
        raise ReplayError(f"{data[1]} takes fields {list(kind._fields)}, got {values!r}")
    fields: list[Any] = []
    for name, value in zip(kind._fields, values, strict=True):
        if name in _COMMANDER_FIELDS:
            fields.append(Commander(value))
        elif name in _COMMANDERS_FIELDS:
            fields.append(tuple(Commander(v) for v in value))
        elif isinstance(value, list):
            fields.append(tuple(value))
        else:
            fields.append(value)
    action: Action2210 = kind(*fields)
    return int(data[0]), action


@dataclass(slots=True)
class Replay2210:
    rules: Rules2210
    seed: int
    seats: list[str]
    """A name per seat, in seat order."""
    actions: list[tuple[int, Action2210]] = field(default_factory=list)
    """(seat, action) in the order applied."""
    game_id: str = ""
    places: list[int] = field(default_factory=list)
    fingerprint: str = ""
    annotations: dict[int, str] = field(default_factory=dict)
    dice_version: int = DICE_VERSION
    board: str = GAME
    reseeds: list[Reseed] = field(default_factory=list)
    """Where the game changed servers and took a fresh seed (``reseed_2210``), in order; none for a game
    played on one server (the file is then format 1, as before)."""
    bare_passes: bool = True
    """The record holds the passes of seats asked in a card window with nothing to play (recorded since
    issue 34, when the windows began to ask by public card counts); a file without ``"bare_passes"`` was
    recorded before, when only seats with a card to play were asked, and its replay supplies them
    (``advance_2210``)."""

    def to_dict(self) -> dict[str, Any]:
        data = {
            "format": RESEEDED_FORMAT if self.reseeds else FORMAT_VERSION,
            "game": GAME,
            "game_id": self.game_id,
            "board": self.board,
            "rules": rules_to_dict(self.rules),
            "seed": self.seed,
            "dice_version": self.dice_version,
            "seats": list(self.seats),
            "actions": self.encoded(self.actions),
            "places": list(self.places),
            "fingerprint": self.fingerprint,
            "annotations": {str(k): v for k, v in self.annotations.items()},
            "bare_passes": self.bare_passes,
        }
        if self.reseeds:
            data["reseeds"] = [{"at": r.at, "seed": r.seed, "commitment": r.commitment} for r in self.reseeds]
        return data

    @staticmethod
    def encoded(actions: list[tuple[int, Action2210]]) -> list[list[Any]]:
        return [encode_action(seat, action) for seat, action in actions]

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), separators=(",", ":"))

    @staticmethod
    def from_dict(data: dict[str, Any]) -> Replay2210:
        """Raises: ReplayError, naming the field that is missing or wrong."""
        try:
            if data.get("format") not in FORMATS or data.get("game") != GAME:
                raise ReplayError(f'not a 2210 replay of format 1 or 2 ("game": "{GAME}")')
            if data.get("dice_version") != DICE_VERSION:
                raise ReplayError(
                    f"2210 replays use dice_version {DICE_VERSION}, not {data.get('dice_version')!r}"
                )
            return Replay2210(
                rules=rules_from_dict(data["rules"]),
                seed=int(data["seed"]),
                seats=[str(s) for s in data["seats"]],
                actions=[decode_action(a) for a in data["actions"]],
                game_id=str(data.get("game_id", "")),
                places=[int(p) for p in data.get("places", [])],
                fingerprint=str(data.get("fingerprint", "")),
                annotations={int(k): str(v) for k, v in data.get("annotations", {}).items()},
                reseeds=read_reseeds(data),
                bare_passes=bool(data.get("bare_passes", False)),
            )
        except KeyError as missing:
            raise ReplayError(f"replay is missing the field {missing}") from None
        except (TypeError, ValueError) as bad:
            if isinstance(bad, ReplayError):
                raise
            raise ReplayError(f"replay has a malformed field: {bad}") from None

    def start(self) -> tuple[GameState2210, list[Event2210]]:
        return new_game_2210(self.rules, len(self.seats), self.seed)


def reseed_2210(state: GameState2210, seed: int) -> None:
    """Continue ``state``'s game with the stream of ``seed`` (a game taken over by another server), so
    that nothing a seat saw after the last logged action tells it anything about the rest: every later
    roll comes from the fresh stream; the undrawn cards of the Land, Water and Lunar territory decks and
    of the five Command decks (in that order) are shuffled again by it (Fisher-Yates from the back, top
    first, as every shuffle); and in the bids, every bid not yet revealed is withdrawn and every living
    seat bids again (a bid lost with the rest may have completed the reveal the seats saw: re-asking
    only the seats whose bids were lost would let them bid knowing the others')."""
    state.dice = Dice(seed)
    for deck in (state.land_deck, state.water_deck, state.lunar_deck, *state.command_decks):
        state.dice.shuffle(deck)
    if state.phase == Phase.BID:
        state.bids = [-1] * state.seats


def advance_2210(
    state: GameState2210,
    actions: Sequence[tuple[int, Action2210]],
    reseeds: Sequence[Reseed] = (),
    bare_passes: bool = True,
) -> Iterator[list[Event2210]]:
    """Apply ``actions`` (each with its seat, checked) to a game, each of ``reseeds`` just before the action
    it names (after the last when its ``at`` is their number), yielding each action's events: a replay's
    re-simulation, and a game taken over brought to where its log ends. When the record lacks the bare
    passes (``Replay2210.bare_passes`` false), each is applied where it falls, its events with the next
    recorded action's.

    Raises:
        ReplayError: an action is illegal where it stands.
    """
    pending = list(reversed(reseeds))
    for i, (seat, action) in enumerate(actions):
        while pending and pending[-1].at == i:
            reseed_2210(state, pending.pop().seed)
        events = [] if bare_passes else _bare_passes(state)
        try:
            events += apply(state, action, seat)
        except ActionError as bad:
            raise ReplayError(f"action {i} {encode_action(seat, action)} is illegal: {bad}") from None
        if not bare_passes and i == len(actions) - 1:
            events += _bare_passes(state)
        yield events
    while pending:  # a takeover after the last action
        reseed_2210(state, pending.pop().seed)


def _bare_passes(state: GameState2210) -> list[Event2210]:
    """The passes of the seats asked in a card window with nothing to play, one after another (the only
    answer they have), and their events: what a record made before issue 34 leaves out."""
    events: list[Event2210] = []
    while state.phase in _CARD_WINDOWS and not plays(state, state.to_act, window(state, state.to_act)):
        events += apply(state, EndPhase(), state.to_act)
    return events


def replayed(replay: Replay2210) -> Iterator[tuple[GameState2210, list[Event2210]]]:
    """The game step by step: the state as the setup left it with the setup's events, then after each action
    (re-applied, checked, each reseed before the action it names) with that action's events. One state
    object, changed in place between steps.

    Raises:
        ReplayError: an action is illegal where the replay puts it.
    """
    state, setup = replay.start()
    yield state, setup
    for events in advance_2210(state, replay.actions, replay.reseeds, replay.bare_passes):
        yield state, events


def any_replay(data: dict[str, Any]) -> Replay | Replay2210:
    """The replay in a replay file's JSON object, of its kind: 2210 when marked ``"game": "2210"``, else
    classic.

    Raises:
        ReplayError: not a replay (the message names the field).
    """
    return Replay2210.from_dict(data) if data.get("game") == GAME else Replay.from_dict(data)


def simulate(replay: Replay2210) -> tuple[GameState2210, list[Event2210]]:
    """Re-apply every action (checked) and return the final state and all events.

    Raises:
        ReplayError: an action is illegal where the replay puts it.
    """
    steps = replayed(replay)
    state, events = next(steps)
    for _, step in steps:
        events.extend(step)
    return state, events


def verify(replay: Replay2210) -> GameState2210:
    """Re-simulate and check the recorded places and final fingerprint.

    Raises:
        ReplayError: an illegal action, or a result that differs from the recording.
    """
    state, _ = simulate(replay)
    check_recorded(list(state.places), state.fingerprint(), replay.places, replay.fingerprint)
    return state
