"""RISK 2210 A.D. decisions: one request's context (``Turn2210``), the safe default answer and a random legal
answer, both read from ``Legal2210`` alone (docs/protocol.md, "RISK 2210 A.D. games"); the board read once
(``Board2210``: adjacency, kinds, regions, the cards' names) and a decision's position
(``Position2210``: units, commanders, stations, battle odds), for bots that play with intent.

A bot plays 2210 by overriding ``Bot.decide_2210(game, turn)`` and returning an ``r2210_pb2.Action2210``;
the SDK sends ``turn.default()`` when it overruns or fails. Commanders and Command decks are indices
0 Land, 1 Diplomat, 2 Naval, 3 Space, 4 Nuclear (``LAND`` ... ``NUCLEAR``); territory kinds 0 land,
1 water, 2 lunar (``KIND_LAND``, ``KIND_WATER``, ``KIND_LUNAR``).

    board = game.board_2210                 # Board2210, built from GameStarted.r2210
    where = Position2210(board, turn.observation)
    where.mine, where.units[t], where.capture_odds(source, target, d8=1)
"""

from __future__ import annotations

import random
import time

from conquest.v1 import bot_pb2, game_pb2
from conquest.v1 import r2210_pb2 as pb
from conquest_sdk.odds import capture_odds

Phase2210 = pb.Phase2210
_PASS_PHASES = (pb.PHASE2210_REACT, pb.PHASE2210_TURN_END, pb.PHASE2210_GAME_END, pb.PHASE2210_EXCHANGE)
_END_ODDS = 0.15
"""Chance the random answer stops invading at each step, so games move on."""
LAND, DIPLOMAT, NAVAL, SPACE, NUCLEAR = range(5)
"""Commander (and Command deck) indices."""
KIND_LAND, KIND_WATER, KIND_LUNAR = range(3)
"""``Territory2210.kind`` values."""
_D8_KIND = {LAND: KIND_LAND, NAVAL: KIND_WATER, SPACE: KIND_LUNAR}
"""The territory kind, into or out of which a commander attacks with an 8-sided die (Nuclear: always)."""


class Turn2210:
    """One 2210 DecisionRequest: the observation, the legal actions and the clock (as ``Turn``)."""

    __slots__ = ("budget_s", "deadline", "legal", "observation", "request")

    def __init__(self, request: bot_pb2.DecisionRequest, budget_s: float = float("inf")) -> None:
        self.request = request
        self.observation = request.r2210.observation
        self.legal = request.r2210.legal
        self.budget_s = budget_s
        self.deadline = time.monotonic() + budget_s

    @property
    def phase(self) -> pb.Phase2210.ValueType:
        return self.legal.phase

    def time_left(self) -> float:
        """Seconds until the SDK answers with the default instead."""
        return self.deadline - time.monotonic()

    def default(self) -> pb.Action2210:
        return default_2210(self.legal)


class Board2210:
    """A 2210 game's board and cards, read once from its ``Start2210`` (``Game.board_2210``)."""

    def __init__(self, start: pb.Start2210) -> None:
        territories, regions = start.map.territories, start.map.regions
        self.size = len(territories)
        self.names = [t.name for t in territories]
        self.neighbours = [tuple(t.neighbours) for t in territories]
        self.kind = [t.kind for t in territories]
        self.region_of = [t.region for t in territories]
        self.regions = [tuple(r.territories) for r in regions]
        self.region_mods = [r.bonus_mods for r in regions]
        self.region_points = [r.bonus_points for r in regions]
        self.landing_sites = tuple(start.map.landing_sites)
        self.income_mods = list(start.map.income_mods)
        self.rules = start.rules
        self.card_names = [c.name for c in start.rules.cards]
        """Each card id's name (e.g. "Assemble MODs"); ``rules.cards`` has its deck, cost and timing."""
        self.card_costs = [c.cost for c in start.rules.cards]


class Position2210:
    """One observation read for play: units, commanders and stations per territory, and battle odds."""

    def __init__(self, board: Board2210, observation: pb.Observation2210) -> None:
        self.board = board
        self.seat = observation.seat
        self.owners = list(observation.owners)
        self.mods = list(observation.mods)
        self.stations = list(observation.stations)
        self.energy = list(observation.energy)
        self.devastated = set(observation.devastated)
        flat = observation.commanders
        self.commanders = [list(flat[s * 5 : s * 5 + 5]) for s in range(len(flat) // 5)]
        """Per seat, the territory of each commander (-1: not in play)."""
        self.units = list(self.mods)
        """MODs plus commanders in each territory (a Space Station is not a unit)."""
        self.commanders_at: dict[int, list[int]] = {}
        """The commanders (indices) standing in each territory that has any."""
        for per_seat in self.commanders:
            for c, t in enumerate(per_seat):
                if t >= 0:
                    self.units[t] += 1
                    self.commanders_at.setdefault(t, []).append(c)
        self.mine = [t for t, o in enumerate(self.owners) if o == self.seat]

    def in_play(self, commander: int, seat: int = -1) -> bool:
        """Whether ``seat``'s (default: ours) ``commander`` is on a board."""
        return self.commanders[self.seat if seat < 0 else seat][commander] >= 0

    def holds_region(self, region: int, seat: int = -1) -> bool:
        """Whether ``seat`` (default: us) controls every undevastated territory of ``region``."""
        seat = self.seat if seat < 0 else seat
        live = [t for t in self.board.regions[region] if t not in self.devastated]
        return bool(live) and all(self.owners[t] == seat for t in live)

    def launch_pads(self, seat: int = -1) -> list[int]:
        """``seat``'s (default: our) land territories under its own Space Station: where an invasion of the
        Moon's landing sites starts, with a Space Commander in play."""
        seat = self.seat if seat < 0 else seat
        return [
            t
            for t, owner in enumerate(self.stations)
            if owner == seat and self.owners[t] == seat and self.board.kind[t] == KIND_LAND
        ]

    def can_invade(self, seat: int, source: int, target: int) -> bool:
        """Whether ``seat``'s commanders let it invade from ``source`` into ``target`` (a Naval Commander in
        play for water, a Space Commander for the Moon); adjacency and units are not checked."""
        kinds = (self.board.kind[source], self.board.kind[target])
        return (KIND_WATER not in kinds or self.in_play(NAVAL, seat)) and (
            KIND_LUNAR not in kinds or self.in_play(SPACE, seat)
        )

    def is_border(self, t: int) -> bool:
        """Whether ``t`` touches a territory its owner does not hold (devastated ones aside)."""
        owner = self.owners[t]
        return any(self.owners[n] != owner and n not in self.devastated for n in self.board.neighbours[t])

    def threat(self, t: int) -> int:
        """Units of other seats that could invade ``t`` from next to it (the neutral army never does)."""
        owner, players = self.owners[t], len(self.commanders)
        return sum(
            self.units[n] - 1
            for n in self.board.neighbours[t]
            if self.owners[n] not in (owner, -1)
            and self.owners[n] < players
            and self.units[n] > 1
            and self.can_invade(self.owners[n], n, t)
        )

    def d8_attackers(self, source: int, target: int) -> list[int]:
        """Commanders in ``source`` that would roll an 8-sided die invading ``target`` (004's table)."""
        kinds = (self.board.kind[source], self.board.kind[target])
        return [
            c
            for c in self.commanders_at.get(source, ())
            if c == NUCLEAR or (c in _D8_KIND and _D8_KIND[c] in kinds)
        ]

    def d8_defenders(self, t: int) -> int:
        """8-sided dice ``t``'s defender rolls: all under its own Space Station, else one per commander."""
        if self.stations[t] >= 0 and self.stations[t] == self.owners[t]:
            return 2
        return min(2, len(self.commanders_at.get(t, ())))

    def capture_odds(self, source: int, target: int, d8: int = -1) -> float:
        """P(taking ``target`` rolling on from ``source`` with every unit but one, ``d8`` of the dice
        8-sided (default: every commander that may)."""
        d8 = len(self.d8_attackers(source, target)) if d8 < 0 else d8
        return capture_odds(self.units[source] - 1, self.units[target], d8, self.d8_defenders(target))


def end_phase() -> pb.Action2210:
    return pb.Action2210(end_phase=game_pb2.EndPhaseAction())


def default_2210(legal: pb.Legal2210) -> pb.Action2210:
    """A safe legal answer: stop where stopping is allowed (pass a card window or the nuclear exchange,
    move no decoys), bid nothing, defend with every die, move in the least, and otherwise the first choice
    offered (MOD Reduction: the first MODs listed) (the server's timeout default)."""
    phase = legal.phase
    if legal.can_end:
        return end_phase()
    t = legal.territories
    if phase == pb.PHASE2210_SETUP_CLAIM:
        return pb.Action2210(claim=game_pb2.ClaimAction(territory=t[0]))
    if phase in (pb.PHASE2210_SETUP_PLACE, pb.PHASE2210_DEPLOY):
        return pb.Action2210(place=pb.PlaceModsAction(territory=t[0], mods=legal.place_max))
    if phase == pb.PHASE2210_SETUP_COMMANDERS:
        return pb.Action2210(
            place_commanders=pb.PlaceCommandersAction(land=t[0], diplomat=t[0], station=t[0])
        )
    if phase == pb.PHASE2210_BID:
        return pb.Action2210(bid=pb.BidAction(energy=0))
    if phase == pb.PHASE2210_CHOOSE_MARKER:
        return pb.Action2210(choose_marker=pb.ChooseMarkerAction(marker=legal.markers[0]))
    if phase == pb.PHASE2210_BONUS_CARD:
        deck = next(d for d, n in enumerate(legal.card_decks) if n)
        return pb.Action2210(take_card=pb.TakeCardAction(deck=deck))
    if phase == pb.PHASE2210_ROLL:
        return pb.Action2210(roll=pb.RollAction(dice=legal.dice_max))
    if phase == pb.PHASE2210_DEFEND:
        return pb.Action2210(defend=game_pb2.ChooseDefenceAction(dice=legal.defend_max))
    if phase == pb.PHASE2210_LOSSES:
        mods = min(legal.lose, legal.occupy_mods)
        commanders = list(legal.occupy_commanders)[: legal.lose - mods]
        return pb.Action2210(lose=pb.ChooseLossesAction(mods=mods, commanders=commanders))
    if phase == pb.PHASE2210_REDUCE:
        return pb.Action2210(remove=pb.RemoveModsAction(territories=_each_mod(legal)[: legal.lose]))
    if phase == pb.PHASE2210_OCCUPY:
        commanders = list(legal.must_move)
        spare = [c for c in legal.occupy_commanders if c not in commanders]
        while legal.occupy_mods + len(commanders) < legal.occupy_min:
            commanders.append(spare.pop(0))
        mods = max(0, legal.occupy_min - len(commanders))
        return pb.Action2210(occupy=pb.MoveUnitsAction(mods=mods, commanders=commanders))
    raise ValueError(f"no 2210 decision in phase {pb.Phase2210.Name(phase)}")


def random_2210(legal: pb.Legal2210, rng: random.Random) -> pb.Action2210:
    """A random legal answer, kind by kind (cards played half the time they may be)."""
    phase, pick = legal.phase, rng.choice
    t = list(legal.territories)
    if phase == pb.PHASE2210_SETUP_CLAIM:
        return pb.Action2210(claim=game_pb2.ClaimAction(territory=pick(t)))
    if phase in (pb.PHASE2210_SETUP_PLACE, pb.PHASE2210_DEPLOY):
        return pb.Action2210(
            place=pb.PlaceModsAction(territory=pick(t), mods=rng.randint(1, legal.place_max))
        )
    if phase == pb.PHASE2210_SETUP_COMMANDERS:
        return pb.Action2210(
            place_commanders=pb.PlaceCommandersAction(land=pick(t), diplomat=pick(t), station=pick(t))
        )
    if phase == pb.PHASE2210_BID:
        return pb.Action2210(bid=pb.BidAction(energy=rng.randint(0, legal.bid_max)))
    if phase == pb.PHASE2210_CHOOSE_MARKER:
        return pb.Action2210(choose_marker=pb.ChooseMarkerAction(marker=pick(list(legal.markers))))
    if phase == pb.PHASE2210_BUY:
        return pick(_buy_options(legal, rng))
    if phase == pb.PHASE2210_BONUS_CARD:
        deck = pick([d for d, n in enumerate(legal.card_decks) if n])
        return pb.Action2210(take_card=pb.TakeCardAction(deck=deck))
    if legal.plays and rng.random() < 0.5:
        play = pick(list(legal.plays))
        targets = rng.sample(list(play.targets), play.picks)
        return pb.Action2210(play_card=pb.PlayCardAction(card=play.card, targets=targets))
    if phase in _PASS_PHASES:
        return end_phase()
    if phase == pb.PHASE2210_INVADE:
        if not legal.invasion_sources or rng.random() < _END_ODDS:
            return end_phase()
        i = rng.randrange(len(legal.invasion_sources))
        declare = pb.DeclareInvasionAction(source=legal.invasion_sources[i], target=legal.invasion_targets[i])
        return pb.Action2210(declare=declare)
    if phase == pb.PHASE2210_ROLL:
        dice = rng.randint(1, legal.dice_max)
        d8 = [c for c in legal.d8 if rng.random() < 0.5][:dice]
        return pb.Action2210(roll=pb.RollAction(dice=dice, d8=d8))
    if phase == pb.PHASE2210_DEFEND:
        return pb.Action2210(defend=game_pb2.ChooseDefenceAction(dice=rng.randint(1, legal.defend_max)))
    if phase == pb.PHASE2210_FORTIFY and legal.fortify and rng.random() < 0.7:
        option = pick(list(legal.fortify))
        mods, commanders = _units(option.mods, list(option.commanders), 1, rng)
        fortify = pb.FortifyUnitsAction(
            source=option.source, target=pick(list(option.targets)), mods=mods, commanders=commanders
        )
        return pb.Action2210(fortify=fortify)
    if phase == pb.PHASE2210_REDUCE:
        return pb.Action2210(remove=pb.RemoveModsAction(territories=rng.sample(_each_mod(legal), legal.lose)))
    if phase == pb.PHASE2210_DECOYS and legal.fortify and rng.random() < 0.7:
        option = pick(list(legal.fortify))
        commanders = rng.sample(list(option.commanders), rng.randint(1, len(option.commanders)))
        move = pb.FortifyUnitsAction(
            source=option.source, target=pick(list(option.targets)), commanders=commanders
        )
        return pb.Action2210(fortify=move)
    return default_2210(legal)  # LOSSES, OCCUPY, and a FORTIFY, DECOYS or INVADE that stops


def _each_mod(legal: pb.Legal2210) -> list[int]:
    """In REDUCE: every MOD that may be removed, as its territory (a territory once per MOD there)."""
    return [t for t, n in zip(legal.territories, legal.mods_at, strict=True) for _ in range(n)]


def _buy_options(legal: pb.Legal2210, rng: random.Random) -> list[pb.Action2210]:
    options = [end_phase()]
    if legal.hires:
        hire = pb.HireAction(
            commander=rng.choice(list(legal.hires)), territory=rng.choice(list(legal.territories))
        )
        options.append(pb.Action2210(hire=hire))
    if legal.stations:
        options.append(
            pb.Action2210(build_station=pb.BuildStationAction(territory=rng.choice(list(legal.stations))))
        )
    if legal.buy_max:
        counts = [0] * len(legal.card_decks)
        for _ in range(rng.randint(1, legal.buy_max)):
            counts[rng.choice([d for d, n in enumerate(legal.card_decks) if n > counts[d]])] += 1
        options.append(pb.Action2210(buy_cards=pb.BuyCardsAction(counts=counts)))
    return options


def _units(mods_there: int, there: list[int], least: int, rng: random.Random) -> tuple[int, list[int]]:
    """Some MODs and commanders of ``there`` moving at least ``least`` units and leaving one behind (the
    territory holds two units or more)."""
    for _ in range(8):
        commanders = [c for c in there if rng.random() < 0.3]
        low = max(0, least - len(commanders))
        high = mods_there - (1 if len(commanders) == len(there) else 0)
        if low <= high:
            return rng.randint(low, high), commanders
    return (least, []) if mods_there > least else (0, there[:1])
