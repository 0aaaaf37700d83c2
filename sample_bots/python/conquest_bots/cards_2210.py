"""The strategist's RISK 2210 A.D. Command cards: which decks to buy from, which card to play in each
window and on what (``conquest_bots.strategist_2210`` asks). Cards are told apart by name
(``Board2210.card_names``), as a bot sees them; ``plays`` come from ``Legal2210`` only, so every play is
legal. What each card does is docs/rules.md's card table.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from conquest.v1 import r2210_pb2 as pb
from conquest_sdk import actions_2210 as act
from conquest_sdk.r2210 import DIPLOMAT, KIND_LUNAR, KIND_WATER, LAND, NAVAL, NUCLEAR, SPACE

if TYPE_CHECKING:
    from conquest_bots.strategist_2210 import Reading

FREE_GAINS = frozenset(
    {"Reinforcements", "Scout Forces", "Hidden Energy", "Energy Crisis", "Colony Influence"}
)
"""Cards that cost nothing and only help us: always played when the window opens."""
DEATH_TRAPS = frozenset({"Land Death Trap", "Water Death Trap", "Orbital Mines"})
TRAP_SOURCE = 6
"""A Death Trap is worth its 2-3 energy against an invading stack of at least this many units."""


def deck_order(r: Reading) -> list[int]:
    """Command decks by how much their cards are worth to us now, best first: Diplomat (Colony Influence,
    Territorial Station, Energy Crisis, MOD Reduction), Land (MODs, Stealth MODs), Nuclear (strikes),
    Naval when we hold water, Space when we hold the Moon."""
    w = r.where
    water = sum(w.board.kind[t] == KIND_WATER for t in w.mine)
    lunar = sum(w.board.kind[t] == KIND_LUNAR for t in w.mine)
    order = [DIPLOMAT, LAND]
    if water >= 3:
        order.append(NAVAL)
    order.append(NUCLEAR)
    if lunar >= 3:
        order.append(SPACE)
    return order


def buy_counts(r: Reading, legal: pb.Legal2210, spend: int) -> list[int]:
    """Up to ``spend`` cards, spread over the decks ``deck_order`` likes, within what each deck holds."""
    counts = [0] * len(legal.card_decks)
    for deck in deck_order(r) * 4:
        if spend <= 0:
            break
        if counts[deck] < legal.card_decks[deck]:
            counts[deck] += 1
            spend -= 1
    return counts


def bonus_deck(r: Reading, legal: pb.Legal2210) -> int:
    """The 3-territory bonus card: the best deck that is open."""
    for deck in [*deck_order(r), NAVAL, SPACE]:
        if legal.card_decks[deck]:
            return deck
    return next(d for d, n in enumerate(legal.card_decks) if n)


def before_invading(r: Reading, legal: pb.Legal2210) -> pb.Action2210 | None:
    """A card worth playing before our first invasion, or None (then we invade)."""
    spare = r.spare_energy()
    for option in legal.plays:
        name = r.where.board.card_names[option.card]
        cost = r.where.board.card_costs[option.card]
        if cost > spare:
            continue
        chosen = _TARGETED.get(name, _untargeted)(r, option, name)
        if chosen is not None:
            return act.play_card(option.card, chosen)
    return None


def _untargeted(r: Reading, option: pb.CardPlayOption, name: str) -> list[int] | None:
    if option.picks:
        return None
    if name in FREE_GAINS:
        return []
    if name == "MOD Reduction" and r.players > 2:
        return []  # every opponent loses 4 MODs, we 2
    lunar = [t for t in range(r.where.board.size) if r.where.board.kind[t] == KIND_LUNAR]
    if name == "Energy Extraction" and all(r.where.owners[t] == r.me for t in lunar):
        return []
    if name.startswith("Scatter Bomb"):
        return []  # hits opponents only
    if name == "Invade Earth":
        return [] if any(r.where.owners[t] == r.me and r.where.units[t] > 2 for t in lunar) else None
    return None  # Armageddon, zone bombs (they hit us too), Decoys Revealed


def _place_mods(r: Reading, option: pb.CardPlayOption, name: str) -> list[int] | None:
    """Assemble MODs, Reinforcements: the territories of their kind we most want stronger."""
    ranked = sorted(option.targets, key=r.reinforce_value, reverse=True)
    return ranked[: option.picks]


def _station(r: Reading, option: pb.CardPlayOption, name: str) -> list[int] | None:
    """Territorial Station: on our biggest stack (8-sided defence, a MOD a turn, the way to the Moon)."""
    return [max(option.targets, key=lambda t: r.where.units[t] + r.where.threat(t))]


def _jam(r: Reading, option: pb.CardPlayOption, name: str) -> list[int] | None:
    """Frequency Jam: the opponent holding the most cards, if any holds one (its reactions stop)."""
    seat = max(option.targets, key=r.cards_held)
    return [seat] if r.cards_held(seat) else None


def _rocket(r: Reading, option: pb.CardPlayOption, name: str) -> list[int] | None:
    """Rocket Strike: the strongest enemy territory next to ours, or one holding commanders."""
    w = r.where

    def worth(t: int) -> float:
        near = any(w.owners[n] == r.me for n in w.board.neighbours[t])
        return w.units[t] * (1.0 if near else 0.3) + 2 * len(w.commanders_at.get(t, ()))

    best = max(option.targets, key=worth)
    return [best] if worth(best) >= 3 else None


def _assassin(r: Reading, option: pb.CardPlayOption, name: str) -> list[int] | None:
    """Assassin Bomb: a commander of the strongest opponent, Naval and Space first (they open water and
    the Moon), then Nuclear, Land, Diplomat."""
    rank = {NAVAL: 4, SPACE: 3, NUCLEAR: 2, LAND: 1, DIPLOMAT: 0}
    return [max(option.targets, key=lambda a: (r.strength(a // 5), rank[a % 5]))]


_TARGETED: dict[str, Callable[[Reading, pb.CardPlayOption, str], list[int] | None]] = {
    "Assemble MODs": _place_mods,
    "Reinforcements": _place_mods,
    "Territorial Station": _station,
    "Frequency Jam": _jam,
    "Rocket Strike Land": _rocket,
    "Rocket Strike Water": _rocket,
    "Rocket Strike Moon": _rocket,
    "Assassin Bomb": _assassin,
}


def react(r: Reading, legal: pb.Legal2210) -> pb.Action2210:
    """An invasion of someone's territory is declared: defend our own with Stealth MODs or a Stealth
    Station (free), a Death Trap on a big invading stack, a Cease Fire when the territory is likely lost
    and matters; pass otherwise (or for someone else's territory)."""
    w, obs = r.where, r.obs
    source, target = obs.pending_source, obs.pending_target
    if w.owners[target] != r.me:
        return act.end_phase()
    odds = w.capture_odds(source, target)
    for option in legal.plays:
        name = w.board.card_names[option.card]
        cost = w.board.card_costs[option.card]
        if cost > w.energy[r.me]:
            continue
        if name in ("Stealth MODs", "Stealth Station") and odds > 0.2:
            return act.play_card(option.card)
        if name in DEATH_TRAPS and w.units[source] >= TRAP_SOURCE:
            return act.play_card(option.card)
        if name == "Cease Fire" and odds > 0.5 and r.holding_value(target) >= 2:
            return act.play_card(option.card)
        if name == "Evacuation" and odds > 0.7 and w.commanders_at.get(target):
            return act.play_card(option.card, [max(option.targets, key=lambda t: w.units[t] - w.threat(t))])
    return act.end_phase()


def end_of_turn(r: Reading, legal: pb.Legal2210) -> pb.Action2210:
    """Redeployment (one more fortify move) when a move is worth it; Colony Influence at the end."""
    for option in legal.plays:
        name = r.where.board.card_names[option.card]
        if name == "Colony Influence" or (name == "Redeployment" and not r.no_reply and r.fortify_wish()):
            return act.play_card(option.card)
    return act.end_phase()


def exchange(r: Reading, legal: pb.Legal2210) -> pb.Action2210:
    """Armageddon's exchange: Nuclear cards are free; play the ones that hurt only opponents."""
    for option in legal.plays:
        name = r.where.board.card_names[option.card]
        if name.startswith("Scatter Bomb"):
            return act.play_card(option.card)
        chosen = _TARGETED[name](r, option, name) if name in _TARGETED else None
        if chosen is not None:
            return act.play_card(option.card, chosen)
    return act.end_phase()
