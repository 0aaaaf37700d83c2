//! Dice version 2: every roll and shuffle of a game, re-derived from its seed (docs/protocol.md,
//! "Randomness: how every roll and shuffle is derived"). One `Stream` per game, drawn in event order.
use sha2::{Digest, Sha256};

/// 6^5: a battle draws one number in 0..7775, five base-6 digits (d[0..2] the attacker's, d[3..4] the
/// defender's).
pub const FIVE_DICE: u64 = 7776;

/// The SHA-256 counter stream: word i is the big-endian u32 at bytes 4*(i mod 8) of
/// SHA-256(be64(seed) || be64(i div 8)).
pub struct Stream {
    seed: u64,
    block: u64,
    words: [u32; 8],
    next: usize,
}

impl Stream {
    /// A game's stream at word 0.
    pub fn new(seed: u64) -> Self {
        Stream { seed, block: 0, words: [0; 8], next: 8 }
    }

    /// The next 32-bit word.
    pub fn word(&mut self) -> u32 {
        if self.next == 8 {
            let mut message = [0u8; 16];
            message[..8].copy_from_slice(&self.seed.to_be_bytes());
            message[8..].copy_from_slice(&self.block.to_be_bytes());
            let digest = Sha256::digest(message);
            for (i, word) in self.words.iter_mut().enumerate() {
                *word = u32::from_be_bytes(digest[4 * i..4 * i + 4].try_into().unwrap());
            }
            self.block += 1;
            self.next = 0;
        }
        self.next += 1;
        self.words[self.next - 1]
    }

    /// Uniform in 0..n-1 (1 <= n <= 2^32): words at or above the largest multiple of n within 2^32 are
    /// dropped, so there is no modulo bias.
    pub fn uniform(&mut self, n: u64) -> usize {
        let limit = (1u64 << 32) - (1u64 << 32) % n;
        loop {
            let x = u64::from(self.word());
            if x < limit {
                return (x % n) as usize;
            }
        }
    }

    /// Fisher-Yates from the back, in place.
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.uniform(i as u64 + 1);
            items.swap(i, j);
        }
    }
}

/// The roll for the first player: every round's dice flattened (0 for a seat out of the round) and the
/// seat that starts.
pub fn roll_off(stream: &mut Stream, seats: usize) -> (Vec<i64>, usize) {
    let mut in_round: Vec<usize> = (0..seats).collect();
    let mut rolls = Vec::new();
    loop {
        let mut round = vec![0i64; seats];
        for &seat in &in_round {
            round[seat] = 1 + stream.uniform(6) as i64;
        }
        let best = *round.iter().max().unwrap_or(&0);
        in_round.retain(|&seat| round[seat] == best);
        rolls.extend(round);
        if in_round.len() == 1 {
            return (rolls, in_round[0]);
        }
    }
}

/// One battle roll of `attacker_dice` (1..3) against `defender_dice` (1..2), each side highest first.
pub fn battle(stream: &mut Stream, attacker_dice: usize, defender_dice: usize) -> (Vec<i64>, Vec<i64>) {
    let mut k = stream.uniform(FIVE_DICE) as i64;
    let mut d = [0i64; 5];
    for die in d.iter_mut() {
        *die = k % 6 + 1;
        k /= 6;
    }
    let mut attacker = d[..attacker_dice].to_vec();
    let mut defender = d[3..3 + defender_dice].to_vec();
    attacker.sort_unstable_by(|a, b| b.cmp(a));
    defender.sort_unstable_by(|a, b| b.cmp(a));
    (attacker, defender)
}

/// The Secret Mission deal: seat s gets entry s.
pub fn deal_missions(stream: &mut Stream, seats: usize, three_continent_missions: bool) -> Vec<i64> {
    let mut deck: Vec<i64> = (0..seats as i64).chain(6..12).collect();
    if three_continent_missions {
        deck.extend([12, 13]);
    }
    stream.shuffle(&mut deck);
    deck.truncate(seats);
    deck
}

/// The owner of each territory by id: setup "dealt" from `first_seat`, or "neutral_piles" (seat 0, seat
/// 1, then the neutral army as owner `seats`).
pub fn deal_territories(
    stream: &mut Stream,
    territories: usize,
    seats: usize,
    setup: &str,
    first_seat: usize,
) -> Vec<i64> {
    let mut order: Vec<usize> = (0..territories).collect();
    stream.shuffle(&mut order);
    let mut owners = vec![0i64; territories];
    let pile = territories / 3;
    for (i, &t) in order.iter().enumerate() {
        owners[t] = if setup == "neutral_piles" { (i / pile).min(seats) } else { (first_seat + i) % seats } as i64;
    }
    owners
}

/// Card ids 0..cards-1 without the reserved ones (Capital Risk's headquarters), shuffled.
pub fn shuffled_deck(stream: &mut Stream, cards: usize, reserved: &[i64]) -> Vec<i64> {
    let mut deck: Vec<i64> = (0..cards as i64).filter(|c| !reserved.contains(c)).collect();
    stream.shuffle(&mut deck);
    deck
}
