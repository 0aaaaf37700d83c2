// ============================================================================================
// PUT YOUR STRATEGY HERE.
//
// `decide` is called once per DecisionRequest and returns one action. Everything legal is in
// `req.legal` (ranges, never one entry per army count); the board is in `game.map`, the state in
// `req.observation`. The rest of the kit (connection, queues, retries, reconnects) never needs to
// change. This sample is the aggressive strategy: stack reinforcements on the strongest front,
// attack wherever it outnumbers the defender, move everything forward, and fortify interior
// stacks to the front; it commands the Allied Army the same way against the opponent and picks
// the safest territory as headquarters.
// ============================================================================================
use crate::actions;
use crate::pb::{self, Phase};

/// What the kit knows of one game in progress.
#[derive(Clone, Debug)]
pub struct Game {
    pub id: String,
    /// Our seat.
    pub seat: i32,
    /// Every seat, in seat order.
    pub players: Vec<pb::Player>,
    /// The board, with every territory's neighbours.
    pub map: pb::MapInfo,
    /// The rules (Secret Mission Risk: every mission card in `rules.missions`).
    pub rules: pb::RulesInfo,
}

impl Game {
    /// Our headquarters territory id (Capital Risk), or -1 before we have chosen and in other games.
    pub fn headquarters(&self, obs: &pb::Observation) -> i32 {
        obs.headquarters.get(self.seat as usize).copied().unwrap_or(-1)
    }

    /// Our Secret Mission card, None in other games.
    pub fn mission<'a>(&'a self, obs: &pb::Observation) -> Option<&'a pb::Mission> {
        usize::try_from(obs.mission).ok().and_then(|id| self.rules.missions.get(id))
    }
}

/// Picks the action for one decision of one game.
pub fn decide(game: &Game, req: &pb::DecisionRequest) -> pb::Action {
    let (Some(obs), Some(legal)) = (&req.observation, &req.legal) else {
        return actions::safe_action(&req.legal.clone().unwrap_or_default());
    };
    // legal.army is whose armies this decision commands: ours, or the Allied Army's in its phases.
    let b = BoardView::new(game, obs, legal.army);
    match obs.phase() {
        Phase::SetupClaim => actions::claim(b.best_claim(&legal.claim)),
        Phase::SetupPlace if legal.place_neutral => {
            // Two-player game: this placement is for the neutral army. Put it where it blocks the
            // opponent most and us least.
            actions::place(b.best_neutral_placement(&legal.place_territories), legal.place_min)
        }
        Phase::SetupPlace => actions::place(b.stack_territory(&legal.place_territories), legal.place_max),
        // Capital Risk: the territory hardest to take.
        Phase::ChooseHeadquarters => actions::choose_headquarters(b.safest_territory(&legal.headquarters)),
        Phase::Reinforce => match legal.trades.first() {
            // Armies now beat armies later: trade whenever a set may be traded (and when we must).
            Some(set) => {
                let bonus = (!set.bonus_territories.is_empty()).then(|| b.stack_territory(&set.bonus_territories));
                actions::trade(set, bonus)
            }
            None => actions::place(b.stack_territory(&legal.place_territories), legal.place_max),
        },
        // The Allied Army's armies, placed by us: all at once where they outnumber our opponent most.
        Phase::AlliedReinforce => actions::place(b.stack_territory(&legal.place_territories), legal.place_max),
        // The Allied Army attacks only our opponent, so the same rule serves both.
        Phase::Attack | Phase::AlliedAttack => match b.best_attack(legal) {
            // Roll on until the target falls or the source is down to one army.
            Some(i) => actions::attack(legal.attack_sources[i], legal.attack_targets[i], legal.attack_max_dice[i], 1),
            None => actions::end_phase(),
        },
        Phase::Defend => actions::defend(legal.defend_max),
        Phase::Occupy => {
            // Everything forward, unless the captured territory is safe and the source still faces an enemy.
            if !b.borders_enemy(obs.pending_target) && b.borders_enemy(obs.pending_source) {
                actions::occupy(legal.occupy_min)
            } else {
                actions::occupy(legal.occupy_max)
            }
        }
        Phase::Fortify => match b.best_fortify(legal) {
            Some(i) => {
                actions::fortify(legal.fortify_sources[i], legal.fortify_targets[i], legal.fortify_max_armies[i])
            }
            None => actions::end_phase(),
        },
        // A phase value this kit's stubs do not know reads as Unspecified: never leave the seat stuck.
        Phase::Unspecified | Phase::GameOver => actions::safe_action(legal),
    }
}

/// One seat's view of the board at one decision.
struct BoardView<'a> {
    seat: i32,
    /// Whose armies we command: our seat, or the Allied Army's owner number.
    side: i32,
    owners: &'a [i32],
    armies: &'a [i32],
    map: &'a pb::MapInfo,
    /// The opponent with the fewest territories: eliminating it pays its cards.
    prey: Option<i32>,
}

impl<'a> BoardView<'a> {
    fn new(game: &'a Game, obs: &'a pb::Observation, side: i32) -> Self {
        let held = |seat: i32| obs.owners.iter().filter(|&&o| o == seat).count();
        let prey = (0..game.players.len() as i32)
            .filter(|&other| other != game.seat && held(other) > 0)
            .min_by_key(|&other| held(other));
        BoardView { seat: game.seat, side, owners: &obs.owners, armies: &obs.armies, map: &game.map, prey }
    }

    fn owner(&self, t: i32) -> i32 {
        self.owners[t as usize]
    }

    fn armies(&self, t: i32) -> i32 {
        self.armies[t as usize]
    }

    fn neighbours(&self, t: i32) -> &'a [i32] {
        &self.map.territories[t as usize].neighbours
    }

    /// Territories of `owner` are there to be taken: anyone's but ours and the side's we command.
    fn is_enemy(&self, owner: i32) -> bool {
        owner != self.seat && owner != self.side
    }

    fn borders_enemy(&self, t: i32) -> bool {
        self.neighbours(t).iter().any(|&n| self.is_enemy(self.owner(n)))
    }

    /// How far the movable armies of `source` outnumber `target` (the prey counts 2 weaker).
    fn edge(&self, source: i32, target: i32) -> i32 {
        let prey_bonus = if Some(self.owner(target)) == self.prey { 2 } else { 0 };
        self.armies(source) - 1 - self.armies(target) + prey_bonus
    }

    /// Next to what we hold (to build a continent), else the first free territory.
    fn best_claim(&self, free: &[i32]) -> i32 {
        let near_ours = |&&t: &&i32| self.neighbours(t).iter().any(|&n| self.owner(n) == self.seat);
        *free.iter().find(near_ours).unwrap_or(&free[0])
    }

    /// Where new armies go: the allowed territory with the best edge over an enemy neighbour, or the
    /// first allowed territory when none faces an enemy.
    fn stack_territory(&self, allowed: &[i32]) -> i32 {
        let mut best = (allowed[0], i32::MIN);
        for &t in allowed {
            for &n in self.neighbours(t) {
                if self.is_enemy(self.owner(n)) && self.edge(t, n) > best.1 {
                    best = (t, self.edge(t, n));
                }
            }
        }
        best.0
    }

    /// The allowed territory whose armies outnumber its enemy neighbours' armies the most (the first
    /// of the best).
    fn safest_territory(&self, allowed: &[i32]) -> i32 {
        let margin = |t: i32| -> i32 {
            let enemies = self.neighbours(t).iter().filter(|&&n| self.is_enemy(self.owner(n)));
            self.armies(t) - enemies.map(|&n| self.armies(n)).sum::<i32>()
        };
        let best = allowed.iter().map(|&t| margin(t)).max().unwrap_or(0);
        *allowed.iter().find(|&&t| margin(t) == best).unwrap_or(&allowed[0])
    }

    /// The neutral territory with the most opponent neighbours and the fewest of ours: neutral armies
    /// there shield us and block the opponent.
    fn best_neutral_placement(&self, allowed: &[i32]) -> i32 {
        let score = |t: i32| -> i32 {
            let neighbours = self.neighbours(t).iter().map(|&n| self.owner(n));
            neighbours.map(|o| if o == self.seat { -1 } else { i32::from(o != self.owner(t)) }).sum()
        };
        // The first of the best-scoring territories (max_by_key would take the last).
        let best = allowed.iter().map(|&t| score(t)).max().unwrap_or(0);
        *allowed.iter().find(|&&t| score(t) == best).unwrap_or(&allowed[0])
    }

    /// Index of the legal attack with the biggest edge among those where the source outnumbers the
    /// target.
    fn best_attack(&self, legal: &pb::LegalActions) -> Option<usize> {
        let mut best: Option<(usize, i32)> = None;
        for (i, (&source, &target)) in legal.attack_sources.iter().zip(&legal.attack_targets).enumerate() {
            let movable = legal.attack_source_armies[i] - 1;
            let edge = self.edge(source, target);
            if movable > self.armies(target) && best.is_none_or(|(_, e)| edge > e) {
                best = Some((i, edge));
            }
        }
        best.map(|(i, _)| i)
    }

    /// Index of the free move that takes the biggest interior stack (no enemy neighbour) to a
    /// territory on the front.
    fn best_fortify(&self, legal: &pb::LegalActions) -> Option<usize> {
        let mut best: Option<(usize, i32)> = None;
        for (i, (&source, &target)) in legal.fortify_sources.iter().zip(&legal.fortify_targets).enumerate() {
            let moving = legal.fortify_max_armies[i];
            if !self.borders_enemy(source) && self.borders_enemy(target) && best.is_none_or(|(_, m)| moving > m) {
                best = Some((i, moving));
            }
        }
        best.map(|(i, _)| i)
    }
}
