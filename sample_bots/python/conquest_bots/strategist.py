"""A strategist: picks a continent to hold, reinforces the borders that need it, attacks only at good
odds (exact battle odds), times its card trades, moves in and fortifies toward the threat.

With a goal it pursues it: the continents or the player its secret mission names, the opposing
headquarters once revealed; it picks a defensible headquarters and keeps it garrisoned. Commanding the
Allied Army it stacks it against the opponent and attacks at good odds. It always defends with the most
dice: two dice trade better than one against any attack (the defender wins ties).

RISK 2210 A.D. is played with intent by ``conquest_bots.strategist_2210`` (bids, commanders, stations, Command
cards, region bonuses, the last turn of year 5)."""

from __future__ import annotations

from conquest.v1 import game_pb2, r2210_pb2
from conquest_bots import strategist_2210
from conquest_sdk import AttackOption, Bot, Game, Phase, Turn, Turn2210, actions, run
from conquest_sdk.odds import capture_odds

_ALIVE = game_pb2.PlayerStatus.PLAYER_STATUS_ALIVE


class StrategistBot(Bot):
    name = "strategist"

    def decide(self, game: Game, turn: Turn) -> game_pb2.Action:
        view = View(game, turn)
        phase = turn.phase
        if phase == Phase.PHASE_SETUP_CLAIM:
            return actions.claim(max(turn.legal.claim, key=view.claim_value))
        if phase == Phase.PHASE_SETUP_PLACE:
            return view.setup_place()
        if phase == Phase.PHASE_REINFORCE:
            return view.reinforce()
        if phase == Phase.PHASE_ATTACK:
            return view.attack()
        if phase == Phase.PHASE_OCCUPY:
            return view.occupy()
        if phase == Phase.PHASE_FORTIFY:
            return view.fortify()
        if phase == Phase.PHASE_CHOOSE_HEADQUARTERS:
            return actions.choose_headquarters(max(turn.legal.headquarters, key=view.headquarters_value))
        if phase == Phase.PHASE_ALLIED_REINFORCE:
            return view.allied_reinforce()
        if phase == Phase.PHASE_ALLIED_ATTACK:
            return view.allied_attack()
        return turn.legal.default()  # defend with the most dice

    def decide_2210(self, game: Game, turn: Turn2210) -> r2210_pb2.Action2210:
        return strategist_2210.decide(game, turn)


class View:
    """The board from this seat's side for one decision."""

    def __init__(self, game: Game, turn: Turn) -> None:
        self.game, self.turn, self.legal = game, turn, turn.legal
        self.me, self.owners, self.armies = game.seat, turn.owners, turn.armies
        self.mine = [t for t, o in enumerate(self.owners) if o == self.me]
        # Owners that never attack us: the neutral army does not; the Allied Army does.
        self.harmless = (self.me, -1) if game.rules.allied_army else (self.me, game.neutral, -1)
        hq = turn.headquarters
        self.headquarters = hq[self.me] if hq else -1
        """Our headquarters territory (Capital Risk), or -1."""
        self.mission = game.missions[turn.mission] if turn.mission >= 0 else None
        self.goal = self._goal_territories()
        """Territories our goal wants: a mission's continents or player, revealed opposing headquarters."""
        self.focus = self._focus_continent()

    # ------------------------------------------------------------ board reading

    def enemy(self, t: int) -> bool:
        return self.owners[t] != self.me

    def threat(self, t: int) -> int:
        """Armies that could attack ``t`` next turn (a neutral army never attacks)."""
        g = self.game
        return sum(
            self.armies[n] - 1
            for n in g.neighbours[t]
            if self.owners[n] not in self.harmless and self.armies[n] > 1
        )

    def is_border(self, t: int) -> bool:
        return any(self.enemy(n) for n in self.game.neighbours[t])

    def continent_value(self, c: int) -> float:
        """How much holding continent ``c`` is worth to us now: its bonus per territory still to take,
        discounted by the enemy armies in it."""
        g = self.game
        members = g.continents[c]
        ours = sum(self.owners[t] == self.me for t in members)
        enemy_armies = sum(self.armies[t] for t in members if self.enemy(t))
        return (g.continent_bonus[c] + 1) * (1 + ours) / len(members) / (1 + enemy_armies / 10)

    def _focus_continent(self) -> int:
        wanted = list(self.mission.continents) if self.mission else []
        open_ = [c for c in wanted if not self.owns_continent(c)]
        return max(open_ or range(len(self.game.continents)), key=self.continent_value)

    def _goal_territories(self) -> set[int]:
        owners, mission = self.owners, self.mission
        targets = {t for s, t in enumerate(self.turn.headquarters) if s != self.me and t >= 0}
        if mission is not None:
            for c in mission.continents:
                targets |= {t for t in self.game.continents[c] if owners[t] != self.me}
            victim = mission.destroy
            if 0 <= victim != self.me and self.turn.observation.statuses[victim] == _ALIVE:
                targets |= {t for t, o in enumerate(owners) if o == victim}
        return targets

    def owns_continent(self, c: int) -> bool:
        return all(self.owners[t] == self.me for t in self.game.continents[c])

    def target_value(self, t: int) -> float:
        """What capturing ``t`` is worth: the focus continent, breaking a held continent, completing ours,
        and weakening an enemy close to elimination."""
        g, owner = self.game, self.owners[t]
        c = g.continent_of[t]
        value = 1.0 + 2.0 * (c == self.focus) + 3.0 * (t in self.goal)
        members = g.continents[c]
        if all(self.owners[m] == owner for m in members):
            value += 2.0 + g.continent_bonus[c] / 2  # breaks a bonus
        missing = sum(self.owners[m] != self.me for m in members)
        if missing == 1:
            value += 1.0 + g.continent_bonus[c]  # completes ours
        if owner != g.neutral:
            held = self.owners.count(owner)
            if held <= 4:
                value += 4.0 - held  # elimination brings cards
        else:
            value -= 0.5  # neutral armies never strike back; enemies do
        return value

    # ------------------------------------------------------------ setup

    def claim_value(self, t: int) -> float:
        g = self.game
        c = g.continent_of[t]
        members = g.continents[c]
        ours = sum(self.owners[m] == self.me for m in members)
        theirs = sum(self.owners[m] not in (self.me, -1) for m in members)
        near = sum(self.owners[n] == self.me for n in g.neighbours[t])
        return (ours - theirs + 1) / len(members) * (g.continent_bonus[c] + 2) + 0.3 * near

    def setup_place(self) -> game_pb2.Action:
        legal = self.legal
        if legal.place_neutral:  # neutral army: block the opponent
            return actions.place(max(legal.place_territories, key=self.neutral_block_value), 1)
        return actions.place(self.stage(), legal.place_max)

    def neutral_block_value(self, t: int) -> float:
        g = self.game
        theirs = sum(self.owners[n] not in (self.me, g.neutral) for n in g.neighbours[t])
        ours = sum(self.owners[n] == self.me for n in g.neighbours[t])
        return theirs - 0.5 * ours + 0.01 * self.armies[t]

    # ------------------------------------------------------------ reinforce

    def reinforce(self) -> game_pb2.Action:
        legal, obs = self.legal, self.turn.observation
        if legal.trades and (legal.must_trade or self.trade_now()):
            best = max(legal.trades, key=lambda s: bool(s.bonus_territories))
            bonus = max(best.bonus_territories, key=self.threat, default=None)
            return actions.trade(best.cards, bonus)
        need = self.defence_need()
        if need:
            t, armies = need
            return actions.place(t, min(armies, obs.reinforcements))
        return actions.place(self.stage(), obs.reinforcements)

    def trade_now(self) -> bool:
        """Trade at once when a set carries the +2 bonus, when the hand is nearly forced anyway, or when
        the armies are worth more now than the value it would keep."""
        hand = len(self.turn.observation.hand)
        bonus = any(s.bonus_territories for s in self.legal.trades)
        return bonus or hand >= 4 or self.turn.observation.next_trade_value >= 8

    def defence_need(self) -> tuple[int, int] | None:
        """The border of a continent we hold (or our headquarters) that is most outnumbered, and the
        armies it lacks."""
        worst, lack = -1, 0
        hq = self.headquarters
        if hq >= 0 and self.owners[hq] == self.me:
            worst, lack = hq, max(0, self.threat(hq) - self.armies[hq] + 4)
            worst = worst if lack else -1
        for c in range(len(self.game.continents)):
            if not self.owns_continent(c):
                continue
            for t in self.game.continents[c]:
                short = self.threat(t) - self.armies[t] + 2
                if short > lack:
                    worst, lack = t, short
        return (worst, lack) if worst >= 0 else None

    def stage(self) -> int:
        """Our territory to build up: the one with the best attack into a valuable target."""
        best, best_score = -1, float("-inf")
        for t in self.mine:
            for n in self.game.neighbours[t]:
                if self.enemy(n):
                    score = 3 * self.target_value(n) + 0.2 * (self.armies[t] - self.armies[n])
                    if score > best_score:
                        best, best_score = t, score
        return best if best >= 0 else self.legal.place_territories[0]

    # ------------------------------------------------------------ attack and move in

    def attack(self) -> game_pb2.Action:
        notes = self.game.notes
        if notes.get("turn") != self.turn.observation.turn:
            notes["turn"], notes["held_at_start"] = self.turn.observation.turn, len(self.mine)
        captured = len(self.mine) > notes["held_at_start"]
        best, best_score = None, 0.0
        for option in self.legal.attacks:
            odds = capture_odds(option.source_armies - 1, self.armies[option.target])
            needed = 0.45 if not captured else 0.6  # the first capture of a turn earns a card
            if odds < needed:
                continue
            score = odds * self.target_value(option.target)
            if score > best_score:
                best, best_score = option, score
        if best is None:
            return actions.end_phase()
        return actions.attack(best.source, best.target, best.max_dice, self.hold_back(best))

    def hold_back(self, option: AttackOption) -> int:
        """Stop rolling when the source is down to what it needs to stay safe (at least 1)."""
        keep = self.threat(option.source) // 2 if self.is_border_after(option) else 0
        if option.source == self.headquarters:
            keep = self.threat(option.source) + 2  # never empty our headquarters
        return max(1, min(keep, option.source_armies - 1))

    def is_border_after(self, option: AttackOption) -> bool:
        return any(self.enemy(n) and n != option.target for n in self.game.neighbours[option.source])

    def occupy(self) -> game_pb2.Action:
        legal, obs = self.legal, self.turn.observation
        if legal.army != self.me:  # the Allied Army's capture: press on against the opponent
            return actions.occupy(legal.occupy_max)
        source, target = obs.pending_source, obs.pending_target
        forward = any(self.enemy(n) for n in self.game.neighbours[target])
        behind = self.threat(source)
        if not forward:
            return actions.occupy(legal.occupy_min)
        if behind == 0 and not self.is_border_excluding(source, target):
            return actions.occupy(legal.occupy_max)
        movable = legal.occupy_max
        ahead = self.threat(target) + 1
        share = round(movable * ahead / (ahead + behind + 1)) if behind else movable - 1
        return actions.occupy(max(legal.occupy_min, min(legal.occupy_max, share)))

    def is_border_excluding(self, t: int, captured: int) -> bool:
        return any(self.enemy(n) and n != captured for n in self.game.neighbours[t])

    # ------------------------------------------------------------ fortify

    def fortify(self) -> game_pb2.Action:
        best, best_score = None, 0.0
        for move in self.legal.fortifies:
            if self.is_border(move.source) or move.source == self.headquarters:
                continue  # never strip a front or our headquarters
            to_front = self.is_border(move.target)
            score = move.max_armies * (2 + self.threat(move.target) if to_front else 0.5)
            if not to_front and not self.leads_to_front(move.target, move.source):
                continue
            if score > best_score:
                best, best_score = move, score
        if best is None:
            return actions.end_phase()
        return actions.fortify(best.source, best.target, best.max_armies)

    def leads_to_front(self, t: int, came_from: int) -> bool:
        """An interior step that brings armies closer: ``t`` touches a border territory."""
        return any(
            n != came_from and self.owners[n] == self.me and self.is_border(n)
            for n in self.game.neighbours[t]
        )

    # ------------------------------------------------------------ goals and the Allied Army

    def headquarters_value(self, t: int) -> float:
        """A defensible headquarters: a big garrison, little enemy strength next to it, few enemy
        neighbours, deep in a continent we mostly hold."""
        g = self.game
        enemies = sum(self.enemy(n) for n in g.neighbours[t])
        members = g.continents[g.continent_of[t]]
        ours = sum(self.owners[m] == self.me for m in members) / len(members)
        return self.armies[t] - self.threat(t) - 2 * enemies + 3 * ours

    def allied_reinforce(self) -> game_pb2.Action:
        """All the Allied Army's armies on its territory best placed to strike the opponent."""
        foe = self.turn.observation.turn_seat

        def strike(t: int) -> float:
            targets = [self.armies[n] for n in self.game.neighbours[t] if self.owners[n] == foe]
            return self.armies[t] - min(targets) if targets else float("-inf")

        return actions.place(max(self.legal.place_territories, key=strike), self.legal.place_max)

    def allied_attack(self) -> game_pb2.Action:
        """Attack the opponent with the Allied Army where a capture is likely; its losses are not ours."""
        best, best_odds = None, 0.5
        for option in self.legal.attacks:
            odds = capture_odds(option.source_armies - 1, self.armies[option.target])
            if odds > best_odds:
                best, best_odds = option, odds
        if best is None:
            return actions.end_phase()
        return actions.attack(best.source, best.target, best.max_dice, 1)


if __name__ == "__main__":
    raise SystemExit(run(StrategistBot()))
