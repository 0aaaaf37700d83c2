"""RISK 2210 A.D. Command cards that open decisions of their own (issue 19: "all 100 cards of the five decks
with their effects"; "choosing targets of cards"; "reactions asked of a seat that is not the one to move"):
Decoys Revealed (DECOYS), MOD Reduction (REDUCE, asked of every opponent) and Armageddon (EXCHANGE, the
nuclear exchange). Each test quotes the card from ``tests/reference/2210_command_cards.json`` or the rulebook
line it checks."""

from __future__ import annotations

import pytest

from engine.errors import IllegalActionError
from engine.r2210.actions import Commander, EndPhase, Fortify, Phase, PlayCard, Remove
from engine.r2210.cardplay import plays
from engine.r2210.cards import EFFECT, KIND_OF, KINDS
from engine.r2210.effects import EFFECTS
from engine.r2210.game import apply, legal_actions
from engine.r2210.policies import default_action
from engine.r2210.state import NOBODY, GameState2210
from tests.engine.r2210_support import midturn, put
from tests.engine.test_r2210_cardplay import hold

L, D, N, S, X = Commander.LAND, Commander.DIPLOMAT, Commander.NAVAL, Commander.SPACE, Commander.NUCLEAR


def tid(state: GameState2210, name: str) -> int:
    return state.board.territory_id(name)


class Die:
    """Every single die shows ``values`` in turn."""

    def __init__(self, *values: int) -> None:
        self.values = list(values)

    def die(self, faces: int) -> int:
        return self.values.pop(0)


def test_every_card_kind_has_an_effect() -> None:
    """Issue 19: "all 100 cards of the five decks with their effects": no kind of card is left unplayable."""
    assert {EFFECT[k] for k in range(len(KINDS))} == set(EFFECTS)


# ---------------------------------------------------------------------- Decoys Revealed


def decoys_setup() -> tuple[GameState2210, int, int, int, int]:
    """Seat 0: Land and Diplomat in Imperial Balkania (4 MODs), its Naval Commander alone in New York, and
    Japan and Tycho (the Moon) with a MOD each; it holds Decoys Revealed."""
    state = midturn(3)
    balkania = put(state, 0, "Imperial Balkania", 4, (L, D))
    ny = put(state, 0, "New York", 0, (N,))
    japan, tycho = put(state, 0, "Japan", 1), put(state, 0, "Tycho", 1)
    put(state, 1, "Egypt", 2, (L,))
    hold(state, 0, "diplomat_decoys_revealed")
    return state, balkania, ny, japan, tycho


def test_decoys_revealed_moves_commanders_to_any_territory_you_control() -> None:
    """Decoys Revealed: "Move any number of your commanders from where they stand to any territories you
    control (on either board), no path or adjacency needed"; its timing: before the first invasion."""
    state, balkania, ny, japan, tycho = decoys_setup()
    (choice,) = legal_actions(state, 0).plays
    assert (choice.targets, choice.picks) == ((), 0)
    apply(state, PlayCard(choice.card), 0)
    legal = legal_actions(state, 0)
    assert state.phase == Phase.DECOYS and state.asked == (0,) and legal.can_end
    assert {(f.source, f.commanders, f.mods) for f in legal.fortify} == {
        (balkania, (L, D), 0),
        (ny, (N,), 0),
    }
    assert next(f for f in legal.fortify if f.source == balkania).targets == tuple(sorted((ny, japan, tycho)))
    apply(state, Fortify(balkania, tycho, 0, (D,)), 0)
    apply(state, Fortify(balkania, japan, 0, (L,)), 0)
    assert state.commander(0, D) == tycho and state.commander(0, L) == japan and state.mods[balkania] == 4
    assert state.phase == Phase.DECOYS, "the Naval Commander may still move"
    apply(state, EndPhase(), 0)
    assert state.phase == Phase.INVADE and state.commander(0, N) == ny
    assert not state.invaded, "still before the first invasion: other cards may still be played"


def test_decoys_revealed_moves_each_commander_once_and_ends_when_none_is_left() -> None:
    """Decoys Revealed moves commanders "from where they stand": each one once; the decision ends by itself
    when every commander has moved."""
    state, balkania, ny, japan, _ = decoys_setup()
    (card,) = state.hands[0]
    apply(state, PlayCard(card), 0)
    apply(state, Fortify(balkania, japan, 0, (L, D)), 0)
    assert [f.source for f in legal_actions(state, 0).fortify] == [ny]
    with pytest.raises(IllegalActionError, match=r"move commanders from one of \[" + str(ny)):
        apply(state, Fortify(japan, balkania, 0, (L,)), 0)
    apply(state, Fortify(ny, japan, 0, (N,)), 0)
    assert state.phase == Phase.INVADE and state.decoys == []


def test_decoys_revealed_leaving_a_territory_empty_loses_it_unless_a_station_holds_it() -> None:
    """Decoys Revealed: "Moving the last unit out of a territory without a Space Station leaves it empty and
    uncontrolled"; 004: you control a territory where "A Space Station of your color is positioned"."""
    state, balkania, ny, japan, _ = decoys_setup()
    andorra = put(state, 0, "Andorra", 0, (S,), station=True)
    (card,) = state.hands[0]
    apply(state, PlayCard(card), 0)
    apply(state, Fortify(ny, japan, 0, (N,)), 0)
    apply(state, Fortify(andorra, japan, 0, (S,)), 0)
    assert state.owner[ny] == NOBODY and state.owner[andorra] == 0 and state.units(japan) == 3
    assert ny not in next(f for f in legal_actions(state, 0).fortify if f.source == balkania).targets


def test_decoys_revealed_only_commanders_already_on_a_board_and_no_mods() -> None:
    """004 Q&A: "Can I bring in commanders I have not purchased with this card ...? No. You may only move your
    commanders that are already on the Earth gameboard or moon gameboard." The card moves commanders, not
    MODs; a seat with nowhere else to go cannot play it."""
    state, balkania, _, japan, _ = decoys_setup()
    (card,) = state.hands[0]
    apply(state, PlayCard(card), 0)
    assert all(X not in f.commanders for f in legal_actions(state, 0).fortify)
    with pytest.raises(IllegalActionError, match="move no MODs"):
        apply(state, Fortify(balkania, japan, 2, (L,)), 0)
    with pytest.raises(IllegalActionError, match="move no MODs"):
        apply(state, Fortify(balkania, japan, 0, (X,)), 0)
    alone = midturn(3)
    put(alone, 0, "Imperial Balkania", 4, (L, D))
    hold(alone, 0, "diplomat_decoys_revealed")
    assert plays(alone, 0, "before_first_invasion") == ()


# ---------------------------------------------------------------------- MOD Reduction


def reduction_setup() -> GameState2210:
    """Four seats, seat 1's turn (markers in seat order); every seat holds 6 MODs in two territories and its
    Diplomat; seat 1 holds MOD Reduction and 2 energy."""
    state = midturn(4, seat=1)
    for seat, (a, b) in enumerate(
        (("Egypt", "Japan"), ("Imperial Balkania", "Andorra"), ("Siberia", "Sakha"), ("New York", "Akara"))
    ):
        put(state, seat, a, 3, (D,))
        put(state, seat, b, 3)
    state.energy[1] = 2
    hold(state, 1, "diplomat_mod_reduction")
    return state


def test_mod_reduction_each_opponent_in_turn_order_removes_four_then_you_two() -> None:
    """MOD Reduction: "Each opponent, in turn order, removes 4 of their own MODs from anywhere on the boards;
    then you remove 2 of your own MODs" (power-up cost 2). Each opponent is asked, though it is not its
    turn (issue 19: "choosing losses"; a decision of a seat that is not the one to move)."""
    state = reduction_setup()
    (card,) = state.hands[1]
    apply(state, PlayCard(card), 1)
    assert state.energy[1] == 0
    asked = []
    while state.phase == Phase.REDUCE:
        (seat,) = state.asked
        legal = legal_actions(state, seat)
        asked.append((seat, legal.lose))
        assert all(state.owner[t] == seat for t in legal.territories) and legal.mods_at == (3, 3)
        a = state.commander(seat, D)  # three from beside the Diplomat, the rest from the other
        (b,) = [t for t in legal.territories if t != a]
        apply(state, Remove(((a,) * 3 + (b,) * 3)[: legal.lose]), seat)
    assert asked == [(2, 4), (3, 4), (0, 4), (1, 2)]
    assert state.phase == Phase.INVADE and state.asked == (1,)
    assert [state.units_on_board(s) for s in range(4)] == [3, 5, 3, 3]
    egypt = tid(state, "Egypt")
    assert state.owner[egypt] == 0 and state.mods[egypt] == 0, "its Diplomat still holds it"


def test_mod_reduction_with_fewer_mods_removes_all_without_asking() -> None:
    """MOD Reduction: "A player with fewer MODs removes all they have"; "Removers choose freely, even
    emptying a territory (loses control unless it holds their Space Station)" (FAQ); a player left without
    units is eliminated (004) and its cards discarded."""
    state = reduction_setup()
    siberia, sakha = tid(state, "Siberia"), tid(state, "Sakha")
    state.mods[siberia] = state.mods[sakha] = 1
    state.commander_at[2 * 5 + D] = -1
    state.station[sakha] = 2  # seat 2 keeps Sakha by its station, then has no unit left
    hold(state, 2, "land_stealth_mods")
    ny, akara = tid(state, "New York"), tid(state, "Akara")
    state.mods[akara] = 0
    state.owner[akara] = NOBODY  # seat 3: all its MODs in New York, with its Diplomat: no choice
    (card,) = state.hands[1]
    apply(state, PlayCard(card), 1)
    assert state.owner[siberia] == NOBODY and not state.alive[2] and state.hands[2] == []
    assert state.station[sakha] == NOBODY, "a station left alone goes with its eliminated owner"
    assert state.mods[ny] == 0 and state.owner[ny] == 3
    assert state.asked == (0,), "seat 2 and seat 3 had no choice; seat 0 is asked"


def test_mod_reduction_for_the_neutral_army_is_chosen_by_the_other_player() -> None:
    """004 two players: the neutral MODs "may not move, play cards, get Commanders"; docs/rules.md open point
    17: neutral "Counts as an opponent for card targets" and the seat not playing decides for it."""
    state = midturn(2, seat=0)
    put(state, 0, "Egypt", 5, (D,))
    put(state, 0, "Japan", 1)
    put(state, 1, "Siberia", 6)
    put(state, 1, "Sakha", 6)
    neutral = [put(state, 2, name, 3) for name in ("Andorra", "Iceland GRC", "Akara")]
    state.energy[0] = 2
    (card,) = hold(state, 0, "diplomat_mod_reduction")
    apply(state, PlayCard(card), 0)
    apply(state, Remove((tid(state, "Siberia"),) * 4), 1)
    assert state.phase == Phase.REDUCE and state.asked == (1,)
    legal = legal_actions(state, 1)
    assert legal.territories == tuple(sorted(neutral)) and legal.lose == 4
    apply(state, Remove((neutral[0],) * 3 + (neutral[1],)), 1)
    assert state.owner[neutral[0]] == NOBODY and state.mods[neutral[1]] == 2
    assert state.asked == (0,) and legal_actions(state, 0).lose == 2


def test_a_bad_removal_names_what_is_legal_and_the_timeout_default_is_legal() -> None:
    """Issue 19, Bad input: a rejection "that names what was legal"; "a timeout gets a safe legal default"."""
    state = reduction_setup()
    (card,) = state.hands[1]
    apply(state, PlayCard(card), 1)
    siberia, sakha = tid(state, "Siberia"), tid(state, "Sakha")
    with pytest.raises(IllegalActionError, match=r"name 4 MODs to remove.*not 2"):
        apply(state, Remove((siberia, sakha)), 2)
    with pytest.raises(IllegalActionError, match=f"territory {siberia} named 4 times"):
        apply(state, Remove((siberia,) * 4), 2)
    apply(state, default_action(legal_actions(state, 2)), 2)
    assert state.units_on_board(2) == 3 and state.asked == (3,)


# ---------------------------------------------------------------------- Armageddon


def armageddon_setup(**options: object) -> GameState2210:
    """Seat 1's turn (markers in seat order); every seat has a Nuclear Commander; seat 1 holds Armageddon,
    an Assassin Bomb and 4 energy; seats 0 and 2 a Rocket Strike Land each and no energy."""
    state = midturn(3, seat=1, **options)
    put(state, 0, "Egypt", 5, (X, D))
    put(state, 1, "Imperial Balkania", 6, (X, L))
    put(state, 2, "Siberia", 5, (X,))
    state.energy[1] = 4
    hold(state, 1, "nuclear_armageddon", "nuclear_assassin_bomb")
    hold(state, 0, "nuclear_rocket_strike_land")
    hold(state, 2, "nuclear_rocket_strike_land")
    return state


def play_armageddon(state: GameState2210) -> None:
    apply(state, PlayCard(next(c for c in state.hands[1] if EFFECT[KIND_OF[c]] == "armageddon")), 1)


def test_armageddon_opens_a_free_nuclear_exchange_in_marker_order() -> None:
    """Armageddon: "Starting a nuclear exchange: going round in turn order, every player may play any number
    of Nuclear Command cards without paying their power-up cost; the exchange ends when all have finished";
    "the card owner of Armageddon pays 4"; docs/rules.md open point 12: "One pass in marker order (#1
    first), the card's player included"."""
    state = armageddon_setup()
    play_armageddon(state)
    assert state.energy[1] == 0 and state.phase == Phase.EXCHANGE and state.asked == (0,)
    (strike,) = legal_actions(state, 0).plays
    balkania = tid(state, "Imperial Balkania")
    assert balkania in strike.targets and state.energy[0] == 0, "played free: no energy needed"
    state.dice = Die(2, 8, 5)  # type: ignore[assignment]
    apply(state, PlayCard(strike.card, (balkania,)), 0)
    assert state.units(balkania) == 6 and state.energy[0] == 0
    assert state.asked == (1,), "seat 0 holds no Nuclear card any more; the card's player is next"
    (bomb,) = legal_actions(state, 1).plays
    apply(state, PlayCard(bomb.card, (2 * 5 + X,)), 1)
    assert state.commander(2, X) == -1 and state.energy[1] == 0
    assert state.phase == Phase.INVADE and state.asked == (1,), "seat 2 lost its Nuclear Commander"


def test_only_nuclear_cards_are_played_in_the_exchange_and_a_pass_ends_a_seats_part() -> None:
    """Armageddon (FAQ): "once Armageddon is out only Nuclear cards may be played until everyone is done";
    the exchange is one pass: a seat that passes is not asked again."""
    state = armageddon_setup()
    hold(state, 0, "land_assemble_mods")
    state.commander_at[0 * 5 + L] = tid(state, "Egypt")
    state.energy[0] = 1
    play_armageddon(state)
    assert [EFFECT[KIND_OF[c.card]] for c in legal_actions(state, 0).plays] == ["rocket_strike"]
    apply(state, EndPhase(), 0)
    assert state.asked == (1,)
    apply(state, EndPhase(), 1)
    assert state.asked == (2,)
    apply(state, EndPhase(), 2)
    assert state.phase == Phase.INVADE and state.asked == (1,) and state.exchange == []
    assert len(state.hands[0]) == 2


def test_jammed_players_and_players_without_a_nuclear_commander_sit_out() -> None:
    """Armageddon: "Only players with a Nuclear Commander in play may take part (official FAQ)"; FAQ: "to
    keep a player out of an Armageddon you start, play Frequency Jam first"."""
    state = armageddon_setup()
    state.commander_at[0 * 5 + X] = -1
    (jam,) = hold(state, 1, "land_frequency_jam")
    apply(state, PlayCard(jam, (2,)), 1)
    play_armageddon(state)
    assert state.asked == (1,), "seat 0 has no Nuclear Commander, seat 2 is jammed"
    apply(state, EndPhase(), 1)
    assert state.phase == Phase.INVADE


def test_armageddon_only_for_its_player_under_the_option() -> None:
    """Cards JSON disagreement: "only your own nuclear cards free this turn" (ai_reconstructions) against
    "all players may play nuclear cards free" (four sources): ``armageddon_all=False``."""
    state = armageddon_setup(armageddon_all=False)
    play_armageddon(state)
    assert state.asked == (1,) and state.exchange == [1]
    apply(state, EndPhase(), 1)
    assert state.phase == Phase.INVADE and len(state.hands[0]) == 1


def test_an_exchange_that_takes_the_turn_players_last_unit_ends_its_turn() -> None:
    """004: "eliminate an opponent by defeating his or her last unit in play ... That player is eliminated
    from play"; a nuclear card "that cause[s] damage [is] not [an invasion]": the exchange goes on, then the
    eliminated turn player's turn ends."""
    state = armageddon_setup()
    balkania = tid(state, "Imperial Balkania")
    state.mods[balkania] = 3
    state.commander_at[1 * 5 + L] = -1
    play_armageddon(state)
    state.dice = Die(6)  # type: ignore[assignment]
    (strike,) = legal_actions(state, 0).plays
    apply(state, PlayCard(strike.card, (balkania,)), 0)
    assert not state.alive[1] and state.asked == (2,)
    apply(state, EndPhase(), 2)
    assert state.turn_seat == 2 and state.phase == Phase.DEPLOY
