"""A turn's phases: reinforcements, card trades, the free move, ending a phase, the Allied Army's stage, and
the end of the game.

Each ``apply`` function here takes (state, action, events): it mutates the state and appends the events
that describe the change. ``engine.game.APPLY`` dispatches to them by action kind.
"""

from __future__ import annotations

from collections import deque

from engine.actions import EndPhase, Fortify, Phase, Place, PlayerStatus, TradeCards
from engine.dice import Dice
from engine.events import Drew, Event, Fortified, GameEnded, Placed, Traded, TurnEnded, TurnStarted
from engine.state import GameState, Termination

# Members looked up once for the per-action paths: on Python 3.11 every ``Phase.ATTACK``-style lookup
# costs ~0.2 us (EnumType defines __getattr__), and a game makes thousands of them.
_REINFORCE, _ATTACK, _FORTIFY, _ALLIED_REINFORCE, _ALLIED_ATTACK = (
    Phase.REINFORCE,
    Phase.ATTACK,
    Phase.FORTIFY,
    Phase.ALLIED_REINFORCE,
    Phase.ALLIED_ATTACK,
)
_PENDING = frozenset((Phase.DEFEND, Phase.OCCUPY, Phase.GAME_OVER))
"""Phases in which a goal is not checked: a roll or move-in is still owed, or the game is over."""
_ALIVE = PlayerStatus.ALIVE


def first_turn(state: GameState, events: list[Event]) -> None:
    """The setup (and a goal's stage before the first turn) is over: shuffle the draw pile and start."""
    reserved = state.goal.reserved_cards(state) if state.goal is not None else frozenset()
    state.deck = deque(shuffled_deck(state.dice, state.board.card_count, reserved))
    state.turn_seat = state.first_seat
    start_turn(state, state.first_seat, events)


def shuffled_deck(dice: Dice, cards: int, reserved: frozenset[int]) -> list[int]:
    """The draw pile, top card first: card ids 0..cards-1 without ``reserved``, in order, shuffled."""
    deck = [c for c in range(cards) if c not in reserved]
    dice.shuffle(deck)
    return deck


def start_turn(state: GameState, seat: int, events: list[Event]) -> None:
    state.turn += 1
    state.turn_seat = seat
    state.to_act = seat
    state.phase = _REINFORCE
    state.bonus_used = False
    state.captured_this_turn = False
    state.placed_this_turn = False
    state.elimination_trade = False
    territory_armies = max(3, state.territory_count[seat] // 3)
    continent_armies = 0
    owner = state.owner
    for c, members in enumerate(state.board.continent_members):
        for t in members:
            if owner[t] != seat:
                break
        else:
            continent_armies += state.board.continents[c].bonus
    state.reinforcements = state.received = territory_armies + continent_armies
    state.attack_phase = _ATTACK
    events.append(TurnStarted(seat, state.turn, territory_armies, continent_armies))


def end_turn(state: GameState, events: list[Event]) -> None:
    seat = state.turn_seat
    events.append(TurnEnded(seat))
    if state.rules.turn_cap and state.turn >= state.rules.turn_cap:
        finish(state, Termination.TURN_CAP, events)
        return
    for step in range(1, state.seats + 1):
        nxt = (seat + step) % state.seats
        if state.status[nxt] == _ALIVE:
            start_turn(state, nxt, events)
            return


def finish(state: GameState, reason: Termination, events: list[Event], winner: int = -1) -> None:
    state.phase = Phase.GAME_OVER
    state.to_act = -1
    state.end_reason = reason.value
    if state.goal is not None:
        state.goal.reveal(state, events)
    alive = [s for s in range(state.seats) if state.status[s] == PlayerStatus.ALIVE]
    total_armies = [0] * len(state.territory_count)
    for t, o in enumerate(state.owner):
        total_armies[o] += state.armies[t]
    places = [0] * state.seats

    # Survivors first: the winner of a goal, then by territories then armies (equal on both: same
    # place); then the eliminated, the last one out placed best.
    def rank_key(s: int) -> tuple[bool, int, int]:
        return s != winner, -state.territory_count[s], -total_armies[s]

    order = sorted(alive, key=rank_key)
    place = 1
    for i, s in enumerate(order):
        if i and rank_key(s) != rank_key(order[i - 1]):
            place = i + 1
        places[s] = place
    for rank, s in enumerate(reversed(state.eliminated)):
        places[s] = len(alive) + rank + 1
    state.places = tuple(places)
    events.append(GameEnded(state.places, reason.value))


def check_goal(state: GameState, events: list[Event]) -> None:
    """After every action once play has started, unless a roll or a move-in is still owed."""
    goal = state.goal
    if goal is not None and state.turn and state.phase not in _PENDING:
        winner = goal.winner(state)
        if winner >= 0:
            finish(state, Termination(goal.termination), events, winner)


def opponent(state: GameState) -> int:
    """The other player of a two-player game: rolls for the neutral's (or Allied Army's) defence and
    commands the Allied Army on this turn."""
    return next(s for s in range(state.seats) if s != state.turn_seat and state.status[s] == _ALIVE)


def place_reinforcements(state: GameState, p: Place, events: list[Event]) -> None:
    """REINFORCE: this turn's armies (the phase ends when none are left)."""
    state.armies[p.territory] += p.armies
    state.reinforcements -= p.armies
    state.placed_this_turn = True
    events.append(Placed(state.to_act, p.territory, p.armies))
    if not state.reinforcements:
        state.elimination_trade = False
        state.phase = _ATTACK


def place_allied(state: GameState, p: Place, events: list[Event]) -> None:
    """ALLIED_REINFORCE: the Allied Army's armies, placed by the opponent."""
    state.armies[p.territory] += p.armies
    state.reinforcements -= p.armies
    events.append(Placed(state.neutral, p.territory, p.armies))
    if not state.reinforcements:
        state.phase = _ALLIED_ATTACK


def trade(state: GameState, action: TradeCards, events: list[Event]) -> None:
    seat = state.to_act
    cards = tuple(sorted(action.cards))
    hand = state.hands[seat]
    bonus = state.bonus_territories(seat, cards)
    for c in cards:
        hand.remove(c)
    value = state.rules.trade_value(state.trades_done)
    state.trades_done += 1
    state.reinforcements += value
    where = -1
    state.received += value
    if bonus:
        where = action.bonus_territory if action.bonus_territory in bonus else bonus[0]
        state.armies[where] += state.rules.territory_bonus
        state.received += state.rules.territory_bonus
        state.bonus_used = True
    state.deck.extend(cards)  # traded cards go face down to the bottom of the draw pile
    events.append(Traded(seat, (cards[0], cards[1], cards[2]), value, where))


def fortify(state: GameState, action: Fortify, events: list[Event]) -> None:
    state.armies[action.source] -= action.armies
    state.armies[action.target] += action.armies
    events.append(Fortified(action.source, action.target, action.armies))
    end_turn(state, events)


def end_phase(state: GameState, _: EndPhase, events: list[Event]) -> None:
    phase = state.phase
    if phase == _ATTACK:
        if state.captured_this_turn and state.deck:
            card = state.deck.popleft()
            state.hands[state.turn_seat].append(card)
            events.append(Drew(state.turn_seat, card))
        if state.rules.allied_army and state.territory_count[state.neutral]:
            _start_allied_stage(state)
        else:
            state.phase = _FORTIFY
    elif phase == _ALLIED_ATTACK:
        # 001: "After the second player has decided to stop attacking with the Allied Army, the first
        # player takes his/her free move."
        state.phase = _FORTIFY
        state.attack_phase = _ATTACK
        state.to_act = state.turn_seat
    else:
        end_turn(state, events)


def _start_allied_stage(state: GameState) -> None:
    """001: after the active player's attacks, "the opposing player places the number of Allied Armies
    ... in Allied occupied territories", then "may act as the Allied Army and attack"."""
    state.to_act = opponent(state)
    state.attacker = state.to_act
    state.attack_phase = _ALLIED_ATTACK
    state.reinforcements = state.received // 2
    state.phase = _ALLIED_REINFORCE if state.reinforcements else _ALLIED_ATTACK
