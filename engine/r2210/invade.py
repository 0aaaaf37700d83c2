"""Invasions: declaring one, the dice (6- and 8-sided), losses, capture of territories and Space Stations."""

from __future__ import annotations

from engine.odds import roll_losses
from engine.r2210.actions import Commander, Declare, Defend, Lose, Occupy, Phase, Roll
from engine.r2210.cardplay import open_reactions
from engine.r2210.events import Event2210
from engine.r2210.state import EMPTY, NOBODY, GameState2210
from engine.r2210.year import after_move_in, eliminate_if_beaten, move_units
from engine.rules import DefenderDice

LOSS_ORDER = (Commander.DIPLOMAT, Commander.LAND, Commander.NAVAL, Commander.SPACE, Commander.NUCLEAR)
"""Losses are taken as MODs first (004: "You may remove MODs in their place"), then commanders in this
order (docs/rules.md, RISK 2210 A.D.: choosing losses is a later decision)."""


def declare(state: GameState2210, action: Declare, events: list[Event2210]) -> None:
    """004: "First announce both the territory you are attacking and the one you are attacking from"."""
    seat = state.to_act
    source, target = action.source, action.target
    events.append(Event2210("declared", seat, {"source": source, "target": target}))
    state.invaded = True
    state.pending = (source, target)
    state.contested = state.units(target) > 0
    # A held target opens the window for answers to the invasion (REACT), skipped when nobody can answer.
    if state.owner[target] != NOBODY and open_reactions(state):
        return
    if state.units(target) == 0:
        take_empty(state, source, target, contested=False, events=events)
        return
    state.phase = Phase.ROLL


def take_empty(
    state: GameState2210, source: int, target: int, contested: bool, events: list[Event2210]
) -> None:
    """004 Empty Territories: "You may invade these unoccupied territories - there is no dice roll.
    However, moving into an unoccupied territory does count as an invasion." ``contested``: it held units
    when the invasion was declared (an Evacuation emptied it)."""
    state.move_in = (1, ())
    state.pending = (source, target)
    state.phase = Phase.OCCUPY
    _capture(state, state.to_act, source, target, contested=contested, events=events)


def defender_seat(state: GameState2210, target: int) -> int:
    """Who decides the defence of ``target``: its owner, or for the neutral army the seat not attacking."""
    owner = state.owner[target]
    if owner == state.neutral:
        return 1 - state.to_act
    return owner


def roll(state: GameState2210, action: Roll, events: list[Event2210]) -> None:
    assert state.pending is not None
    target = state.pending[1]
    units = state.units(target)
    if state.rules.defender_dice == DefenderDice.CHOOSE and units >= 2:
        state.attack_dice = (action.dice, action.d8)
        state.phase = Phase.DEFEND
        state.to_act = defender_seat(state, target)
        return
    _resolve(state, action.dice, action.d8, min(2, units), events)


def defend(state: GameState2210, action: Defend, events: list[Event2210]) -> None:
    assert state.pending is not None
    dice, d8 = state.attack_dice
    state.to_act = state.turn_seat
    _resolve(state, dice, d8, action.dice, events)


def _resolve(
    state: GameState2210, dice: int, d8: tuple[Commander, ...], defence: int, events: list[Event2210]
) -> None:
    """One roll. 004: "Commanders always defend with an 8-sided die"; "All units in a territory with a
    Space Station defend with 8-sided dice"; "In case of a tie, the defender wins"."""
    assert state.pending is not None
    seat = state.to_act
    source, target = state.pending
    defender = state.owner[target]
    if state.station[target] == defender:
        defender_d8 = defence
    else:
        defender_d8 = min(defence, len(state.commanders_in(target)))
    attacker_faces = (8,) * len(d8) + (6,) * (dice - len(d8))
    defender_faces = (8,) * defender_d8 + (6,) * (defence - defender_d8)
    a, d = state.dice.battle(attacker_faces, defender_faces)
    attacker_losses, defender_losses = roll_losses(a, d)
    owed: list[tuple[int, int]] = []
    for t, n in ((source, attacker_losses), (target, defender_losses)):
        if n and state.rules.choose_losses and state.commanders_in(t) and state.units(t) > n:
            owed.append((t, n))
        else:
            remove_units(state, t, n)
    events.append(
        Event2210(
            "rolled",
            seat,
            {
                "source": source,
                "target": target,
                "attacker_dice": a,
                "defender_dice": d,
                "attacker_faces": list(attacker_faces),
                "defender_faces": list(defender_faces),
                "attacker_losses": attacker_losses,
                "defender_losses": defender_losses,
            },
        )
    )
    if owed:
        # A capture takes every defender and costs the attacker nothing, so owed losses mean no capture.
        state.losses_owed = owed
        state.phase = Phase.LOSSES
        state.to_act = state.owner[owed[0][0]]
        return
    if state.units(target) > 0:
        state.pending = None
        state.phase = Phase.INVADE
        return
    # 004: "move in at least as many units as the number of dice you rolled"; "If you successfully invade
    # a territory and you rolled one or more 8-sided dice, then you must move in the Commander(s)".
    must = tuple([c for c in d8 if state.commander(seat, c) == source])
    state.move_in = (min(dice, state.units(source) - 1), must)
    state.phase = Phase.OCCUPY
    # Last: taking the defender's last unit may end the game.
    _capture(state, seat, source, target, contested=True, events=events)
    eliminate_if_beaten(state, defender, seat, events)


def take_losses(state: GameState2210, action: Lose, events: list[Event2210]) -> None:
    """The chosen units go back to the recruitment pool (commanders leave play); the next owner owing
    losses is asked, if any (who goes on after the last: ``cardflow.lose``)."""
    t, _ = state.losses_owed.pop(0)
    seat = state.owner[t]
    state.mods[t] -= action.mods
    for c in action.commanders:
        state.commander_at[seat * 5 + c] = EMPTY
    events.append(Event2210("lost", seat, {"territory": t, **action._asdict()}))
    if state.losses_owed:
        state.to_act = state.owner[state.losses_owed[0][0]]


def after_battle_losses(state: GameState2210) -> None:
    """A battle's losses are taken: the attacker invades on (owed losses mean the target held)."""
    state.to_act = state.turn_seat
    state.pending = None
    state.phase = Phase.INVADE


def remove_units(state: GameState2210, t: int, losses: int) -> None:
    """MODs first, then commanders in ``LOSS_ORDER``."""
    seat = state.owner[t]
    for _ in range(losses):
        if state.mods[t] > 0:
            state.mods[t] -= 1
            continue
        here = state.commanders_in(t)
        for c in LOSS_ORDER:
            if c in here:
                state.commander_at[seat * 5 + c] = EMPTY
                break


def _capture(
    state: GameState2210, seat: int, source: int, target: int, contested: bool, events: list[Event2210]
) -> None:
    """The target changes hands; a Space Station in it is captured, or destroyed if ``seat`` has 4 already.

    004: "The attacker replaces the defeated player's Space Station with one of his/her own color. If all
    four of the attacker's Space Stations are already on the board then the captured Space Station is
    destroyed and removed from play."
    """
    loser = state.owner[target]
    station = state.station[target]
    if station >= 0:
        keep = state.stations_of(seat) < state.rules.max_stations
        state.station[target] = seat if keep else -1
        events.append(
            Event2210("station_captured" if keep else "station_destroyed", seat, {"territory": target})
        )
    state.owner[target] = seat
    events.append(Event2210("captured", seat, {"territory": target, "from": loser, "contested": contested}))
    if target in state.scouts[seat]:
        # Scout Forces: "place them there the moment you gain control of it".
        state.scouts[seat].remove(target)
        state.mods[target] += 5
        events.append(Event2210("scouts_landed", seat, {"territory": target, "mods": 5}))
    if contested:
        state.contested_captures += 1
        # 004 3-Territory Bonus: "if you take three contested territories you immediately earn 1 energy"
        # "and 1 Command card of your choosing" (after the move-in). "This bonus is collected only once".
        if state.contested_captures >= state.rules.territory_bonus_captures and not state.bonus_taken:
            state.bonus_taken = True
            state.bonus_card_due = True
            state.energy[seat] += 1
            events.append(Event2210("territory_bonus", seat, {"energy": 1}))
    if station >= 0 and station != seat:
        eliminate_if_beaten(state, loser, seat, events)


def occupy(state: GameState2210, action: Occupy, events: list[Event2210]) -> None:
    assert state.pending is not None
    source, target = state.pending
    move_units(state, source, target, action.mods, action.commanders)
    events.append(
        Event2210("occupied", state.to_act, {"source": source, "target": target, **action._asdict()})
    )
    state.pending = None
    state.move_in = (0, ())
    after_move_in(state)
