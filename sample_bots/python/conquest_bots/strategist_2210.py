"""The strategist's RISK 2210 A.D. play (``StrategistBot.decide_2210``).

The game is scored after year 5 (a point a territory, region bonus points, Colony Influence cards), so
the strategist builds for its last turn: it claims and stacks toward regions it can complete, invades
only at good exact odds (8-sided dice counted, ``conquest_sdk.odds``) and values captures that complete
or break a region, kill commanders, take stations or earn the 3-territory bonus; it keeps its borders
garrisoned against the threat next to them and fortifies from the interior toward it. It bids for turn
order only what it takes to choose first (remembering the bids it has seen, never more than half its
energy) and takes the last marker, and most of all in year 5, when nobody can answer its last turn:
then it invades at any fair chance and spreads out. It hires the commanders its plans need (Land for
8-sided dice, Naval for water, Space with a station, the Diplomat back for its cards), builds Space
Stations on its big stacks, buys Command cards with the energy left and plays them through
``conquest_bots.cards_2210``; when it chooses its losses it loses MODs before commanders.

Run it as ``python -m conquest_bots.strategist_2210 --address HOST:PORT`` (the strategist, joining the
``2210-4`` queue unless ``--queue`` names others; the flags of ``conquest_sdk.run``).
"""

from __future__ import annotations

from collections.abc import Sequence

from conquest.v1 import r2210_pb2 as pb
from conquest_bots import cards_2210
from conquest_sdk import Game, Turn2210
from conquest_sdk import actions_2210 as act
from conquest_sdk.r2210 import DIPLOMAT, KIND_WATER, LAND, NAVAL, NUCLEAR, SPACE, Position2210

P = pb.Phase2210
ODDS = 0.6
"""Invade when the chance of taking the target is at least this..."""
LAST_ODDS = 0.3
"""... and in a turn nobody can answer (the last of year 5), at least this."""
COMMANDER_KEEP = {LAND: 3.0, NAVAL: 3.0, SPACE: 2.0, DIPLOMAT: 2.5, NUCLEAR: 1.5}
"""What keeping each commander is worth to us, before the cards we hold for it."""


def decide(game: Game, turn: Turn2210) -> pb.Action2210:
    r = Reading(game, turn)
    legal, phase = turn.legal, turn.phase
    r.remember_bids()
    if phase == P.PHASE2210_SETUP_CLAIM:
        return act.claim(max(legal.territories, key=r.claim_value))
    if phase in (P.PHASE2210_SETUP_PLACE, P.PHASE2210_DEPLOY):
        return r.deploy()
    if phase == P.PHASE2210_SETUP_COMMANDERS:
        stack = r.stage(legal.territories)
        return act.place_commanders(stack, r.safest(legal.territories), stack)
    if phase == P.PHASE2210_BID:
        return act.bid(r.bid())
    if phase == P.PHASE2210_CHOOSE_MARKER:
        return act.choose_marker(max(legal.markers))  # last: the last word, in year 5 on the score
    if phase == P.PHASE2210_BUY:
        return r.buy()
    if phase == P.PHASE2210_BONUS_CARD:
        return act.take_card(cards_2210.bonus_deck(r, legal))
    if phase == P.PHASE2210_INVADE:
        return r.invade()
    if phase == P.PHASE2210_ROLL:
        r.notes["rolled"] = (r.year, turn.observation.pending_target)
        return act.roll(legal.dice_max, legal.d8)
    if phase == P.PHASE2210_OCCUPY:
        return r.occupy()
    if phase == P.PHASE2210_FORTIFY:
        return r.fortify()
    if phase == P.PHASE2210_REACT:
        return cards_2210.react(r, legal)
    if phase in (P.PHASE2210_TURN_END, P.PHASE2210_GAME_END):
        return cards_2210.end_of_turn(r, legal)
    if phase == P.PHASE2210_EXCHANGE:
        return cards_2210.exchange(r, legal)
    if phase == P.PHASE2210_LOSSES:
        return r.losses()
    if phase == P.PHASE2210_REDUCE:
        return r.reduce()
    return turn.default()  # DEFEND with every die; DECOYS (we play no Decoys Revealed): stop


class Reading:
    """One decision's board from our side: what each territory is worth, who threatens it, our plans."""

    def __init__(self, game: Game, turn: Turn2210) -> None:
        assert game.board_2210 is not None, "a RISK 2210 A.D. decision in a classic game"
        self.legal, self.obs, self.notes = turn.legal, turn.observation, game.notes
        self.where = w = Position2210(game.board_2210, turn.observation)
        self.me = game.seat
        self.players = len(game.players)
        self.year, self.years = self.obs.year, w.board.rules.years
        order = [s for s in self.obs.order if s < len(w.commanders) and s in w.owners]
        self.after_us = order[order.index(self.me) + 1 :] if self.me in order else order
        self.no_reply = self.year == self.years and not self.after_us
        """Our turn in the last year with nobody after us: what we hold now is the score."""

    # ------------------------------------------------------------ reading the board

    def enemy(self, t: int) -> bool:
        """Held by someone else (a seat or the neutral army), not devastated."""
        return self.where.owners[t] not in (self.me, -1)

    def open_to_us(self, source: int, t: int) -> bool:
        """Whether ``t`` is not ours, not devastated, and our commanders let us invade it from ``source``."""
        w = self.where
        return w.owners[t] != self.me and t not in w.devastated and w.can_invade(self.me, source, t)

    def region_missing(self, region: int) -> int:
        w = self.where
        return sum(w.owners[m] != self.me for m in w.board.regions[region] if m not in w.devastated)

    def captures(self) -> int:
        return int(self.notes.get(f"captures {self.year}", 0))

    def target_value(self, t: int) -> float:
        """What taking ``t`` is worth: a point, a region completed or broken, commanders killed, a
        station taken, a step to the 3-territory bonus."""
        w, b = self.where, self.where.board
        owner, region = w.owners[t], b.region_of[t]
        value = 1.0
        missing = self.region_missing(region)
        if missing == 1:
            value += b.region_points[region] + (0 if self.no_reply else b.region_mods[region] / 2)
        else:
            value += b.region_points[region] / (2 * missing)
        if 0 <= owner < self.players and owner != self.me:
            if w.holds_region(region, owner):
                value += b.region_points[region] + b.region_mods[region] / 2
            value += 0.8 * len(w.commanders_at.get(t, ()))
            value += 1.5 * (w.stations[t] >= 0)
            if w.units[t] and self.captures() < 3:
                value += 0.6
        return value

    def holding_value(self, t: int) -> float:
        """What keeping our ``t`` is worth: a point, a region we hold, our commanders and station there."""
        w, b = self.where, self.where.board
        region = b.region_of[t]
        value = 1.0 + 2.0 * (w.stations[t] == self.me) + 1.5 * len(w.commanders_at.get(t, ()))
        if w.holds_region(region):
            value += b.region_points[region] + b.region_mods[region] / 2
        return value

    def reinforce_value(self, t: int) -> float:
        """How much a MOD more on our ``t`` helps: the threat against it, or the attacks it leads."""
        w = self.where
        short = w.threat(t) - w.units[t] + 2
        return max(0, short) * self.holding_value(t) + self.attack_gain(t) + 0.05 * w.units[t]

    def attack_gain(self, t: int) -> float:
        """The worth of the best invasions from our ``t``, by how far its units outnumber the targets."""
        w = self.where
        gains = sorted(
            (
                self.target_value(n) * (w.units[t] + 3) / (w.units[t] + 3 + 1.2 * w.units[n])
                for n in w.board.neighbours[t]
                if self.open_to_us(t, n) or self.enemy(n)
            ),
            reverse=True,
        )
        return sum(gains[:3])

    def cards_held(self, seat: int) -> int:
        return sum(self.obs.card_counts[seat * 5 : seat * 5 + 5])

    def strength(self, seat: int) -> float:
        w = self.where
        return sum(1 + w.units[t] / 3 for t, o in enumerate(w.owners) if o == seat)

    def spare_energy(self) -> int:
        """Energy we may spend on cards now: all of it in year 5, else all but a bid's worth in year 4."""
        energy = self.where.energy[self.me]
        return energy - (2 if self.year == self.years - 1 else 0)

    # ------------------------------------------------------------ setup and deploying

    def claim_value(self, t: int) -> float:
        """Claims cluster in a region we can complete: few rivals there, small, next to our own."""
        w, b = self.where, self.where.board
        region = b.region_of[t]
        members = [m for m in b.regions[region] if m not in w.devastated]
        ours = sum(w.owners[m] == self.me for m in members)
        theirs = sum(w.owners[m] not in (self.me, -1) for m in members)
        near = sum(w.owners[n] == self.me for n in b.neighbours[t])
        return (ours - theirs + 1) / len(members) * (b.region_points[region] + 2) + 0.3 * near

    def stage(self, territories: Sequence[int] = ()) -> int:
        """Of our territories, the one to build up: the best invasions from it, then its units."""
        options = list(territories) if territories else self.where.mine
        return max(options, key=self.attack_gain)

    def safest(self, territories: Sequence[int]) -> int:
        """The territory least threatened for its units (our Diplomat's home)."""
        w = self.where
        return max(territories, key=lambda t: w.units[t] - 2 * w.threat(t) - 3 * w.is_border(t))

    def deploy(self) -> pb.Action2210:
        """A border short of what it needs against its threat first (not in a turn nobody answers),
        then everything on the stack with the best invasions."""
        legal, w = self.legal, self.where
        if self.year and not self.no_reply:
            worst = max(legal.territories, key=lambda t: (w.threat(t) - w.units[t]) * self.holding_value(t))
            short = w.threat(worst) - w.units[worst] + 2
            if short > 0 and self.holding_value(worst) >= 2:
                return act.place(worst, min(short, legal.place_max))
        return act.place(self.stage(legal.territories), legal.place_max)

    # ------------------------------------------------------------ bids and buying

    def remember_bids(self) -> None:
        """The highest bid another seat has made, from the bids revealed this year (-1: not revealed)."""
        others = [b for s, b in enumerate(self.obs.bids) if s != self.me]
        if others and max(others) > int(self.notes.get("top_bid", 0)):
            self.notes["top_bid"] = max(others)

    def bid(self) -> int:
        """Year 5: enough to outbid every bid seen so far (so we choose the last marker), at most half our
        energy. Before: nothing, while nobody has bid (the last marker is left to us)."""
        energy = self.where.energy[self.me]
        top = int(self.notes.get("top_bid", 0))
        if self.year == self.years:
            return min(energy // 2, top + 1)
        return min(energy // 4, top + 1) if top else 0

    def buy(self) -> pb.Action2210:
        """Hire the commanders we need, build a station on a big stack, then buy cards with what is left."""
        legal, w = self.legal, self.where
        energy = w.energy[self.me]
        keep = 1 if self.year < self.years else 0
        for commander in self.commanders_wanted():
            if commander in legal.hires and energy - 3 >= keep:
                home = (
                    self.safest(legal.territories) if commander == DIPLOMAT else self.stage(legal.territories)
                )
                return act.hire(commander, home)
        if legal.stations and energy - 5 >= keep + 1 and self.year <= self.years - 2:
            big = max(legal.stations, key=lambda t: w.units[t] + w.threat(t))
            if w.units[big] >= 6:
                return act.build_station(big)
        spend = min(legal.buy_max, energy - keep)
        if spend > 0:
            counts = cards_2210.buy_counts(self, legal, spend)
            if sum(counts):
                return act.buy_cards(counts)
        return act.end_phase()

    def commanders_wanted(self) -> list[int]:
        w, b = self.where, self.where.board
        wanted = [LAND]
        if any(b.kind[n] == KIND_WATER for t in w.mine for n in b.neighbours[t]):
            wanted.append(NAVAL)
        if self.year < self.years or self.cards_held(self.me):
            wanted.append(DIPLOMAT)
        if w.launch_pads() and self.year >= 2:
            wanted.append(SPACE)
        if w.energy[self.me] >= 9:
            wanted.append(NUCLEAR)
        return [c for c in wanted if not w.in_play(c)]

    # ------------------------------------------------------------ invading

    def invade(self) -> pb.Action2210:
        legal, w = self.legal, self.where
        if legal.plays:
            card = cards_2210.before_invading(self, legal)
            if card is not None:
                return card
        best, best_score = -1, 0.0
        for i, (s, t) in enumerate(zip(legal.invasion_sources, legal.invasion_targets, strict=True)):
            odds = w.capture_odds(s, t)
            if odds < (LAST_ODDS if self.no_reply else ODDS):
                continue
            if not self.no_reply and w.units[t] == 0 and w.units[s] - 2 < w.threat(s) / 2:
                continue  # an empty territory is not worth thinning a threatened stack
            score = odds * self.target_value(t) + w.units[s] / 100
            if score > best_score:
                best, best_score = i, score
        if best < 0:
            return act.end_phase()
        return act.declare(legal.invasion_sources[best], legal.invasion_targets[best])

    def occupy(self) -> pb.Action2210:
        """Split the units between the source and the territory taken by the threats and the invasions
        each faces; the commanders stay unless they rolled 8-sided dice (or follow the bigger part)."""
        legal, w, obs = self.legal, self.where, self.obs
        source, target = obs.pending_source, obs.pending_target
        if self.notes.get("rolled") == (self.year, target):
            self.notes[f"captures {self.year}"] = self.captures() + 1
        ahead = w.threat(target) + 2 * sum(self.open_to_us(target, n) for n in w.board.neighbours[target])
        behind = w.threat(source) + 2 * sum(
            self.open_to_us(source, n) for n in w.board.neighbours[source] if n != target
        )
        movable = legal.occupy_mods + len(legal.occupy_commanders) - 1
        share = round(movable * ahead / (ahead + behind)) if ahead + behind else 0
        follow = list(legal.occupy_commanders) if 2 * share > movable else []
        return act.move_in(legal, share - len(follow), follow)

    # ------------------------------------------------------------ fortifying and losses

    def fortify_wish(self) -> bool:
        """Whether some interior stack could still move up (Redeployment is worth playing)."""
        w = self.where
        return any(w.units[t] >= 3 and not w.is_border(t) for t in w.mine)

    def fortify(self) -> pb.Action2210:
        """The biggest interior stack to the border that most needs it (nothing in a turn nobody answers)."""
        w = self.where
        if self.no_reply:
            return act.end_phase()
        best, best_score = None, 0.0
        for option in self.legal.fortify:
            if w.is_border(option.source) and w.threat(option.source) > 0:
                continue  # never strip a threatened front
            for t in option.targets:
                if not w.is_border(t):
                    continue
                need = w.threat(t) - w.units[t] + 1 + self.attack_gain(t)
                score = (option.mods + len(option.commanders)) * max(need, 0.1) * self.holding_value(t)
                if score > best_score:
                    best, best_score = (option, t), score
        if best is None:
            return act.end_phase()
        option, target = best
        movers = [c for c in option.commanders if c != DIPLOMAT]  # the Diplomat stays out of harm's way
        return act.move(option, target, option.mods, movers)

    def commander_keep(self, commander: int) -> float:
        return COMMANDER_KEEP[commander] + 2 * self.obs.card_counts[self.me * 5 + commander]

    def losses(self) -> pb.Action2210:
        """MODs first; when commanders must go, the ones worth least to us."""
        legal = self.legal
        mods = min(legal.lose, legal.occupy_mods)
        ranked = sorted(legal.occupy_commanders, key=self.commander_keep)
        return act.lose(mods, ranked[: legal.lose - mods])

    def reduce(self) -> pb.Action2210:
        """MOD Reduction: MODs where they are least needed, never a territory's last unit if avoidable."""
        legal, w = self.legal, self.where
        left = dict(zip(legal.territories, legal.mods_at, strict=True))
        units = {t: w.units[t] for t in legal.territories}
        chosen: list[int] = []
        for _ in range(legal.lose):
            t = max(
                (t for t in left if left[t] > 0),
                key=lambda t: (units[t] > 1, units[t] - w.threat(t) - 2 * self.holding_value(t)),
            )
            left[t] -= 1
            units[t] -= 1
            chosen.append(t)
        return act.remove(chosen)


if __name__ == "__main__":
    # Imported here, not above: the strategist's module imports this one for its decide_2210.
    from conquest_bots.strategist import StrategistBot
    from conquest_sdk import run

    raise SystemExit(run(StrategistBot(), default_queues=["2210-4"]))
