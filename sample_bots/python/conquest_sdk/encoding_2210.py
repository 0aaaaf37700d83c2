"""The fixed-size encoding of RISK 2210 A.D. decisions: one observation vector and one flat action mask.

Built from the wire's own messages (``Start2210``'s rules and map, each request's ``Observation2210`` and
``Legal2210``), so ``server.train`` (which turns the engine's state into those messages with
``server.play.convert_2210``) and ``conquest_sdk.policy`` (which reads them off a DecisionRequest) call the
same functions on the same messages and a policy trained offline sees on the ladder exactly what it was
trained on. Needs numpy. ``docs/training.md`` ("RISK 2210 A.D.") gives the layouts.

Where a legal choice is too rich for one index, the index names a documented bucket of it (army counts:
the least, the middle, the most; a bid: a fraction of the energy held), so every masked-in index is one
legal action and every kind of legal decision has indices in the mask.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence
from itertools import product

import numpy as np
import numpy.typing as npt

from conquest.v1 import game_pb2
from conquest.v1 import r2210_pb2 as pb
from conquest_sdk.encoding import BUCKETS, _lay_out, bucket_count, buckets

PHASES_2210 = 22
"""Wire Phase2210 numbers 0..21 (PHASE2210_UNSPECIFIED .. PHASE2210_DECOYS)."""
COMMANDERS = 5
"""Commander and Command deck indices 0 Land, 1 Diplomat, 2 Naval, 3 Space, 4 Nuclear."""
SUBSETS = 1 << COMMANDERS
"""Sets of commanders as bit masks (bit c: commander c)."""
MARKERS = 5
BID_BUCKETS = 8
"""Bid bucket b bids ``b * bid_max // 7`` energy: nothing, then sevenths of what the seat holds."""
DICE = 3
DEFEND_DICE = 2
MOST_BOUGHT = 4
BUY_COUNTS: tuple[tuple[int, ...], ...] = tuple(
    counts for counts in product(range(MOST_BOUGHT + 1), repeat=COMMANDERS) if 1 <= sum(counts) <= MOST_BOUGHT
)
"""Every BuyCards: cards from each of the five decks, 1 to 4 in all (125 of them), in this order."""
COMMANDER_SETS = SUBSETS - 1
"""The sets of commanders that move (fortify, decoys): 1..31, index ``set - 1``."""


def _bits(subset: int) -> tuple[int, ...]:
    return tuple(c for c in range(COMMANDERS) if subset >> c & 1)


def _mask_of(commanders: Sequence[int]) -> int:
    out = 0
    for c in commanders:
        out |= 1 << c
    return out


class Layout2210:
    """The fixed sizes and offsets of one 2210 game's encoding, from its GameStarted's ``r2210`` rules and map
    and its seat count.

    Action indices, in blocks (T territories, K card kinds, P invasion pairs, F = T x (T - 1) ordered pairs,
    R = ``setup_ranks``): claim T | place T x 3 buckets | place_commanders R x R x R (the Land Commander's,
    the Diplomat's and the Space Station's territory, each by its rank in the legal territories) | bid 8
    buckets | choose_marker 5 | hire 5 commanders x T | build_station T | buy_cards 125 count vectors |
    take_card 5 | declare P | roll 3 dice x 32 d8 sets | defend 2 | lose 32 commander sets | remove T (first
    territory) | occupy 32 commander sets x 3 buckets | fortify F x 3 buckets (MODs alone) |
    fortify_commanders 31 commander sets x T targets x 3 buckets (the set's territory is the source; also
    the Decoys Revealed moves) | play_card K x T target slots | end_phase 1.
    """

    def __init__(self, rules: pb.Rules2210Info, board: pb.Map2210, seats: int) -> None:
        t = len(board.territories)
        self.territories = t
        self.seats = seats
        kinds: dict[tuple[int, str], int] = {}
        self.card_kind = tuple(kinds.setdefault((c.deck, c.name), len(kinds)) for c in rules.cards)
        """Each card id's kind (cards of one deck and name play alike), numbered in order of first id."""
        self.kinds = len(kinds)
        land, lunar = 0, 2
        is_land = [tt.kind == land for tt in board.territories]
        pairs = {(a, b) for a in range(t) for b in board.territories[a].neighbours}
        pairs |= {(a, b) for a in range(t) if is_land[a] for b in board.landing_sites}
        pairs |= {
            (a, b) for a in range(t) if board.territories[a].kind == lunar for b in range(t) if is_land[b]
        }
        self.invasion_pairs = tuple(sorted(pairs))
        """Every (source, target) an invasion may ever join: neighbours, a station's land to a landing site,
        and the Moon to a land territory (Invade Earth)."""
        self._invasion = {pair: i for i, pair in enumerate(self.invasion_pairs)}
        self.fortify_pairs = tuple((a, b) for a in range(t) for b in range(t) if a != b)
        lands = sum(1 for tt in board.territories if tt.kind == land)
        self.setup_ranks = -(-lands // seats)
        """The most territories a seat can hold when it places its commanders: the seats claim the land
        territories in turn, so none claims more than ``ceil(lands / seats)``."""
        sizes = {
            "claim": t,
            "place": t * BUCKETS,
            "place_commanders": self.setup_ranks**3,
            "bid": BID_BUCKETS,
            "choose_marker": MARKERS,
            "hire": COMMANDERS * t,
            "build_station": t,
            "buy_cards": len(BUY_COUNTS),
            "take_card": COMMANDERS,
            "declare": len(self.invasion_pairs),
            "roll": DICE * SUBSETS,
            "defend": DEFEND_DICE,
            "lose": SUBSETS,
            "remove": t,
            "occupy": SUBSETS * BUCKETS,
            "fortify": len(self.fortify_pairs) * BUCKETS,
            "fortify_commanders": COMMANDER_SETS * t * BUCKETS,
            "play_card": self.kinds * t,
            "end_phase": 1,
        }
        self.offsets, self.actions = _lay_out(sizes)
        self._blocks = tuple(self.offsets.items())
        self._starts = [start for _, start in self._blocks]
        s = seats
        parts = {
            "owners": t * (s + 1),
            "mods": t,
            "devastated": t,
            "stations": t * s,
            "commanders": s * COMMANDERS * t,
            "energy": s,
            "bids": s,
            "markers": s,
            "asked": s,
            "turn_seat": s,
            "phase": PHASES_2210,
            "hand": self.kinds,
            "card_counts": s * COMMANDERS,
            "deck_sizes": 3 + COMMANDERS,
            "scalars": 2,
            "setup_left": s,
            "pending_source": t,
            "pending_target": t,
        }
        self.observation_offsets, self.observation_size = _lay_out(parts)

    # ------------------------------------------------------------------ observation

    def observation(self, obs: pb.Observation2210) -> npt.NDArray[np.float32]:
        """The observation vector of ``obs`` (float32, ``observation_size`` long, every entry >= 0).

        Seats are counted from the viewer (``obs.seat``): column 0 is the viewer, 1 the next seat, ...; the
        owners' column ``seats`` is the two-player neutral army."""
        s, t, seat, off = self.seats, self.territories, obs.seat, self.observation_offsets
        buf = np.zeros(self.observation_size, np.float32)

        def rel(other: int) -> int:
            return (other - seat) % s

        at = off["owners"]
        for territory, owner in enumerate(obs.owners):
            if owner >= 0:
                buf[at + territory * (s + 1) + (s if owner >= s else rel(owner))] = 1.0
        buf[off["mods"] : off["mods"] + t] = obs.mods
        for territory in obs.devastated:
            buf[off["devastated"] + territory] = 1.0
        for territory, owner in enumerate(obs.stations):
            if owner >= 0:
                buf[off["stations"] + territory * s + rel(owner)] = 1.0
        for k, territory in enumerate(obs.commanders):
            if territory >= 0:
                owner, commander = divmod(k, COMMANDERS)
                buf[off["commanders"] + (rel(owner) * COMMANDERS + commander) * t + territory] = 1.0
        for other in range(s):
            k = rel(other)
            buf[off["energy"] + k] = obs.energy[other]
            buf[off["bids"] + k] = obs.bids[other] + 1 if other < len(obs.bids) else 0
            buf[off["setup_left"] + k] = obs.setup_left[other] if other < len(obs.setup_left) else 0
            for d in range(COMMANDERS):
                buf[off["card_counts"] + k * COMMANDERS + d] = obs.card_counts[other * COMMANDERS + d]
        for marker, other in enumerate(obs.order):
            buf[off["markers"] + rel(other)] = marker + 1
        for other in obs.asked:
            buf[off["asked"] + rel(other)] = 1.0
        if obs.turn_seat >= 0:
            buf[off["turn_seat"] + rel(obs.turn_seat)] = 1.0
        buf[off["phase"] + obs.phase] = 1.0
        for card in obs.hand:
            buf[off["hand"] + self.card_kind[card]] += 1.0
        at = off["deck_sizes"]
        buf[at : at + 3] = obs.territory_deck_sizes
        buf[at + 3 : at + 3 + COMMANDERS] = obs.command_deck_sizes
        buf[off["scalars"]] = obs.year
        buf[off["scalars"] + 1] = obs.recruits
        if obs.pending_source >= 0:
            buf[off["pending_source"] + obs.pending_source] = 1.0
            buf[off["pending_target"] + obs.pending_target] = 1.0
        return buf

    # ------------------------------------------------------------------ actions

    def mask(self, legal: pb.Legal2210) -> npt.NDArray[np.int8]:
        """1 for every action index that is one legal action now (int8, ``actions`` long). Buckets that
        would repeat a smaller bucket's action are left out."""
        out = np.zeros(self.actions, np.int8)
        for index in self._indices(legal):
            out[index] = 1
        return out

    def _indices(self, legal: pb.Legal2210) -> list[int]:
        off, t, phase = self.offsets, self.territories, legal.phase
        out: list[int] = []
        if legal.can_end:
            out.append(off["end_phase"])
        if phase == pb.PHASE2210_SETUP_CLAIM:
            out += [off["claim"] + x for x in legal.territories]
        elif phase in (pb.PHASE2210_SETUP_PLACE, pb.PHASE2210_DEPLOY) and legal.place_max >= 1:
            kept = buckets(1, legal.place_max)
            out += [off["place"] + x * BUCKETS + b for x in legal.territories for b in kept]
        elif phase == pb.PHASE2210_SETUP_COMMANDERS:
            r = self.setup_ranks
            ranks = range(min(len(legal.territories), r))
            out += [
                off["place_commanders"] + (a * r + b) * r + c for a in ranks for b in ranks for c in ranks
            ]
        elif phase == pb.PHASE2210_BID and legal.bid_max >= 0:
            values = [b * legal.bid_max // (BID_BUCKETS - 1) for b in range(BID_BUCKETS)]
            out += [off["bid"] + b for b in range(BID_BUCKETS) if b == 0 or values[b] != values[b - 1]]
        elif phase == pb.PHASE2210_CHOOSE_MARKER:
            out += [off["choose_marker"] + m - 1 for m in legal.markers]
        elif phase == pb.PHASE2210_BUY:
            out += [off["hire"] + c * t + x for c in legal.hires for x in legal.territories]
            out += [off["build_station"] + x for x in legal.stations]
            if legal.buy_max:
                decks = legal.card_decks
                out += [
                    off["buy_cards"] + i
                    for i, counts in enumerate(BUY_COUNTS)
                    if sum(counts) <= legal.buy_max and all(n <= decks[d] for d, n in enumerate(counts))
                ]
        elif phase == pb.PHASE2210_BONUS_CARD:
            out += [off["take_card"] + d for d, n in enumerate(legal.card_decks) if n > 0]
        elif phase == pb.PHASE2210_INVADE:
            pairs = zip(legal.invasion_sources, legal.invasion_targets, strict=True)
            out += [off["declare"] + self._invasion[pair] for pair in pairs]
        elif phase == pb.PHASE2210_ROLL:
            d8 = _mask_of(legal.d8)
            out += [
                off["roll"] + (dice - 1) * SUBSETS + sub
                for dice in range(1, legal.dice_max + 1)
                for sub in range(SUBSETS)
                if sub & ~d8 == 0 and len(_bits(sub)) <= dice
            ]
        elif phase == pb.PHASE2210_DEFEND:
            out += [off["defend"] + d for d in range(min(legal.defend_max, DEFEND_DICE))]
        elif phase == pb.PHASE2210_LOSSES:
            there = _mask_of(legal.occupy_commanders)
            out += [
                off["lose"] + sub
                for sub in range(SUBSETS)
                if sub & ~there == 0 and 0 <= legal.lose - len(_bits(sub)) <= legal.occupy_mods
            ]
        elif phase == pb.PHASE2210_REDUCE and sum(legal.mods_at) >= legal.lose:
            seen: set[tuple[int, ...]] = set()
            for x, n in zip(legal.territories, legal.mods_at, strict=True):
                removal = tuple(sorted(_removal(legal, x)))
                if n and removal not in seen:  # a removal an earlier territory's bucket makes is left out
                    seen.add(removal)
                    out.append(off["remove"] + x)
        elif phase == pb.PHASE2210_OCCUPY:
            for sub in range(SUBSETS):
                span = _occupy_span(legal, sub)
                if span is not None:
                    out += [off["occupy"] + sub * BUCKETS + b for b in buckets(*span)]
        elif phase in (pb.PHASE2210_FORTIFY, pb.PHASE2210_DECOYS):
            for option in legal.fortify:
                for sub in range(SUBSETS):
                    span = _move_span(option, sub, phase == pb.PHASE2210_DECOYS)
                    if span is None:
                        continue
                    kept = buckets(*span)
                    for x in option.targets:
                        first = self._move_first(option.source, sub, x)
                        out += [first + b for b in kept]
        for play in legal.plays:
            first = off["play_card"] + self.card_kind[play.card] * t
            if not play.picks:
                out.append(first)
            elif play.picks < len(play.targets):  # cyclic runs of picks < targets: one set per start
                out += [first + x for x in play.targets]
            else:  # every target at once: one play
                out.append(first + play.targets[0])
        return out

    def decode(self, index: int, legal: pb.Legal2210) -> pb.Action2210:
        """The wire action ``index`` stands for under ``legal`` (which gives the counts, card ids and
        sources). The caller checks ``index`` against the mask first: this only reads the layout.

        Raises:
            ValueError: ``index`` is outside 0..actions-1, or names a choice ``legal`` does not offer.
        """
        kind, local = self._block(index)
        t = self.territories
        if kind == "claim":
            return pb.Action2210(claim=game_pb2.ClaimAction(territory=local))
        if kind == "place":
            x, b = divmod(local, BUCKETS)
            return pb.Action2210(
                place=pb.PlaceModsAction(territory=x, mods=bucket_count(1, legal.place_max, b))
            )
        if kind == "place_commanders":
            r, held = self.setup_ranks, legal.territories
            ranks = (local // (r * r), local // r % r, local % r)
            if max(ranks) >= len(held):
                raise ValueError(f"ranks {ranks} of the {len(held)} territories you may place commanders on")
            land, diplomat, station = (held[k] for k in ranks)
            return pb.Action2210(
                place_commanders=pb.PlaceCommandersAction(land=land, diplomat=diplomat, station=station)
            )
        if kind == "bid":
            return pb.Action2210(bid=pb.BidAction(energy=local * legal.bid_max // (BID_BUCKETS - 1)))
        if kind == "choose_marker":
            return pb.Action2210(choose_marker=pb.ChooseMarkerAction(marker=local + 1))
        if kind == "hire":
            c, x = divmod(local, t)
            return pb.Action2210(hire=pb.HireAction(commander=c, territory=x))
        if kind == "build_station":
            return pb.Action2210(build_station=pb.BuildStationAction(territory=local))
        if kind == "buy_cards":
            return pb.Action2210(buy_cards=pb.BuyCardsAction(counts=BUY_COUNTS[local]))
        if kind == "take_card":
            return pb.Action2210(take_card=pb.TakeCardAction(deck=local))
        if kind == "declare":
            source, target = self.invasion_pairs[local]
            return pb.Action2210(declare=pb.DeclareInvasionAction(source=source, target=target))
        if kind == "roll":
            dice, sub = divmod(local, SUBSETS)
            return pb.Action2210(roll=pb.RollAction(dice=dice + 1, d8=_bits(sub)))
        if kind == "defend":
            return pb.Action2210(defend=game_pb2.ChooseDefenceAction(dice=local + 1))
        if kind == "lose":
            chosen = _bits(local)
            return pb.Action2210(lose=pb.ChooseLossesAction(mods=legal.lose - len(chosen), commanders=chosen))
        if kind == "remove":
            return pb.Action2210(remove=pb.RemoveModsAction(territories=_removal(legal, local)))
        if kind == "occupy":
            sub, b = divmod(local, BUCKETS)
            span = _occupy_span(legal, sub) or (0, 0)
            move = pb.MoveUnitsAction(mods=bucket_count(*span, b), commanders=_bits(sub))
            return pb.Action2210(occupy=move)
        if kind in ("fortify", "fortify_commanders"):
            if kind == "fortify":
                pair, b = divmod(local, BUCKETS)
                (source, target), sub = self.fortify_pairs[pair], 0
                option = _option(legal, lambda o: o.source == source, f"no move from territory {source}")
            else:
                set_less_one, rest = divmod(local, t * BUCKETS)
                (target, b), sub = divmod(rest, BUCKETS), set_less_one + 1
                there = f"the commanders {list(_bits(sub))} on one territory"
                option = _option(legal, lambda o: sub & ~_mask_of(o.commanders) == 0, f"no move of {there}")
            span = _move_span(option, sub, legal.phase == pb.PHASE2210_DECOYS) or (0, 0)
            fortify = pb.FortifyUnitsAction(
                source=option.source, target=target, mods=bucket_count(*span, b), commanders=_bits(sub)
            )
            return pb.Action2210(fortify=fortify)
        if kind == "play_card":
            card_kind, slot = divmod(local, t)
            return pb.Action2210(play_card=self._play(legal, card_kind, slot))
        return pb.Action2210(end_phase=game_pb2.EndPhaseAction())

    def _play(self, legal: pb.Legal2210, card_kind: int, slot: int) -> pb.PlayCardAction:
        for play in legal.plays:
            if self.card_kind[play.card] == card_kind:
                if not play.picks:
                    return pb.PlayCardAction(card=play.card)
                aims = list(play.targets)
                if slot not in aims:
                    raise ValueError(f"card {play.card} may not be played on {slot}: targets {aims}")
                first = aims.index(slot)
                chosen = [aims[(first + k) % len(aims)] for k in range(play.picks)]
                return pb.PlayCardAction(card=play.card, targets=chosen)
        raise ValueError(f"no card of kind {card_kind} may be played now")

    def _move_first(self, source: int, sub: int, target: int) -> int:
        """The first index (bucket 0) of moving commanders ``sub`` (0: MODs alone) from source to target."""
        if sub:
            return self.offsets["fortify_commanders"] + ((sub - 1) * self.territories + target) * BUCKETS
        pair = source * (self.territories - 1) + (target if target < source else target - 1)
        return self.offsets["fortify"] + pair * BUCKETS

    def describe(self, index: int) -> str:
        """``index`` in words, without the decision's counts (for error messages)."""
        if not 0 <= index < self.actions:
            return f"action {index} (the action space is 0..{self.actions - 1})"
        kind, local = self._block(index)
        t, size = self.territories, ("least", "middle", "most")
        if kind == "place":
            return f"action {index} (place on territory {local // BUCKETS}, {size[local % BUCKETS]} MODs)"
        if kind == "place_commanders":
            r = self.setup_ranks
            ranks = (local // (r * r), local // r % r, local % r)
            return (
                "action {} (Land Commander, Diplomat, Space Station on territories ranked {}, {}, {})".format(
                    index, *ranks
                )
            )
        if kind == "hire":
            c, x = divmod(local, t)
            return f"action {index} (hire commander {c} on territory {x})"
        if kind == "declare":
            return "action {} (declare {}->{})".format(index, *self.invasion_pairs[local])
        if kind == "roll":
            dice, sub = divmod(local, SUBSETS)
            return f"action {index} (roll {dice + 1} dice, 8-sided for commanders {list(_bits(sub))})"
        if kind == "occupy":
            sub, b = divmod(local, BUCKETS)
            return f"action {index} (occupy with commanders {list(_bits(sub))}, {size[b]} MODs)"
        if kind == "fortify":
            pair, b = divmod(local, BUCKETS)
            return "action {} (fortify {}->{}, {} MODs)".format(index, *self.fortify_pairs[pair], size[b])
        if kind == "fortify_commanders":
            set_less_one, rest = divmod(local, t * BUCKETS)
            x, b = divmod(rest, BUCKETS)
            moved = list(_bits(set_less_one + 1))
            return f"action {index} (move commanders {moved} to territory {x} with the {size[b]} MODs)"
        named = {  # built whole for every kind (hence the modulo below); only its own entry is read
            "bid": f"bid bucket {local}: {local}/7 of the energy held",
            "choose_marker": f"choose marker {local + 1}",
            "buy_cards": f"buy cards {list(BUY_COUNTS[local % len(BUY_COUNTS)])} by deck",
            "take_card": f"take a card from deck {local}",
            "defend": f"defend with {local + 1} dice",
            "lose": f"lose commanders {list(_bits(local))} and MODs",
            "remove": f"remove MODs from territory {local} first",
        }
        if kind in named:
            return f"action {index} ({named[kind]})"
        if kind == "play_card":
            card_kind, slot = divmod(local, t)
            return f"action {index} (play a card of kind {card_kind}, target slot {slot})"
        return f"action {index} ({kind} {local})"

    def _block(self, index: int) -> tuple[str, int]:
        if not 0 <= index < self.actions:
            raise ValueError(f"action {index} is outside the action space 0..{self.actions - 1}")
        kind, start = self._blocks[bisect.bisect_right(self._starts, index) - 1]
        return kind, index - start


def _option(
    legal: pb.Legal2210, fits: Callable[[pb.Fortify2210Option], bool], none: str
) -> pb.Fortify2210Option:
    for option in legal.fortify:
        if fits(option):
            return option
    raise ValueError(f"{none} is open")


def _span(
    mods: int, there: Sequence[int], least: int, must: Sequence[int], sub: int
) -> tuple[int, int] | None:
    """The MODs that may move with the commanders of set ``sub`` from a territory holding ``mods`` MODs and
    the commanders ``there``, when ``sub`` holds every commander of ``must``, at least ``least`` units move
    and one unit stays: (least, most), or None when none may."""
    if sub & ~_mask_of(there) or _mask_of(must) & ~sub:
        return None
    n = len(_bits(sub))
    low, high = max(0, least - n), min(mods, mods + len(there) - 1 - n)
    return (low, high) if low <= high else None


def _occupy_span(legal: pb.Legal2210, sub: int) -> tuple[int, int] | None:
    """The MODs that may move in with commanders ``sub`` after a conquest."""
    return _span(legal.occupy_mods, legal.occupy_commanders, legal.occupy_min, legal.must_move, sub)


def _move_span(option: pb.Fortify2210Option, sub: int, decoys: bool) -> tuple[int, int] | None:
    """The MODs that may move with commanders ``sub`` (0: none) from ``option``'s territory: a fortify
    moves at least one unit and leaves one; Decoys Revealed moves a set of commanders alone."""
    if decoys:
        return (0, 0) if sub and not sub & ~_mask_of(option.commanders) else None
    return _span(option.mods, option.commanders, 1, (), sub)


def _removal(legal: pb.Legal2210, first: int) -> list[int]:
    """MOD Reduction bucket ``first``: as many MODs as may go from ``first``, the rest in listed order."""
    held = dict(zip(legal.territories, legal.mods_at, strict=True))
    order = [first, *(x for x in legal.territories if x != first)]
    out: list[int] = []
    for x in order:
        out += [x] * min(held.get(x, 0), legal.lose - len(out))
    return out
