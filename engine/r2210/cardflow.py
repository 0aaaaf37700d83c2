"""Who decides next while Command cards are played: playing a card, passing a window, and the decisions a
card opens, asked of one seat at a time (``GameState2210.to_act``), often not the one whose turn it is.

REACT: the answers to a declared invasion. GAME_END: the end-of-game cards. EXCHANGE: Armageddon's nuclear
exchange. REDUCE: MOD Reduction's removals. DECOYS: Decoys Revealed's moves. LOSSES: the owners' choice of
what a card (or a battle) destroyed. What each card does is
``engine.r2210.effects``; when it may be played and on what, ``engine.r2210.cardplay``.
"""

from __future__ import annotations

from engine.r2210 import invade
from engine.r2210.actions import EndPhase, Fortify, Lose, Phase, PlayCard, Remove
from engine.r2210.cardplay import (
    END_OF_GAME,
    NUCLEAR_EXCHANGE,
    REACTION,
    could_play,
    decoy_moves,
    mods_held,
    remover,
    window,
)
from engine.r2210.cards import EFFECT, KIND_OF, KINDS
from engine.r2210.effects import EFFECTS
from engine.r2210.events import Event2210
from engine.r2210.state import NOBODY, YEAR_5, GameState2210
from engine.r2210.year import eliminate_if_beaten, end_phase, end_turn, finish, move_units


def play_card(state: GameState2210, action: PlayCard, events: list[Event2210]) -> None:
    """004: "pay the power-up cost" (Armageddon: none in the nuclear exchange); the card is discarded (the
    Command decks are never reshuffled)."""
    seat = state.to_act
    timing = window(state, seat)
    kind = KIND_OF[action.card]
    state.hands[seat].remove(action.card)
    state.card_discard.append(action.card)
    if timing != NUCLEAR_EXCHANGE:
        state.energy[seat] -= KINDS[kind][4]
    events.append(
        Event2210(
            "card_played",
            seat,
            {"card": action.card, "kind": KINDS[kind][0], "targets": list(action.targets)},
        )
    )
    EFFECTS[EFFECT[kind]](state, seat, action.targets, kind, events)
    if state.phase == Phase.GAME_OVER:
        state.losses_owed = []
        return
    if state.losses_owed:  # its owners choose what the card destroyed (``effects.destroy``), then on
        state.card_losses = (seat, timing, int(state.phase), state.to_act)
        state.phase = Phase.LOSSES
        state.to_act = state.owner[state.losses_owed[0][0]]
        return
    _after_card(state, seat, timing, events)


def _after_card(state: GameState2210, seat: int, timing: str, events: list[Event2210]) -> None:
    """Who decides once a card played by ``seat`` in ``timing`` has done all it does."""
    if timing == REACTION:
        _next_reactor(state, events)
    elif timing == END_OF_GAME:
        _next_ender(state, events)
    elif state.phase == Phase.EXCHANGE:
        next_in_exchange(state, events)  # Armageddon opened it, or a Nuclear card was played in it
    elif state.phase == Phase.REDUCE:
        next_reduction(state, events)
    elif not state.alive[seat]:
        end_turn(state, events)  # the player's own bomb took its last unit


def lose(state: GameState2210, action: Lose, events: list[Event2210]) -> None:
    """``Lose``: the owner's choice of the units a battle or a card destroys; after the last owner, the
    battle's invader goes on, or whatever follows the card."""
    invade.take_losses(state, action, events)
    if state.losses_owed:
        return
    if state.card_losses is None:
        invade.after_battle_losses(state)
        return
    seat, timing, phase, to_act = state.card_losses
    state.card_losses = None
    state.phase = Phase(phase)
    state.to_act = to_act
    _after_card(state, seat, timing, events)


def pass_window(state: GameState2210, action: EndPhase, events: list[Event2210]) -> None:
    """``EndPhase``: in REACT, GAME_END and EXCHANGE the asked seat plays no more; in DECOYS no more
    commanders move; elsewhere the phase ends."""
    if state.phase == Phase.REACT:
        state.reactors.pop(0)
        _next_reactor(state, events)
    elif state.phase == Phase.GAME_END:
        state.enders.pop(0)
        _next_ender(state, events)
    elif state.phase == Phase.EXCHANGE:
        state.exchange.pop(0)
        next_in_exchange(state, events)
    elif state.phase == Phase.DECOYS:
        state.decoys = []
        _resume_turn(state, events)
    else:
        end_phase(state, action, events)


def _resume_turn(state: GameState2210, events: list[Event2210]) -> None:
    """Back to the turn seat, still before its first invasion; its turn ends if a card took its last unit."""
    state.to_act = state.turn_seat
    if state.alive[state.to_act]:
        state.phase = Phase.INVADE
    else:
        end_turn(state, events)


def _next_reactor(state: GameState2210, events: list[Event2210]) -> None:
    """The asked seat keeps the window while it might play (``could_play``: by its public card counts); then
    the next that might; then the invasion goes on:
    cancelled (Cease Fire), stopped (the source has too few units left to roll), taken without dice (the
    target was left empty), or rolled."""
    assert state.pending is not None
    while state.reactors and not state.cease_fire and not could_play(state, state.reactors[0], REACTION):
        state.reactors.pop(0)
    if state.reactors and not state.cease_fire:
        state.to_act = state.reactors[0]
        return
    state.reactors = []
    state.to_act = state.turn_seat
    source, target = state.pending
    if state.cease_fire or state.units(source) < 2:
        state.cease_fire = False
        state.pending = None
        state.phase = Phase.INVADE
    elif state.units(target) == 0:
        invade.take_empty(state, source, target, contested=state.contested, events=events)
    else:
        state.phase = Phase.ROLL


def _next_ender(state: GameState2210, events: list[Event2210]) -> None:
    while state.enders and not could_play(state, state.enders[0], END_OF_GAME):
        state.enders.pop(0)
    if state.enders:
        state.to_act = state.enders[0]
    else:
        finish(state, YEAR_5, events)


# ---------------------------------------------------------------------- Armageddon's nuclear exchange


def next_in_exchange(state: GameState2210, events: list[Event2210]) -> None:
    """The asked seat keeps the exchange while it might play a Nuclear card; then the next in marker order
    that might (``could_play``: a seat without a Nuclear Commander, Frequency-Jammed or holding no Nuclear
    card is not asked; one holding a Nuclear card is, whichever it is);
    then the turn seat's turn goes on. FAQ: "once Armageddon is out only Nuclear cards may be played until
    everyone is done"."""
    while state.exchange and not could_play(state, state.exchange[0], NUCLEAR_EXCHANGE):
        state.exchange.pop(0)
    if state.exchange:
        state.to_act = state.exchange[0]
    else:
        _resume_turn(state, events)


# ---------------------------------------------------------------------- MOD Reduction


def next_reduction(state: GameState2210, events: list[Event2210]) -> None:
    """Each remover in turn is asked (REDUCE) when it has a choice: MODs in two or more territories and more
    of them than it must remove. Otherwise its MODs go at once ("A player with fewer MODs removes all they
    have"); then the turn seat's turn goes on."""
    while state.reductions:
        owner, n = state.reductions[0]
        held = mods_held(state, owner)
        if len(held) > 1 and sum(state.mods[t] for t in held) > n:
            state.phase = Phase.REDUCE
            state.to_act = remover(state, owner)
            return
        state.reductions.pop(0)
        _remove_mods(state, owner, tuple([t for t in held for _ in range(state.mods[t])][:n]), events)
        if state.phase == Phase.GAME_OVER:
            return
    _resume_turn(state, events)


def remove(state: GameState2210, action: Remove, events: list[Event2210]) -> None:
    """``Remove``: the asked seat's choice of MODs (its own, or the neutral army's)."""
    owner, _ = state.reductions.pop(0)
    _remove_mods(state, owner, action.territories, events)
    if state.phase != Phase.GAME_OVER:
        next_reduction(state, events)


def _remove_mods(state: GameState2210, owner: int, where: tuple[int, ...], events: list[Event2210]) -> None:
    """FAQ: "no restriction on which MODs are removed; emptied territories are lost unless a Space Station
    is there"; a seat left without units is eliminated."""
    for t in where:
        state.mods[t] -= 1
    for t in set(where):
        if state.units(t) == 0 and state.station[t] != owner:
            state.owner[t] = NOBODY
    events.append(Event2210("mods_removed", owner, {"territories": sorted(where)}))
    eliminate_if_beaten(state, owner, state.turn_seat, events)


# ---------------------------------------------------------------------- Decoys Revealed


def move_decoys(state: GameState2210, action: Fortify, events: list[Event2210]) -> None:
    """``Fortify`` in DECOYS: the named commanders go to the target, each once; a territory they leave
    without units is lost unless the seat's station stands there ("Moving the last unit out of a territory
    without a Space Station leaves it empty and uncontrolled"). Ends when no commander is left to move."""
    seat = state.to_act
    move_units(state, action.source, action.target, 0, action.commanders)
    for c in action.commanders:
        state.decoys.remove(c)
    if state.units(action.source) == 0 and state.station[action.source] != seat:
        state.owner[action.source] = NOBODY
    events.append(Event2210("decoys_moved", seat, action._asdict()))
    if not decoy_moves(state, seat, state.decoys):
        state.decoys = []
        _resume_turn(state, events)
