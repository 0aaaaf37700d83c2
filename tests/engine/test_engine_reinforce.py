"""Getting and placing new armies: territories, continents, card sets and the +2 territory bonus."""

from __future__ import annotations

import pytest
from engine_table import WILDS, T, position, split_board, start_turn

from engine import (
    CLASSIC,
    EndPhase,
    GameState,
    IllegalActionError,
    Phase,
    Place,
    TradeCards,
    preset,
)
from engine.events import Traded, TurnStarted

# Seat 0 holds ids 0..13 (North and South America, Iceland), seat 1 ids 14..27, seat 2 ids 28..41.
OWNERS = split_board(14, 14, 14)
# Cards picturing seat 0's territories, and cards picturing other seats' territories.
OWN_INF, OWN_CAV, OWN_ART = (0, 2, 3), (4, 5, 6), (1, 7, 8)
OTHER_INF, OTHER_CAV, OTHER_ART = (18, 20, 21), (16, 17, 19), (14, 15, 23)


def turn_of_seat_0(hand: tuple[int, ...] = (), rules: str = "classic", **options: object) -> GameState:
    """Seat 0's turn has just started (REINFORCE) holding ``hand``."""
    state = position(OWNERS, 3, rules=preset(rules, **options), hands=[hand], phase=Phase.FORTIFY)
    start_turn(state, 0)
    return state


def spread_owners(territories: int) -> list[int]:
    """Seat 0 holds ``territories`` (at most 18) spread over the continents so none is complete."""
    by_round = sorted(
        range(42), key=lambda t: CLASSIC.continent_members[CLASSIC.territories[t].continent].index(t)
    )
    owners = [1 + t % 2 for t in range(42)]
    for t in by_round[:territories]:
        owners[t] = 0
    return owners


@pytest.mark.parametrize(
    ("territories", "armies"), [(1, 3), (8, 3), (9, 3), (11, 3), (12, 4), (14, 4), (16, 5), (17, 5), (18, 6)]
)
def test_territories_divided_by_three_at_least_three(territories: int, armies: int) -> None:
    """000: "divide the total by three (ignore any fraction) ... Example: 11 territories = 3 armies
    14 territories = 4 armies 17 territories = 5 armies You will always receive at least 3 armies on a
    turn, even if you occupy fewer than 9 territories.\""""
    state = position(spread_owners(territories), phase=Phase.FORTIFY)
    assert state.territory_count[0] == territories
    started = [e for e in start_turn(state, 0) if isinstance(e, TurnStarted)]
    assert started == [TurnStarted(0, state.turn, armies, 0)]
    assert state.reinforcements == armies
    assert state.legal_actions().place_max == armies


@pytest.mark.parametrize("continent", range(6), ids=[c.name for c in CLASSIC.continents])
def test_continent_bonus_for_every_continent_held_at_turn_start(continent: int) -> None:
    """000: "at the beginning of your turn you will receive armies for each continent you control. (To
    control a continent, you must occupy all its territories at the start of your turn.)\""""
    members = CLASSIC.continent_members[continent]
    owners = [1 + t % 2 for t in range(42)]
    for t in members:
        owners[t] = 0
    state = position(owners, phase=Phase.FORTIFY)
    (started,) = [e for e in start_turn(state, 0) if isinstance(e, TurnStarted)]
    bonus = CLASSIC.continents[continent].bonus
    assert (started.territory_armies, started.continent_armies) == (max(3, len(members) // 3), bonus)
    assert state.reinforcements == max(3, len(members) // 3) + bonus

    owners[members[0]] = 1  # one territory short of the continent: no bonus
    state = position(owners, phase=Phase.FORTIFY)
    (started,) = [e for e in start_turn(state, 0) if isinstance(e, TurnStarted)]
    assert started.continent_armies == 0


def test_several_continents_add_up() -> None:
    """000: "you will receive armies for each continent you control" (North and South America: 5 + 2)."""
    state = turn_of_seat_0()
    assert state.reinforcements == 14 // 3 + 5 + 2


@pytest.mark.parametrize(
    ("trades_done", "value"), [(0, 4), (1, 6), (2, 8), (3, 10), (4, 12), (5, 15), (6, 20), (7, 25), (8, 30)]
)
def test_trade_in_sequence(trades_done: int, value: int) -> None:
    """000: "The first set traded in - 4 armies ... The sixth set traded in - 15 armies. After the sixth
    set has been traded in, each additional set is worth 5 more armies. Example: If you trade in the
    seventh set, you get 20 armies; if you trade in the eighth, you get 25 armies\""""
    state = turn_of_seat_0(OTHER_INF)
    state.trades_done = trades_done
    before = state.reinforcements
    (traded,) = state.apply(TradeCards(OTHER_INF))
    assert traded == Traded(0, OTHER_INF, value, -1)
    assert state.reinforcements == before + value
    assert state.trades_done == trades_done + 1


def test_set_values_count_sets_traded_by_anyone() -> None:
    """000: ""First" and "second" set, etc., refer to sets traded in by anyone during the game. Thus, if
    you trade in the third set in the game, you receive 8 armies, even if it's the first set you have
    traded in.\""""
    state = position(OWNERS, 3, hands=[OTHER_INF, OWN_CAV, OWN_ART], phase=Phase.FORTIFY)
    start_turn(state, 0)
    values = []
    for seat, cards in ((0, OTHER_INF), (1, OWN_CAV), (2, OWN_ART)):
        assert state.turn_seat == seat
        (traded,) = state.apply(TradeCards(cards), seat=seat)
        values.append(traded.armies)
        state.apply(Place(state.legal_actions().place_territories[0], state.reinforcements), seat=seat)
        state.apply(EndPhase(), seat=seat)
        state.apply(EndPhase(), seat=seat)
    assert values == [4, 6, 8]


SETS = [
    ("three infantry", (0, 2, 3), True),
    ("three cavalry", (4, 5, 6), True),
    ("three artillery", (1, 7, 8), True),
    ("one of each", (0, 4, 1), True),
    ("two alike plus a wild", (0, 2, WILDS[0]), True),
    ("two different plus a wild", (0, 4, WILDS[1]), True),
    ("one plus two wilds", (0, *WILDS), True),
    ("two infantry and a cavalry", (0, 2, 4), False),
    ("one infantry and two artillery", (0, 1, 7), False),
]


@pytest.mark.parametrize(("cards", "valid"), [s[1:] for s in SETS], ids=[s[0] for s in SETS])
def test_which_three_cards_make_a_set(cards: tuple[int, int, int], valid: bool) -> None:
    """000: "3 cards of same design (Infantry, Cavalry, or Artillery) 1 each of 3 designs any 2 plus a
    "wild" card." (docs/rules.md: any three cards that include a wild are a set)."""
    state = turn_of_seat_0(cards)
    legal = state.legal_actions()
    assert (tuple(sorted(cards)) in legal.trades) == valid
    assert (TradeCards(cards) in legal) == valid
    if not valid:
        with pytest.raises(IllegalActionError, match="no card set may be traded now"):
            state.apply(TradeCards(cards))


def test_bonus_for_a_pictured_territory_is_placed_there_at_once() -> None:
    """000: "If any of the 3 cards you trade in shows the picture of a territory you occupy, you receive 2
    extra armies. You must place both those armies onto that particular territory.\""""
    state = turn_of_seat_0((OWN_INF[0], *OTHER_INF[:2]))
    before = list(state.armies)
    reinforcements = state.reinforcements
    (traded,) = state.apply(TradeCards((OWN_INF[0], *OTHER_INF[:2])))
    assert traded.bonus_territory == OWN_INF[0]
    assert state.armies[OWN_INF[0]] == before[OWN_INF[0]] + 2
    assert sum(state.armies) == sum(before) + 2
    assert state.reinforcements == reinforcements + 4  # the +2 is not added to the armies to place


def test_no_bonus_for_territories_someone_else_holds() -> None:
    """000: "shows the picture of a territory you occupy" — others' territories give nothing."""
    state = turn_of_seat_0(OTHER_ART)
    before = list(state.armies)
    (traded,) = state.apply(TradeCards(OTHER_ART))
    assert traded.bonus_territory == -1
    assert state.armies == before


def test_player_chooses_which_pictured_territory_gets_the_bonus() -> None:
    """004: "even if cards you turn in have more than one territory that you own. In this case, choose
    which territory gets the bonus MODs." (bonus_territory; -1 takes the first)."""
    state = turn_of_seat_0(OWN_INF)
    assert state.legal_actions().bonus_territories == (OWN_INF,)
    with pytest.raises(IllegalActionError, match=r"bonus territory 20 must be -1 or one of \[0, 2, 3\]"):
        state.apply(TradeCards(OWN_INF, bonus_territory=20))
    (traded,) = state.apply(TradeCards(OWN_INF, bonus_territory=OWN_INF[2]))
    assert traded.bonus_territory == OWN_INF[2]
    assert state.armies[OWN_INF[2]] == 5

    state = turn_of_seat_0(OWN_INF)
    (traded,) = state.apply(TradeCards(OWN_INF))
    assert traded.bonus_territory == OWN_INF[0]


def test_bonus_at_most_once_per_turn() -> None:
    """000: "Note: On a single turn, you may receive no more than 2 extra armies above and beyond those you
    receive for the matched sets of cards you trade in.\""""
    state = turn_of_seat_0((*OWN_INF, *OWN_ART))
    (first,) = state.apply(TradeCards(OWN_INF))
    assert first.bonus_territory == OWN_INF[0]
    assert state.legal_actions().bonus_territories == ((),)
    before = list(state.armies)
    (second,) = state.apply(TradeCards(OWN_ART))
    assert second.bonus_territory == -1
    assert state.armies == before


def test_bonus_per_set_option() -> None:
    """README "Points the rulebooks leave open": "The +2 bonus: at most once per turn (classic text) or
    once per traded set (older text)" — territory_bonus_mode='per_set'."""
    state = turn_of_seat_0((*OWN_INF, *OWN_ART), territory_bonus_mode="per_set")
    (first,) = state.apply(TradeCards(OWN_INF))
    (second,) = state.apply(TradeCards(OWN_ART))
    assert (first.bonus_territory, second.bonus_territory) == (OWN_INF[0], OWN_ART[0])
    assert state.armies[OWN_INF[0]] == state.armies[OWN_ART[0]] == 5


def test_trading_is_forced_at_five_cards() -> None:
    """000: "But if you have 5 or 6 cards at the beginning of your turn, you must trade in at least one
    set, and may trade in a second set if you have one.\""""
    hand = (*OTHER_INF, OTHER_CAV[0], OTHER_ART[0])
    state = turn_of_seat_0(hand)
    legal = state.legal_actions()
    assert legal.must_trade and legal.trades and not legal.place_territories
    with pytest.raises(IllegalActionError, match="trade a card set first"):
        state.apply(Place(0, 1))
    state.apply(TradeCards(OTHER_INF))
    legal = state.legal_actions()
    assert not legal.must_trade and legal.place_territories


def test_a_second_set_may_be_traded_at_six_cards() -> None:
    """000: "you must trade in at least one set, and may trade in a second set if you have one.\""""
    state = turn_of_seat_0((*OTHER_INF, *OTHER_CAV))
    assert state.legal_actions().must_trade
    state.apply(TradeCards(OTHER_INF))
    legal = state.legal_actions()
    assert not legal.must_trade
    assert legal.trades == (OTHER_CAV,)
    state.apply(TradeCards(OTHER_CAV))
    assert state.hands[0] == []


def test_trading_is_optional_below_five_cards() -> None:
    """000: "If you have collected a set of 3 RISK cards, you may turn them in at the beginning of your
    next turn, or you may wait.\""""
    state = turn_of_seat_0((*OTHER_INF, OTHER_CAV[0]))
    legal = state.legal_actions()
    assert not legal.must_trade
    assert legal.trades == (OTHER_INF,)
    assert Place(0, legal.place_max) in legal


def test_forced_trade_threshold_is_an_option() -> None:
    """docs/rules.md: a trade is forced while holding forced_trade_at or more cards before placing."""
    state = turn_of_seat_0((*OTHER_INF, OTHER_CAV[0]), forced_trade_at=4)
    assert state.legal_actions().must_trade


def test_trades_only_before_the_first_placement() -> None:
    """000: "you may turn them in at the beginning of your next turn" — once placing has begun the
    trading window is closed (docs/rules.md, trade timing)."""
    state = turn_of_seat_0(OTHER_INF)
    state.apply(Place(0, 1))
    assert state.legal_actions().trades == ()
    with pytest.raises(IllegalActionError, match="no card set may be traded now"):
        state.apply(TradeCards(OTHER_INF))


def test_traded_cards_go_to_the_bottom_of_the_draw_pile() -> None:
    """004: "Put the traded-in cards facedown at the bottom of the draw pile.\""""
    state = turn_of_seat_0(OTHER_INF)
    deck = list(state.deck)
    state.apply(TradeCards(OTHER_INF))
    assert list(state.deck)[: len(deck)] == deck
    assert sorted(list(state.deck)[len(deck) :]) == sorted(OTHER_INF)


def test_placement_only_on_own_territories() -> None:
    """000: "Place the new armies on any territory you already occupy.\""""
    state = turn_of_seat_0()
    assert state.legal_actions().place_territories == tuple(range(14))
    with pytest.raises(IllegalActionError, match="is not one you may place on"):
        state.apply(Place(T("Scandinavia"), 1))
    state.apply(Place(T("Alaska"), state.reinforcements))
    assert state.phase == Phase.ATTACK
