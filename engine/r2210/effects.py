"""What each Command card does when played (``EFFECTS``); who decides next is ``engine.r2210.cardflow``.

The cards' rules are ``tests/reference/2210_command_cards.json``; each effect below quotes its card. Units a
card destroys are taken as battle losses are: MODs first, then commanders in ``invade.LOSS_ORDER``, or the
owner's choice with ``choose_losses`` (``destroy``). Armageddon,
MOD Reduction and Decoys Revealed open decisions of their own (EXCHANGE, REDUCE, DECOYS).
"""

from __future__ import annotations

from collections.abc import Callable

from engine.r2210 import invade
from engine.r2210.actions import COMMANDERS, Phase
from engine.r2210.board import Kind
from engine.r2210.cardplay import territory_deck
from engine.r2210.cards import TERRAIN
from engine.r2210.events import Event2210
from engine.r2210.state import EMPTY, NOBODY, GameState2210
from engine.r2210.year import eliminate_if_beaten, move_units

Effect = Callable[[GameState2210, int, tuple[int, ...], int, list[Event2210]], None]


# ---------------------------------------------------------------------- units destroyed by cards


def destroy(state: GameState2210, t: int, n: int, by: int, events: list[Event2210]) -> None:
    """Remove ``n`` units from ``t`` (all if fewer): 004 FAQ, a Space Station "is not a unit"; a territory
    left without units is lost unless its owner's station stands there.

    The cards say the owner destroys them ("that opponent destroys that many of their units there"): with
    ``choose_losses``, when a commander could be among them and a unit stays, the owner is asked which
    (LOSSES, once the card's effect is over: ``cardflow.play_card``), as for a battle's losses."""
    owner = state.owner[t]
    n = min(n, state.units(t))
    if n <= 0:
        return
    if state.rules.choose_losses and state.commanders_in(t) and state.units(t) > n:
        state.losses_owed.append((t, n))
        return
    invade.remove_units(state, t, n)
    if state.units(t) == 0 and state.station[t] != owner:
        state.owner[t] = NOBODY
    events.append(Event2210("destroyed", by, {"territory": t, "owner": owner, "units": n}))
    eliminate_if_beaten(state, owner, by, events)


def _half_up(n: int) -> int:
    return (n + 1) // 2


# ---------------------------------------------------------------------- the effects


def _assemble_mods(
    state: GameState2210, seat: int, aims: tuple[int, ...], kind: int, ev: list[Event2210]
) -> None:
    """Assemble MODs: "Place 3 MODs from your recruitment pool on one land territory you control"."""
    state.mods[aims[0]] += 3


def _reinforcements(
    state: GameState2210, seat: int, aims: tuple[int, ...], kind: int, ev: list[Event2210]
) -> None:
    """Reinforcements: "Place 1 MOD on each of 3 different land territories you control"."""
    for t in aims:
        state.mods[t] += 1


def _frequency_jam(
    state: GameState2210, seat: int, aims: tuple[int, ...], kind: int, ev: list[Event2210]
) -> None:
    """Frequency Jam: "Until the end of your current turn that player cannot play any Command card"."""
    state.jammed.append(aims[0])


def _energy_crisis(
    state: GameState2210, seat: int, aims: tuple[int, ...], kind: int, ev: list[Event2210]
) -> None:
    """Energy Crisis: "Take 1 energy from each opponent"; "An opponent with 0 energy gives nothing"."""
    for other in range(state.seats):
        if other != seat and state.alive[other] and state.energy[other] > 0:
            state.energy[other] -= 1
            state.energy[seat] += 1


def _territorial_station(
    state: GameState2210, seat: int, aims: tuple[int, ...], kind: int, ev: list[Event2210]
) -> None:
    """Territorial Station: "Place one of your Space Stations on a land territory you control"."""
    state.station[aims[0]] = seat


def _draw(state: GameState2210, terrain: int, ev: list[Event2210], seat: int, face_down: bool = False) -> int:
    """The top card of a territory deck (004: drawn cards are discarded, never reshuffled); one kept
    ``face_down`` is told only to ``seat`` (the others see territory -1)."""
    t = territory_deck(state, terrain).pop(0)
    (state.land_discard if terrain == Kind.LAND else _discard(state, terrain)).append(t)
    ev.append(Event2210("territory_card_drawn", seat, {"territory": t}, private=face_down))
    return t


def _discard(state: GameState2210, terrain: int) -> list[int]:
    return state.water_discard if terrain == Kind.WATER else state.lunar_discard


def _hidden_energy(
    state: GameState2210, seat: int, aims: tuple[int, ...], kind: int, ev: list[Event2210]
) -> None:
    """Hidden Energy: "Draw the top Water Territory card. If you control that water territory at the end
    of this turn, gain 4 energy" (paid by ``cardplay.settle_turn``)."""
    t = territory_deck(state, Kind.WATER).pop(0)
    ev.append(Event2210("territory_card_drawn", seat, {"territory": t}))
    state.hidden_energy.append(t)


def _energy_extraction(
    state: GameState2210, seat: int, aims: tuple[int, ...], kind: int, ev: list[Event2210]
) -> None:
    """Energy Extraction: checked at the end of the turn (``cardplay.settle_turn``)."""
    state.extraction += 1


def _scout_forces(
    state: GameState2210, seat: int, aims: tuple[int, ...], kind: int, ev: list[Event2210]
) -> None:
    """Scout Forces: "Draw the top Land Territory card and keep it face down; set 5 MODs from your
    recruitment pool aside on it. If you already control that territory, place the 5 MODs there at once;
    otherwise place them there the moment you gain control of it" (``invade._capture``). The card is told
    to its player alone; the MODs placed show where it was (``scouts_landed``, now or on that capture)."""
    t = _draw(state, Kind.LAND, ev, seat, face_down=True)
    if state.owner[t] == seat:
        state.mods[t] += 5
        ev.append(Event2210("scouts_landed", seat, {"territory": t, "mods": 5}))
    else:
        state.scouts[seat].append(t)


def _invade_earth(
    state: GameState2210, seat: int, aims: tuple[int, ...], kind: int, ev: list[Event2210]
) -> None:
    """Invade Earth: "Turn over Land Territory cards from the top until one shows a land territory you do
    not control. For the rest of this turn you may declare invasions into that territory from any lunar
    territory you occupy"."""
    while state.land_deck:
        t = _draw(state, Kind.LAND, ev, seat)
        if state.owner[t] != seat:
            state.invade_earth.append(t)
            return


def _assassin_bomb(
    state: GameState2210, seat: int, aims: tuple[int, ...], kind: int, ev: list[Event2210]
) -> None:
    """Assassin Bomb: "Roll an 8-sided die: on 3-8 that commander is destroyed; on 1-2 nothing happens"."""
    other, commander = divmod(aims[0], 5)
    roll = state.dice.die(8)
    ev.append(Event2210("card_rolled", seat, {"faces": 8, "roll": roll}))
    if roll < 3:
        return
    t = state.commander_at[aims[0]]
    state.commander_at[aims[0]] = EMPTY
    if state.units(t) == 0 and state.station[t] != other:
        state.owner[t] = NOBODY
    ev.append(Event2210("commander_destroyed", seat, {"seat": other, "commander": commander, "territory": t}))
    eliminate_if_beaten(state, other, seat, ev)


def _rocket_strike(
    state: GameState2210, seat: int, aims: tuple[int, ...], kind: int, ev: list[Event2210]
) -> None:
    """Rocket Strike: "Roll a 6-sided die; that opponent destroys that many of their units there (all of
    them if fewer)"."""
    roll = state.dice.die(6)
    ev.append(Event2210("card_rolled", seat, {"faces": 6, "roll": roll}))
    destroy(state, aims[0], roll, seat, ev)


def _scatter_bomb(
    state: GameState2210, seat: int, aims: tuple[int, ...], kind: int, ev: list[Event2210]
) -> None:
    """Scatter Bomb: "Turn over the top 3 Land Territory cards [2 Water, 2 Lunar]. In each drawn territory
    held by an opponent, that opponent destroys half (rounded up) of their units there"; "If the deck has
    fewer cards, draw what remains"."""
    terrain = TERRAIN[kind]
    for _ in range(min(3 if terrain == Kind.LAND else 2, len(territory_deck(state, terrain)))):
        t = _draw(state, terrain, ev, seat)
        if state.owner[t] not in (seat, NOBODY):
            destroy(state, t, _half_up(state.units(t)), seat, ev)


ZONES = {
    Kind.LAND: ("north_america", "south_america", "europe", "africa", "asia", "australia"),
    Kind.WATER: ("us_pacific", "asia_pacific", "north_atlantic", "south_atlantic", "indian", ""),
    Kind.LUNAR: ("cresinion", "cresinion", "delphot", "delphot", "sajon", "sajon"),
}
"""The d6 tables of The Mother, Aqua Brother ("6 roll again") and Nicky Boy (docs/rules.md open point 3)."""


def _zone_bomb(
    state: GameState2210, seat: int, aims: tuple[int, ...], kind: int, ev: list[Event2210]
) -> None:
    """The Mother, Aqua Brother, Nicky Boy: "Roll a 6-sided die ... Destroy 1 unit in every territory of
    that continent [water colony, lunar colony], including your own"."""
    zone = ""
    while not zone:
        roll = state.dice.die(6)
        ev.append(Event2210("card_rolled", seat, {"faces": 6, "roll": roll}))
        zone = ZONES[Kind(TERRAIN[kind])][roll - 1]
    region = next(r for r in state.board.regions if r.key == zone)
    for t in region.members:
        if state.owner[t] != NOBODY and state.units(t) > 0 and state.phase != Phase.GAME_OVER:
            destroy(state, t, 1, seat, ev)


def _stealth_mods(
    state: GameState2210, seat: int, aims: tuple[int, ...], kind: int, ev: list[Event2210]
) -> None:
    """Stealth MODs: "The defending player adds 3 MODs of their own colour to the defending land territory
    before the dice are rolled"."""
    assert state.pending is not None
    state.mods[state.pending[1]] += 3


def _cease_fire(
    state: GameState2210, seat: int, aims: tuple[int, ...], kind: int, ev: list[Event2210]
) -> None:
    """Cease Fire: "Cancel the declared invasion before any dice are rolled. For the rest of that player's
    turn they may not declare any invasion into a territory you control"."""
    state.cease_fire = True
    state.barred.append(seat)


def _evacuation(
    state: GameState2210, seat: int, aims: tuple[int, ...], kind: int, ev: list[Event2210]
) -> None:
    """Evacuation: "Move every one of your units (MODs and commanders) out of the attacked territory into
    one other territory you control"; "if the territory is left empty the attacker enters it without a
    dice roll"."""
    assert state.pending is not None
    target = state.pending[1]
    move_units(state, target, aims[0], state.mods[target], state.commanders_in(target))
    if state.station[target] != seat:
        state.owner[target] = NOBODY


def _death_trap(
    state: GameState2210, seat: int, aims: tuple[int, ...], kind: int, ev: list[Event2210]
) -> None:
    """Land / Water Death Trap, Orbital Mines: "The attacker must destroy half (rounded up) of the units in
    the territory they are attacking from"."""
    assert state.pending is not None
    source = state.pending[0]
    destroy(state, source, _half_up(state.units(source)), seat, ev)


def _stealth_station(
    state: GameState2210, seat: int, aims: tuple[int, ...], kind: int, ev: list[Event2210]
) -> None:
    """Stealth Station: "Place one of your Space Stations in the land territory being invaded; from then
    on all your units there defend with 8-sided dice"."""
    assert state.pending is not None
    state.station[state.pending[1]] = seat


def _redeployment(
    state: GameState2210, seat: int, aims: tuple[int, ...], kind: int, ev: list[Event2210]
) -> None:
    """Redeployment: "After your normal Fortify Position, make one more Fortify Position move"."""
    state.phase = Phase.FORTIFY  # after that move ``year.close_turn`` opens TURN_END again


def _colony_influence(
    state: GameState2210, seat: int, aims: tuple[int, ...], kind: int, ev: list[Event2210]
) -> None:
    """Colony Influence: "If your Diplomat [Land, Naval, Space] Commander is in play at final scoring, add
    3 to your score"."""
    state.bonus_points[seat] += 3


def _decoys_revealed(
    state: GameState2210, seat: int, aims: tuple[int, ...], kind: int, ev: list[Event2210]
) -> None:
    """Decoys Revealed: "Move any number of your commanders from where they stand to any territories you
    control": the seat moves them in DECOYS, each commander once (``cardflow.move_decoys``)."""
    state.decoys = [c for c in COMMANDERS if state.in_play(seat, c)]
    state.phase = Phase.DECOYS


def _mod_reduction(
    state: GameState2210, seat: int, aims: tuple[int, ...], kind: int, ev: list[Event2210]
) -> None:
    """MOD Reduction: "Each opponent, in turn order, removes 4 of their own MODs from anywhere on the
    boards; then you remove 2 of your own MODs". Turn order from the player's left (as the answers to an
    invasion); the two-player neutral army, an opponent without a marker, last (``cardflow.next_reduction``
    asks each remover)."""
    order = list(state.order)
    start = order.index(seat)
    others = [order[(start + i) % len(order)] for i in range(1, len(order))]
    removers = [s for s in others if state.alive[s]] + ([state.neutral] if state.neutral >= 0 else [])
    state.reductions = [(s, 4) for s in removers] + [(seat, 2)]
    state.phase = Phase.REDUCE


def _armageddon(
    state: GameState2210, seat: int, aims: tuple[int, ...], kind: int, ev: list[Event2210]
) -> None:
    """Armageddon: "Starting a nuclear exchange: going round in turn order, every player may play any number
    of Nuclear Command cards without paying their power-up cost; the exchange ends when all have finished".
    One pass in marker order, #1 first, the card's player included (docs/rules.md open point 12); with
    ``armageddon_all=False`` only the card's player (``cardflow.next_in_exchange`` asks them)."""
    state.exchange = list(state.order) if state.rules.armageddon_all else [seat]
    state.phase = Phase.EXCHANGE


EFFECTS: dict[str, Effect] = {
    "assemble_mods": _assemble_mods,
    "reinforcements": _reinforcements,
    "frequency_jam": _frequency_jam,
    "energy_crisis": _energy_crisis,
    "territorial_station": _territorial_station,
    "hidden_energy": _hidden_energy,
    "energy_extraction": _energy_extraction,
    "scout_forces": _scout_forces,
    "invade_earth": _invade_earth,
    "assassin_bomb": _assassin_bomb,
    "rocket_strike": _rocket_strike,
    "scatter_bomb": _scatter_bomb,
    "zone_bomb": _zone_bomb,
    "stealth_mods": _stealth_mods,
    "cease_fire": _cease_fire,
    "evacuation": _evacuation,
    "death_trap": _death_trap,
    "stealth_station": _stealth_station,
    "redeployment": _redeployment,
    "colony_influence": _colony_influence,
    "decoys_revealed": _decoys_revealed,
    "mod_reduction": _mod_reduction,
    "armageddon": _armageddon,
}
"""The effect of every kind of card (``cards.EFFECT``)."""
