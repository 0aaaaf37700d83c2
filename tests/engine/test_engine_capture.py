"""Cards earned by capturing, cards taken from an eliminated player, and the forced trade-down."""

from __future__ import annotations

import pytest
from engine_table import T, force_dice, position

from engine import (
    Attack,
    EndPhase,
    GameState,
    IllegalActionError,
    Occupy,
    Phase,
    Place,
    PlayerStatus,
    TradeCards,
)
from engine.events import CardsTaken, Drew, Eliminated, Traded

ALASKA, KAMCHATKA, ALBERTA, NORTHWEST = T("Alaska"), T("Kamchatka"), T("Alberta"), T("Northwest Territory")
# Seat 2 holds Kamchatka only; seat 0 holds the Americas (ids 0..12), seat 1 everything else.
OWNERS = [0] * 13 + [1] * 29
OWNERS[KAMCHATKA] = 2
INF, CAV, ART = (18, 20, 21), (16, 17, 19), (14, 15, 23)


def attack_position(hands: list[tuple[int, ...]], alaska: int = 10) -> GameState:
    """Seat 0 attacking; Alaska (``alaska`` armies) borders seat 2's last territory, Kamchatka (1 army)."""
    armies = [2] * 42
    armies[ALASKA], armies[KAMCHATKA] = alaska, 1
    return position(OWNERS, armies, hands=hands)


def eliminate_seat_2(state: GameState) -> list[object]:
    """Seat 0 takes Kamchatka with 3 dice and moves 3 in."""
    force_dice(state, ((6, 6, 6), (1,)))
    events: list[object] = list(state.apply(Attack(ALASKA, KAMCHATKA, 3)))
    if state.phase == Phase.OCCUPY:
        events += state.apply(Occupy(3))
    return events


def test_eliminating_a_player_takes_their_cards() -> None:
    """000: "If during your turn you eliminate an opponent by defeating his or her last army on the game
    board, you win any RISK cards that player has collected.\""""
    state = attack_position([(INF[0],), (), CAV])
    events = eliminate_seat_2(state)
    assert Eliminated(2, 0, 3) in events
    assert CardsTaken(0, CAV) in events
    assert sorted(state.hands[0]) == sorted((INF[0], *CAV))
    assert state.hands[2] == []
    assert state.status[2] == PlayerStatus.ELIMINATED
    assert state.eliminated == [2]


def test_fewer_than_six_cards_wait_for_the_next_turn() -> None:
    """000: "But if winning them gives you fewer than 6, you must wait until the beginning of your next
    turn to trade in a set.\""""
    state = attack_position([INF[:2], (), CAV])
    eliminate_seat_2(state)
    legal = state.legal_actions()
    assert state.phase == Phase.ATTACK
    assert legal.trades == () and legal.attacks
    with pytest.raises(IllegalActionError, match="no card set may be traded now"):
        state.apply(TradeCards(CAV))


@pytest.mark.parametrize(
    ("own", "taken", "left"),
    [
        ((INF[0], CAV[0], ART[0]), (INF[1], CAV[1], ART[1]), 3),  # 6 -> 3
        (
            (INF[0], CAV[0], ART[0], INF[1]),
            (CAV[1], ART[1], INF[2]),
            4,
        ),  # 7 -> 4, and stop though 4 hold a set
        ((INF[0], CAV[0], ART[0], INF[1]), (CAV[1], ART[1], INF[2], CAV[2]), 2),  # 8 -> 5 -> 2
    ],
    ids=["6 cards", "7 cards", "8 cards"],
)
def test_six_or_more_cards_trade_down_at_once_to_four_or_fewer(
    own: tuple[int, ...], taken: tuple[int, ...], left: int
) -> None:
    """000: "If winning them gives you 6 or more cards, you must immediately trade in enough sets to reduce
    your hand to 4 or fewer cards, but once your hand is reduced to 4,3, or 2 cards, you must stop
    trading.\""""
    state = attack_position([own, (), taken])
    eliminate_seat_2(state)
    values = []
    while state.legal_actions().must_trade:
        legal = state.legal_actions()
        assert state.phase == Phase.REINFORCE
        assert legal.attacks == () and legal.place_territories == ()
        with pytest.raises(IllegalActionError):
            state.apply(Attack(ALBERTA, T("Kamchatka"), 1))
        (traded,) = [e for e in state.apply(TradeCards(legal.trades[0])) if isinstance(e, Traded)]
        values.append(traded.armies)
    assert len(state.hands[0]) == left
    legal = state.legal_actions()
    assert legal.trades == ()
    assert legal.place_max == sum(values) == state.reinforcements
    assert state.phase == Phase.REINFORCE


def test_traded_down_armies_are_placed_before_attacking_on() -> None:
    """000: "you must immediately trade in enough sets to reduce your hand to 4 or fewer cards" — and the
    armies are placed before the attack goes on (issue 2: "place those armies before attacking on")."""
    state = attack_position([(INF[0], CAV[0], ART[0]), (), (INF[1], CAV[1], ART[1])])
    eliminate_seat_2(state)
    state.apply(TradeCards(state.legal_actions().trades[0]))
    assert Attack(KAMCHATKA, T("Yakutsk"), 1) not in state.legal_actions()
    state.apply(Place(KAMCHATKA, state.reinforcements - 1))
    assert state.phase == Phase.REINFORCE
    state.apply(Place(ALASKA, 1))
    assert state.phase == Phase.ATTACK
    assert state.legal_actions().attacks


def test_one_card_at_the_end_of_a_turn_with_captures() -> None:
    """000: "At the end of any turn in which you have captured at least one territory, you will earn one
    (and only one) RISK card." and "take the top RISK card from the draw pile.\""""
    state = attack_position([(), (), ()], alaska=20)
    state.owner[NORTHWEST] = 1  # a second territory to capture
    state.territory_count = [12, 29, 1]
    force_dice(state, ((6,), (1, 1)), ((6,), (1,)))
    state.apply(Attack(ALASKA, NORTHWEST, 1))
    state.apply(Attack(ALASKA, NORTHWEST, 1))
    state.apply(Occupy(1))
    eliminate_seat_2(state)
    assert state.owner[NORTHWEST] == state.owner[KAMCHATKA] == 0
    top = state.deck[0]
    assert state.apply(EndPhase()) == [Drew(0, top)]
    assert state.hands[0] == [top]
    assert state.phase == Phase.FORTIFY


def test_no_card_without_a_capture() -> None:
    """000: "At the end of any turn in which you have captured at least one territory" — else none."""
    state = attack_position([(), (), ()])
    deck = list(state.deck)
    assert state.apply(EndPhase()) == []
    assert state.hands[0] == [] and list(state.deck) == deck


def test_no_card_when_the_draw_pile_is_empty() -> None:
    """docs/rules.md: with the draw pile empty (all 44 cards in hands) no card is drawn."""
    everything = [c for c in range(44) if c not in (INF[0],)]
    state = attack_position([(INF[0],), tuple(everything[:30]), tuple(everything[30:])])
    state.owner[T("Yakutsk")] = 2  # seat 2 keeps a territory: no elimination
    state.territory_count = [13, 27, 2]
    force_dice(state, ((6, 6, 6), (1,)))
    state.apply(Attack(ALASKA, KAMCHATKA, 3))
    state.apply(Occupy(3))
    assert not state.deck
    assert state.apply(EndPhase()) == []
    assert state.phase == Phase.FORTIFY
    assert state.hands[0] == [INF[0]]


def test_a_drawn_card_that_makes_six_waits_for_the_next_turn() -> None:
    """000: "Note: When you draw a card from the deck at the end of your turn (for having won a battle), if
    this brings your total to 6, you must wait until your next turn to trade in.\""""
    hand = (INF[0], INF[1], CAV[0], CAV[1], ART[0])
    state = attack_position([hand, (), ()], alaska=10)
    state.owner[T("Yakutsk")] = 2  # seat 2 keeps a territory: no elimination
    state.territory_count = [13, 27, 2]
    force_dice(state, ((6, 6, 6), (1,)))
    state.apply(Attack(ALASKA, KAMCHATKA, 3))
    state.apply(Occupy(3))
    state.apply(EndPhase())
    assert len(state.hands[0]) == 6
    assert state.phase == Phase.FORTIFY
    assert state.legal_actions().trades == ()
    state.apply(EndPhase())
    assert state.turn_seat == 1  # the turn passed without a trade
