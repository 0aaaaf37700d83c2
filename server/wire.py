"""Engine values <-> protobuf messages. The only place that knows both shapes.

Messages are built with keyword constructors over plain lists: building protobuf messages from Python
objects is the expensive part of a Python server, so per-territory state goes out as packed arrays.
"""

from __future__ import annotations

from typing import Any, cast

from google.protobuf import descriptor_pb2, descriptor_pool
from google.protobuf.descriptor import Descriptor
from google.protobuf.message_factory import GetMessageClass

from conquest.v1 import bot_pb2
from conquest.v1 import game_pb2 as pb
from engine import events as ev
from engine.actions import (
    Action,
    Attack,
    ChooseDefence,
    ChooseHeadquarters,
    Claim,
    EndPhase,
    Fortify,
    Occupy,
    Phase,
    Place,
    TradeCards,
)
from engine.board import Board
from engine.classic_map import CLASSIC
from engine.errors import MalformedActionError
from engine.goals import GOALS, MISSIONS, HeadquartersGoal, mission_deck
from engine.legal import AttackOption, FortifyOption, LegalActions
from engine.observe import Observation
from engine.rules import Objective, Rules
from engine.state import PlayerStatus

MAP_WIDTH = 1000
MAP_HEIGHT = 560


# The enums' ValueType is a typing.NewType, which costs a Python call at run time; cast costs nothing, and
# these run for every DecisionRequest (a phase and a status per seat).
def phase_to_pb(phase: Phase) -> pb.Phase.ValueType:
    return cast(pb.Phase.ValueType, int(phase) + 1)


def statuses_to_pb(statuses: tuple[PlayerStatus, ...]) -> list[pb.PlayerStatus.ValueType]:
    return [cast(pb.PlayerStatus.ValueType, int(s) + 1) for s in statuses]


def map_info(board: Board) -> pb.MapInfo:
    return pb.MapInfo(
        name=board.name,
        territories=[
            pb.Territory(
                name=t.name,
                continent=t.continent,
                card_design=pb.CardDesign.ValueType(int(t.design) + 1),
                x=t.x,
                y=t.y,
                neighbours=board.neighbours[i],
            )
            for i, t in enumerate(board.territories)
        ],
        continents=[
            pb.Continent(name=c.name, bonus=c.bonus, territories=board.continent_members[i])
            for i, c in enumerate(board.continents)
        ],
        wild_cards=board.wild_cards,
        width=MAP_WIDTH,
        height=MAP_HEIGHT,
    )


def rules_info(rules: Rules, seats: int, board: Board = CLASSIC) -> pb.RulesInfo:
    """The rules of a game of ``seats`` players (``board`` names the missions' continents)."""
    goal = GOALS[rules.objective]
    return pb.RulesInfo(
        preset=rules.name,
        setup=rules.setup.value,
        neutral=rules.neutral,
        starting_armies=rules.starting_armies_for(seats),
        trade_values=rules.trade_values,
        trade_increment=rules.trade_increment,
        forced_trade_at=rules.forced_trade_at,
        elimination_trade_at=rules.elimination_trade_at,
        elimination_trade_down_to=rules.elimination_trade_down_to,
        territory_bonus=rules.territory_bonus,
        territory_bonus_mode=rules.territory_bonus_mode.value,
        fortify=rules.fortify.value,
        defender_dice=rules.defender_dice.value,
        turn_cap=rules.turn_cap,
        objective=rules.objective.value,
        capital_goal=rules.capital_goal.value,
        headquarters_needed=goal.needed(rules, seats) if isinstance(goal, HeadquartersGoal) else 0,
        three_continent_missions=rules.three_continent_missions,
        allied_army=rules.allied_army,
        elimination_extra_trades=rules.elimination_extra_trades,
        missions=_missions(rules, seats, board) if rules.objective == Objective.MISSIONS else (),
    )


def _missions(rules: Rules, seats: int, board: Board) -> list[pb.Mission]:
    continent = {c.name: i for i, c in enumerate(board.continents)}
    deck = set(mission_deck(rules, seats))
    return [
        pb.Mission(
            text=m.text,
            continents=[continent[name] for name in m.continents],
            other_continents=m.other_continents,
            territories=m.territories,
            min_armies=m.min_armies,
            destroy=m.destroy,
            in_deck=i in deck,
        )
        for i, m in enumerate(MISSIONS)
    ]


def observation(obs: Observation) -> pb.Observation:
    return pb.Observation(
        **observation_fields(obs),
        owners=obs.owners,
        armies=obs.armies,
        hand_sizes=obs.hand_sizes,
        statuses=statuses_to_pb(obs.statuses),
    )


def observation_fields(obs: Observation) -> dict[str, Any]:
    """The Observation's fields but its public arrays (``PublicArrays``), for building it in place. Zeros
    and empty sequences are left out, as proto3 leaves them unset anyway: upb charges for each one handed
    to it, and these fields go with every request."""
    if obs.pending_attack:
        source, target, count = obs.pending_attack
    elif obs.pending_occupy:
        source, target, count = obs.pending_occupy
    else:
        source, target, count = -1, -1, 0
    fields: dict[str, Any] = {"phase": phase_to_pb(obs.phase)}
    if obs.to_act:
        fields["to_act"] = obs.to_act
    if obs.turn:
        fields["turn"] = obs.turn
    if obs.turn_seat:
        fields["turn_seat"] = obs.turn_seat
    if obs.hand:
        fields["hand"] = obs.hand
    if obs.deck_size:
        fields["deck_size"] = obs.deck_size
    if obs.trades_done:
        fields["trades_done"] = obs.trades_done
    if obs.next_trade_value:
        fields["next_trade_value"] = obs.next_trade_value
    if obs.reinforcements:
        fields["reinforcements"] = obs.reinforcements
    if source:
        fields["pending_source"] = source
    if target:
        fields["pending_target"] = target
    if count:
        fields["pending_count"] = count
    if obs.headquarters:
        fields["headquarters"] = obs.headquarters
    if obs.mission:
        fields["mission"] = obs.mission
    if obs.missions:
        fields["missions"] = obs.missions
    return fields


def serialized_observation_part(obs: Observation) -> bytes:
    """``obs`` serialized without its public arrays (``PublicArrays`` serializes those). Made once for each
    distinct value: the same part recurs within a turn (the attacks between move-ins) and across games
    (the setup's claims and placements)."""
    key = (
        obs.phase,
        obs.to_act,
        obs.turn,
        obs.turn_seat,
        obs.hand,
        obs.deck_size,
        obs.trades_done,
        obs.next_trade_value,
        obs.reinforcements,
        obs.pending_attack,
        obs.pending_occupy,
        obs.headquarters,
        obs.mission,
        obs.missions,
    )  # every field ``observation_fields`` reads
    part = _OBSERVATION_PARTS.get(key)
    if part is None:
        if len(_OBSERVATION_PARTS) >= OBSERVATION_PARTS_KEPT:
            _OBSERVATION_PARTS.clear()
        part = _OBSERVATION_PARTS[key] = pb.Observation(**observation_fields(obs)).SerializeToString()
    return part


OBSERVATION_PARTS_KEPT = 4096
_OBSERVATION_PARTS: dict[tuple[Any, ...], bytes] = {}
"""An Observation's fields but its public arrays -> those fields serialized."""


class PublicArrays:
    """The arrays of one game's Observations that every seat sees alike (``owners``, ``armies``,
    ``hand_sizes``, ``statuses``), kept as a serialized Observation holding only them and patched where
    they changed since last asked for. Building them from Python ints costs upb ~300 instructions an int
    (92 in a classic 4-player game, for every DecisionRequest); a decision changes two or three."""

    def __init__(self) -> None:
        self._message = pb.Observation()
        self._owner_field = self._message.owners  # kept: looking a repeated field up costs ~1k instructions
        self._army_field = self._message.armies
        self._owners: tuple[int, ...] = ()
        self._armies: tuple[int, ...] = ()
        self._hand_sizes: tuple[int, ...] = ()
        self._statuses: tuple[PlayerStatus, ...] = ()
        self._serialized = b""

    def serialized(self, obs: Observation) -> bytes:
        """``obs``'s public arrays, serialized."""
        changed = False
        if obs.owners != self._owners:
            _patch(self._owners, obs.owners, self._owner_field)
            self._owners = obs.owners
            changed = True
        if obs.armies != self._armies:
            _patch(self._armies, obs.armies, self._army_field)
            self._armies = obs.armies
            changed = True
        if obs.hand_sizes != self._hand_sizes:
            self._message.ClearField("hand_sizes")
            self._message.hand_sizes.extend(obs.hand_sizes)
            self._hand_sizes = obs.hand_sizes
            changed = True
        if obs.statuses != self._statuses:
            self._message.ClearField("statuses")
            self._message.statuses.extend(statuses_to_pb(obs.statuses))
            self._statuses = obs.statuses
            changed = True
        if changed:
            self._serialized = self._message.SerializeToString()
        return self._serialized


def _patch(before: tuple[int, ...], now: tuple[int, ...], field: Any) -> None:
    """Make the repeated ``field``, equal to ``before``, equal ``now``: set the items that differ."""
    if len(before) != len(now):  # the first call
        field.extend(now)
        return
    for i in range(len(now)):
        if now[i] != before[i]:
            field[i] = now[i]


def _twin(message: Descriptor, as_bytes: tuple[str, ...]) -> Any:
    """The class of a twin of ``message`` whose sub-message fields ``as_bytes`` are typed bytes. Both
    encode alike (a length-delimited field; "embedded messages are compatible with bytes if the bytes
    contain an encoded version of the message", the proto3 guide), so a sub-message serialized once
    (an event every seat is sent) goes into each message that carries it without being built again,
    and the result parses as ``message`` on any protobuf runtime."""
    name = f"{message.name}Frame"
    file = descriptor_pb2.FileDescriptorProto(
        name=f"conquest/v1/frames/{name}.proto",
        package=message.file.package,
        syntax="proto3",
        dependency=[message.file.name, *(d.name for d in message.file.dependencies)],
    )
    twin = file.message_type.add()
    message.CopyToProto(twin)
    twin.name = name
    for field in twin.field:
        if field.name in as_bytes:
            field.type = descriptor_pb2.FieldDescriptorProto.TYPE_BYTES
            field.ClearField("type_name")
    pool = descriptor_pool.Default()
    pool.Add(file)
    return GetMessageClass(pool.FindMessageTypeByName(f"{message.file.package}.{name}"))


ResponseFrame = _twin(bot_pb2.ConnectResponse.DESCRIPTOR, ("game_started", "decision_request", "game_events"))
"""ConnectResponse with a GameStarted, DecisionRequest or GameEvents put in serialized."""
GameStartedFrame = _twin(bot_pb2.GameStarted.DESCRIPTOR, ("rules", "map", "time_control", "observation"))
"""GameStarted with the rules, map, time control and observation put in serialized."""
DecisionRequestFrame = _twin(bot_pb2.DecisionRequest.DESCRIPTOR, ("observation", "events"))
"""DecisionRequest with its Observation and GameEvents put in serialized."""
GameEventsFrame = _twin(bot_pb2.GameEvents.DESCRIPTOR, ("events",))
"""GameEvents with each GameEvent put in serialized."""


def serialized_response(kind: str, frame: Any) -> bytes:
    """The serialized ConnectResponse whose ``kind`` ("game_started", "decision_request" or
    "game_events") is ``frame``, a frame of that message."""
    return cast(bytes, ResponseFrame(**{kind: frame.SerializeToString()}).SerializeToString())


def legal_actions(legal: LegalActions) -> pb.LegalActions:
    return pb.LegalActions(**legal_fields(legal))


def legal_fields(legal: LegalActions) -> dict[str, Any]:
    """The LegalActions' fields, zeros and empty sequences left out (see ``observation_fields``)."""
    fields: dict[str, Any] = {"army": legal.army if legal.army >= 0 else legal.seat}
    if legal.claim:
        fields["claim"] = legal.claim
    if legal.place_territories:
        fields["place_territories"] = legal.place_territories
    if legal.place_min:
        fields["place_min"] = legal.place_min
    if legal.place_max:
        fields["place_max"] = legal.place_max
    if legal.place_neutral:
        fields["place_neutral"] = legal.place_neutral
    if legal.trades:
        fields["trades"] = [
            pb.CardSet(cards=cards, bonus_territories=bonus)
            for cards, bonus in zip(legal.trades, legal.bonus_territories, strict=True)
        ]
    if legal.must_trade:
        fields["must_trade"] = legal.must_trade
    if legal.attacks:
        fields["attack_sources"] = [a.source for a in legal.attacks]
        fields["attack_targets"] = [a.target for a in legal.attacks]
        fields["attack_max_dice"] = [a.max_dice for a in legal.attacks]
        fields["attack_source_armies"] = [a.source_armies for a in legal.attacks]
    if legal.defend_max:
        fields["defend_max"] = legal.defend_max
    if legal.occupy_min:
        fields["occupy_min"] = legal.occupy_min
    if legal.occupy_max:
        fields["occupy_max"] = legal.occupy_max
    if legal.fortify:
        sources: list[int] = []
        targets: list[int] = []
        most: list[int] = []
        for option in legal.fortify:
            for target in option.targets:
                sources.append(option.source)
                targets.append(target)
                most.append(option.max_armies)
        fields["fortify_sources"] = sources
        fields["fortify_targets"] = targets
        fields["fortify_max_armies"] = most
    if legal.can_end:
        fields["can_end"] = legal.can_end
    if legal.headquarters:
        fields["headquarters"] = legal.headquarters
    return fields


def legal_from_pb(message: pb.LegalActions, phase: pb.Phase.ValueType, seat: int) -> LegalActions:
    """The engine's LegalActions back from the wire (for clients: engine policies and defaults run on it)."""
    fortify: list[FortifyOption] = []
    for source, target, most in zip(
        message.fortify_sources, message.fortify_targets, message.fortify_max_armies, strict=True
    ):
        if fortify and fortify[-1].source == source:
            fortify[-1] = fortify[-1]._replace(targets=(*fortify[-1].targets, target))
        else:
            fortify.append(FortifyOption(source, (target,), most))
    return LegalActions(
        phase=Phase(int(phase) - 1),
        seat=seat,
        claim=tuple(message.claim),
        place_territories=tuple(message.place_territories),
        place_min=message.place_min,
        place_max=message.place_max,
        place_neutral=message.place_neutral,
        trades=tuple((s.cards[0], s.cards[1], s.cards[2]) for s in message.trades),
        bonus_territories=tuple(tuple(s.bonus_territories) for s in message.trades),
        must_trade=message.must_trade,
        attacks=tuple(
            AttackOption(*option)
            for option in zip(
                message.attack_sources,
                message.attack_targets,
                message.attack_max_dice,
                message.attack_source_armies,
                strict=True,
            )
        ),
        defend_max=message.defend_max,
        occupy_min=message.occupy_min,
        occupy_max=message.occupy_max,
        fortify=tuple(fortify),
        can_end=message.can_end,
        headquarters=tuple(message.headquarters),
        army=message.army if message.army != seat else -1,
    )


def action_from_pb(message: pb.Action) -> Action:
    """The engine action a Decision carries.

    Raises:
        MalformedActionError: no action kind is set, or a trade does not name exactly three cards.
    """
    kind = message.WhichOneof("kind")
    if kind == "attack":
        a = message.attack
        return Attack(a.source, a.target, a.dice, a.repeat_until)
    if kind == "place":
        return Place(message.place.territory, message.place.armies)
    if kind == "end_phase":
        return EndPhase()
    if kind == "occupy":
        return Occupy(message.occupy.armies)
    if kind == "fortify":
        f = message.fortify
        return Fortify(f.source, f.target, f.armies)
    if kind == "trade_cards":
        t = message.trade_cards
        if len(t.cards) != 3:
            raise MalformedActionError(f"trade_cards needs exactly 3 card ids, got {list(t.cards)}")
        bonus = t.bonus_territory if t.HasField("bonus_territory") else -1
        return TradeCards((t.cards[0], t.cards[1], t.cards[2]), bonus)
    if kind == "choose_defence":
        return ChooseDefence(message.choose_defence.dice)
    if kind == "claim":
        return Claim(message.claim.territory)
    if kind == "choose_headquarters":
        return ChooseHeadquarters(message.choose_headquarters.territory)
    raise MalformedActionError(
        "the Decision carries no action: set exactly one of claim, place, trade_cards, attack, "
        "choose_defence, occupy, fortify, end_phase or choose_headquarters"
    )


def action_to_pb(action: Action) -> pb.Action:
    if isinstance(action, Attack):
        return pb.Action(attack=pb.AttackAction(**action._asdict()))
    if isinstance(action, Place):
        return pb.Action(place=pb.PlaceAction(**action._asdict()))
    if isinstance(action, EndPhase):
        return pb.Action(end_phase=pb.EndPhaseAction())
    if isinstance(action, Occupy):
        return pb.Action(occupy=pb.OccupyAction(armies=action.armies))
    if isinstance(action, Fortify):
        return pb.Action(fortify=pb.FortifyAction(**action._asdict()))
    if isinstance(action, TradeCards):
        bonus = action.bonus_territory if action.bonus_territory >= 0 else None
        return pb.Action(trade_cards=pb.TradeCardsAction(cards=action.cards, bonus_territory=bonus))
    if isinstance(action, ChooseDefence):
        return pb.Action(choose_defence=pb.ChooseDefenceAction(dice=action.dice))
    if isinstance(action, Claim):
        return pb.Action(claim=pb.ClaimAction(territory=action.territory))
    return pb.Action(choose_headquarters=pb.ChooseHeadquartersAction(territory=action.territory))


def event_to_pb(event: ev.Event, sequence: int) -> pb.GameEvent:
    """A GameEvent; pass events through ``engine.events.public_view`` first to hide cards."""
    return pb.GameEvent.FromString(serialized_event(event, sequence))


def serialized_event(event: ev.Event, sequence: int) -> bytes:
    """``event_to_pb(event, sequence)`` serialized: the runner sends events only as bytes. Built from two
    serialized parts, each made once (two serialized messages with no field in common concatenate to the
    message with the fields of both): the sequence number, and the event, which most often recurs
    (claims, placements, move-ins, turn ends: about two events in three come from ``_EVENT_BODIES``)."""
    number = _SEQUENCES.get(sequence)
    if number is None:
        number = pb.GameEvent(sequence=sequence).SerializeToString()
        if sequence < SEQUENCES_KEPT:
            _SEQUENCES[sequence] = number
    key = (type(event), event)  # equal tuples of two event types are two entries
    body = _EVENT_BODIES.get(key)
    if body is None:
        if len(_EVENT_BODIES) >= EVENT_BODIES_KEPT:
            _EVENT_BODIES.clear()
        body = _EVENT_BODIES[key] = _event_body(event)
    return number + body


EVENT_BODIES_KEPT = 16_384
"""Enough for the ~14,000 distinct events of 60,000 decisions of the bench's 20-turn classic games (each
entry ~300 bytes): at 4,096 the cache was cleared every few thousand decisions and missed twice as often,
for events (moves-in, captures, placements) that would have come again."""
_EVENT_BODIES: dict[tuple[type, ev.Event], bytes] = {}
"""(event type, event) -> a GameEvent holding the event and no sequence number, serialized."""
SEQUENCES_KEPT = 20_000
_SEQUENCES: dict[int, bytes] = {}
"""sequence number -> a GameEvent holding only that sequence number, serialized (dicts, not lists: the
arena's replay views may call in from another thread, and a dict entry is written whole or not at all)."""


def _event_body(event: ev.Event) -> bytes:
    if isinstance(event, ev.FirstPlayerRolled):
        flat = [die for round_ in event.rolls for die in round_]
        first = pb.FirstPlayerRolledEvent(rolls=flat, seat=event.seat)
        return pb.GameEvent(first_player_rolled=first).SerializeToString()
    # The event's fields as a dict: the sub-message is built in place, not built and then copied in
    # (protobuf's constructors take a dict for a message field; the stubs don't say so).
    # dict(zip(...)) is NamedTuple._asdict() without its Python-level call (and without strict=True,
    # whose keyword parsing cost more than the rest: a NamedTuple's values always match its fields).
    values = dict(zip(event._fields, event))  # noqa: B905
    fields: dict[str, Any] = {_EVENT_FIELDS[type(event)]: values}
    return pb.GameEvent(**fields).SerializeToString()


_EVENT_FIELDS: dict[type, str] = {
    ev.Dealt: "dealt",
    ev.Claimed: "claimed",
    ev.Placed: "placed",
    ev.TurnStarted: "turn_started",
    ev.Traded: "traded",
    ev.Captured: "captured",
    ev.Occupied: "occupied",
    ev.Eliminated: "eliminated",
    ev.CardsTaken: "cards_taken",
    ev.Drew: "drew",
    ev.Fortified: "fortified",
    ev.TurnEnded: "turn_ended",
    ev.GameEnded: "game_ended",
    ev.MissionDealt: "mission_dealt",
    ev.MissionsRevealed: "missions_revealed",
    ev.HeadquartersChosen: "headquarters_chosen",
    ev.HeadquartersRevealed: "headquarters_revealed",
    ev.Rolled: "rolled",
}
