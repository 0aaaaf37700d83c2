"""Years and turns: bids for turn order, markers, income, hiring and building, fortify, the end, scores."""

from __future__ import annotations

from engine.r2210.actions import (
    COMMANDERS,
    Bid,
    BuildStation,
    BuyCards,
    ChooseMarker,
    Commander,
    EndPhase,
    Fortify,
    Hire,
    Phase,
    Place,
    TakeCard,
)
from engine.r2210.cardplay import END_OF_GAME, END_OF_TURN, could_play, settle_turn
from engine.r2210.events import Event2210
from engine.r2210.state import CONQUEST, EMPTY, NOBODY, YEAR_5, GameState2210


def roll_off(
    state: GameState2210, seats: list[int], only_first: bool = False
) -> tuple[list[int], list[list[int]]]:
    """Order ``seats`` by d6, re-rolling ties among the tied only (004: "High roller chooses first").

    With ``only_first`` only the highest are re-rolled (who begins placement); the rest keep seat order.
    Returns the order and every round's dice (0 for a seat not in that round), in ``seats`` order.
    """
    rounds: list[list[int]] = []

    def rank(group: list[int]) -> list[int]:
        if len(group) == 1:
            return group
        dice = {s: state.dice.die(6) for s in group}
        rounds.append([dice.get(s, 0) for s in seats])
        out: list[int] = []
        for value in sorted(set(dice.values()), reverse=True):
            tied = [s for s in group if dice[s] == value]
            out.extend(tied if only_first and out else rank(tied))
        return out

    return rank(list(seats)), rounds


def living(state: GameState2210) -> list[int]:
    return [s for s in range(state.seats) if state.alive[s]]


# ---------------------------------------------------------------------- the start of a year


def start_year(state: GameState2210, events: list[Event2210]) -> None:
    """004: "Before the start of every year, players bid for Turn Order"."""
    state.year += 1
    state.bids = [-1] * state.seats
    state.bids_revealed = False
    state.turn_index = -1
    state.phase = Phase.BID
    state.to_act = -1
    events.append(Event2210("year_started", -1, {"year": state.year}))


def bid(state: GameState2210, seat: int, action: Bid, events: list[Event2210]) -> None:
    """A secret bid; when the last living seat has bid, all are revealed and spent."""
    state.bids[seat] = action.energy
    events.append(Event2210("bid", seat, {"energy": action.energy}, private=True))
    if state.asked:
        return
    seats = living(state)
    # 004: "All energy used to bid is spent and must be turned in to the Energy Bank."
    for s in seats:
        state.energy[s] -= state.bids[s]
    state.bids_revealed = True
    events.append(Event2210("bids_revealed", -1, {"bids": list(state.bids)}))
    order: list[int] = []
    for value in sorted({state.bids[s] for s in seats}, reverse=True):
        tied = [s for s in seats if state.bids[s] == value]
        ranked, rounds = roll_off(state, tied)
        if rounds:
            events.append(Event2210("bid_tie_rolled", -1, {"seats": tied, "rolls": rounds}))
        order.extend(ranked)
    state.choosers = order
    state.marker = [0] * state.seats
    state.phase = Phase.CHOOSE_MARKER
    _next_chooser(state, events)


def free_markers(state: GameState2210) -> tuple[int, ...]:
    """004: "If fewer than 5 are playing use the same number of markers as players"."""
    taken = set(state.marker)
    return tuple(m for m in range(1, len(living(state)) + 1) if m not in taken)


def choose_marker(state: GameState2210, action: ChooseMarker, events: list[Event2210]) -> None:
    seat = state.choosers.pop(0)
    state.marker[seat] = action.marker
    events.append(Event2210("marker_chosen", seat, {"marker": action.marker}))
    _next_chooser(state, events)


def _next_chooser(state: GameState2210, events: list[Event2210]) -> None:
    """The next seat chooses; the last one takes the remaining marker without a decision."""
    if len(state.choosers) > 1:
        state.to_act = state.choosers[0]
        return
    if state.choosers:
        choose_marker(state, ChooseMarker(free_markers(state)[0]), events)
        return
    state.order = tuple(sorted(living(state), key=lambda s: state.marker[s]))
    state.turn_index = 0
    start_turn(state, events)


# ---------------------------------------------------------------------- a turn


def start_turn(state: GameState2210, events: list[Event2210]) -> None:
    """004 COLLECT AND DEPLOY: the Score Chart's MODs and energy, region bonuses, one MOD per station."""
    seat = state.order[state.turn_index]
    state.to_act = seat
    state.contested_captures = 0
    state.bonus_taken = False
    state.bonus_card_due = False
    state.built_station = False
    territories = len(state.controlled(seat))
    mods, energy = state.board.income_for(territories)
    bonus_mods, bonus_energy, _ = state.region_bonus(seat)
    if not state.rules.region_bonus_energy:
        bonus_energy = 0
    state.energy[seat] += energy + bonus_energy
    state.recruits = mods + bonus_mods
    # 004: "You also receive one 1.0-MOD for each Space Station you control. (This MOD must be placed in
    # the territory with the Space Station.)"
    stations = [t for t in range(state.board.size) if state.station[t] == seat]
    for t in stations:
        state.mods[t] += 1
    events.append(
        Event2210(
            "turn_started",
            seat,
            {
                "year": state.year,
                "territories": territories,
                "mods": mods + bonus_mods,
                "energy": energy + bonus_energy,
                "station_mods": stations,
            },
        )
    )
    state.phase = Phase.DEPLOY


def deploy(state: GameState2210, action: Place, events: list[Event2210]) -> None:
    seat = state.to_act
    state.mods[action.territory] += action.mods
    state.recruits -= action.mods
    events.append(Event2210("placed", seat, {"territory": action.territory, "mods": action.mods}))
    if state.recruits == 0:
        state.phase = Phase.BUY


def hire(state: GameState2210, action: Hire, events: list[Event2210]) -> None:
    """004: "hire (buy) any Commanders that you do not already have in play. Commanders cost 3 energy"."""
    seat = state.to_act
    state.energy[seat] -= state.rules.commander_cost
    state.commander_at[seat * 5 + action.commander] = action.territory
    events.append(
        Event2210("hired", seat, {"commander": int(action.commander), "territory": action.territory})
    )


def build_station(state: GameState2210, action: BuildStation, events: list[Event2210]) -> None:
    """004: "buy additional Space Stations (5 energy each). If you already control 4 Space Stations, you
    cannot purchase additional ones"."""
    seat = state.to_act
    state.energy[seat] -= state.rules.station_cost
    state.station[action.territory] = seat
    state.built_station = True
    events.append(Event2210("station_built", seat, {"territory": action.territory}))


def buy_cards(state: GameState2210, action: BuyCards, events: list[Event2210]) -> None:
    """004 BUY COMMAND CARDS: "Command cards cost 1 energy each"; "You must purchase all your cards before
    looking at any of them". The buying ends step 3; playing cards comes next."""
    seat = state.to_act
    state.energy[seat] -= sum(action.counts)
    drawn: list[int] = []
    for deck, count in enumerate(action.counts):
        for _ in range(count):
            drawn.append(state.command_decks[deck].pop(0))
    state.hands[seat].extend(drawn)
    events.append(Event2210("cards_bought", seat, {"counts": list(action.counts)}))
    events.append(Event2210("cards_drawn", seat, {"cards": drawn}, private=True))
    state.phase = Phase.INVADE


def take_card(state: GameState2210, action: TakeCard, events: list[Event2210]) -> None:
    """004 3-Territory Bonus: "1 Command card of your choosing (you can only draw a card from a pile to
    which you have a corresponding Commander in play.)"."""
    seat = state.to_act
    card = state.command_decks[action.deck].pop(0)
    state.hands[seat].append(card)
    state.bonus_card_due = False
    counts = [1 if d == action.deck else 0 for d in range(len(state.command_decks))]
    events.append(Event2210("cards_bought", seat, {"counts": counts, "bonus": True}))
    events.append(Event2210("cards_drawn", seat, {"cards": [card]}, private=True))
    state.phase = Phase.INVADE


def after_move_in(state: GameState2210) -> None:
    """Back to invading, by way of the 3-territory bonus card when one is owed and a deck is open."""
    owed = state.bonus_card_due and any(state.card_decks_open(state.to_act))
    state.bonus_card_due = owed
    state.phase = Phase.BONUS_CARD if owed else Phase.INVADE


def end_phase(state: GameState2210, action: EndPhase, events: list[Event2210]) -> None:
    if state.phase == Phase.BUY:
        state.phase = Phase.INVADE  # buying no Command card
    elif state.phase == Phase.INVADE:
        state.phase = Phase.FORTIFY
    elif state.phase == Phase.FORTIFY:
        close_turn(state, events)
    else:
        end_turn(state, events)  # TURN_END: no (more) end-of-turn card


def move_units(
    state: GameState2210, source: int, target: int, mods: int, commanders: tuple[Commander, ...]
) -> None:
    seat = state.owner[source]
    state.mods[source] -= mods
    state.mods[target] += mods
    for c in commanders:
        state.commander_at[seat * 5 + c] = target


def fortify(state: GameState2210, action: Fortify, events: list[Event2210]) -> None:
    """004 FORTIFY POSITION: "move as many units as you would like from one, and only one, of your
    territories into another" along a safe path."""
    move_units(state, action.source, action.target, action.mods, action.commanders)
    events.append(Event2210("fortified", state.to_act, action._asdict()))
    close_turn(state, events)


def close_turn(state: GameState2210, events: list[Event2210]) -> None:
    """After a Fortify Position: the end-of-turn window (Redeployment: "Play at the end of your turn") when
    the seat might hold a card it may play there by its public card counts (``could_play``: any Diplomat
    card, its Diplomat in play), else the turn ends."""
    if could_play(state, state.to_act, END_OF_TURN):
        state.phase = Phase.TURN_END
    else:
        end_turn(state, events)


def end_turn(state: GameState2210, events: list[Event2210]) -> None:
    settle_turn(state, events)
    events.append(Event2210("turn_ended", state.to_act, {}))
    state.pending = None
    index = state.turn_index + 1
    while index < len(state.order) and not state.alive[state.order[index]]:
        index += 1
    if index < len(state.order):
        state.turn_index = index
        start_turn(state, events)
        return
    # 004 ENDING A YEAR / WINNING: "At the end of Year 5, the final score for the game is calculated."
    if state.year >= state.rules.years:
        end_game(state, events)
    else:
        start_year(state, events)


def end_game(state: GameState2210, events: list[Event2210]) -> None:
    """004 WINNING: at the final scoring each player in turn order adds end-of-game cards (Colony
    Influence); the seats that might hold one they may play, by their public card counts (``could_play``),
    are asked (GAME_END), then the game is scored."""
    state.turn_index = -1
    state.enders = [s for s in state.order if state.alive[s] and could_play(state, s, END_OF_GAME)]
    if not state.enders:
        finish(state, YEAR_5, events)
        return
    state.phase = Phase.GAME_END
    state.to_act = state.enders[0]


# ---------------------------------------------------------------------- elimination and the end


def eliminate_if_beaten(state: GameState2210, seat: int, by: int, events: list[Event2210]) -> None:
    """004: "If during your turn you eliminate an opponent by defeating his or her last unit in play ...
    That player is eliminated from play." Its Space Stations left alone go with it."""
    if not 0 <= seat < state.seats or not state.alive[seat]:
        return
    if any(state.owner[t] == seat and state.units(t) > 0 for t in range(state.board.size)):
        return
    state.alive[seat] = False
    state.eliminated.append(seat)
    for t in range(state.board.size):
        if state.station[t] == seat:
            state.station[t] = NOBODY
            state.owner[t] = NOBODY
    for c in COMMANDERS:
        state.commander_at[seat * 5 + c] = EMPTY
    # "all of the defeated players command cards are discarded"
    state.card_discard.extend(state.hands[seat])
    discarded = len(state.hands[seat])
    state.hands[seat] = []
    state.scouts[seat] = []
    events.append(Event2210("eliminated", seat, {"by": by, "cards_discarded": discarded}))
    if len(living(state)) <= 1:
        finish(state, CONQUEST, events)


def finish(state: GameState2210, reason: str, events: list[Event2210]) -> None:
    """Rank by score, then energy, then units on the board (004 A TIE); equal on all three share a place.

    Eliminated seats come after, the last eliminated first.
    """
    seats = living(state)
    state.scores = tuple(state.score(s) if state.alive[s] else 0 for s in range(state.seats))
    key = {s: (state.scores[s], state.energy[s], state.units_on_board(s)) for s in seats}
    places = [0] * state.seats
    for s in seats:
        places[s] = 1 + sum(1 for o in seats if key[o] > key[s])
    for rank, s in enumerate(reversed(state.eliminated)):
        places[s] = len(seats) + rank + 1
    state.places = tuple(places)
    state.end_reason = reason
    state.phase = Phase.GAME_OVER
    state.to_act = -1
    events.append(
        Event2210("game_ended", -1, {"places": list(places), "scores": list(state.scores), "reason": reason})
    )
