//! Dice version 2: every roll and shuffle of a game, re-derived from its seed (docs/protocol.md,
//! "Randomness: how every roll and shuffle is derived", with its subsection "RISK 2210 A.D. games"). One
//! `Stream` per game, drawn in event order.
use sha2::{Digest, Sha256};

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

    /// One die of `faces` sides (a d6, a 2210 d8): 1..=faces.
    pub fn die(&mut self, faces: u64) -> i64 {
        1 + self.uniform(faces) as i64
    }

    /// How many words have been drawn so far, rejected ones included.
    pub fn words_used(&self) -> u64 {
        8 * self.block + self.next as u64 - 8
    }

    /// Fisher-Yates from the back, in place.
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.uniform(i as u64 + 1);
            items.swap(i, j);
        }
    }
}

/// The roll for the first player of a classic game: every round's dice flattened (0 for a seat out of the
/// round) and the seat that starts. It is the 2210 first placer's roll-off among seats 0..seats-1.
pub fn roll_off(stream: &mut Stream, seats: usize) -> (Vec<i64>, usize) {
    let (order, rounds) = roll_off_order(stream, &(0..seats as i64).collect::<Vec<_>>(), true);
    (rounds.concat(), order.first().map_or(0, |&seat| seat as usize))
}

/// A roll-off ordering `seats` by d6: the order, and each round in the order rolled (one value per entry
/// of `seats`, 0 for an entry not rolling). In a round each entry still in rolls, in the list's order;
/// the values are then taken from highest to lowest, and a value rolled by several entries is settled by
/// rounds among just those (recursively) before the next lower value. With `only_first` (the first
/// placer, and the classic first player) only the highest tie re-rolls; lower ties keep the list's order.
pub fn roll_off_order(stream: &mut Stream, seats: &[i64], only_first: bool) -> (Vec<i64>, Vec<Vec<i64>>) {
    /// Orders `group` (positions in `seats`, so a repeated seat id cannot loop forever).
    fn rank(
        stream: &mut Stream,
        width: usize,
        group: Vec<usize>,
        only_first: bool,
        rounds: &mut Vec<Vec<i64>>,
    ) -> Vec<usize> {
        if group.len() <= 1 {
            return group;
        }
        let mut round = vec![0i64; width];
        for &entry in &group {
            round[entry] = stream.die(6);
        }
        rounds.push(round.clone());
        let mut out = Vec::with_capacity(group.len());
        for value in (1..=6).rev() {
            let tied: Vec<usize> = group.iter().copied().filter(|&entry| round[entry] == value).collect();
            if tied.is_empty() {
                continue;
            }
            if only_first && !out.is_empty() {
                out.extend(tied);
            } else {
                out.extend(rank(stream, width, tied, only_first, rounds));
            }
        }
        out
    }
    let mut rounds = Vec::new();
    let order = rank(stream, seats.len(), (0..seats.len()).collect(), only_first, &mut rounds);
    (order.into_iter().map(|entry| seats[entry]).collect(), rounds)
}

/// One classic battle roll of `attacker_dice` (1..3) against `defender_dice` (1..2), each side highest
/// first: the all-sixes case of `battle_faces`, one `uniform(7776)` (6^5).
pub fn battle(stream: &mut Stream, attacker_dice: usize, defender_dice: usize) -> (Vec<i64>, Vec<i64>) {
    battle_faces(stream, &vec![6; attacker_dice], &vec![6; defender_dice])
}

/// One battle roll of dice with the given faces (the attacker's 1..3, the defender's 1..2; 6 or 8 each,
/// 8s first as a 2210 `rolled` event lists them), each side's dice highest first. The five slots are the
/// attacker's faces padded with 6 to three, then the defender's padded with 6 to two; one
/// `uniform(product of the slots)` is read as mixed-radix digits: d[i] = k mod s[i] + 1, then k div s[i].
/// The attacker takes d[0..a-1], the defender d[3..3+b-1].
pub fn battle_faces(stream: &mut Stream, attacker_faces: &[u64], defender_faces: &[u64]) -> (Vec<i64>, Vec<i64>) {
    let pad = |faces: &[u64], to: usize| faces.iter().copied().chain(std::iter::repeat(6)).take(to).collect::<Vec<_>>();
    let slots = [pad(attacker_faces, 3), pad(defender_faces, 2)].concat();
    let mut k = stream.uniform(slots.iter().product()) as u64;
    let mut d = [0i64; 5];
    for (die, &size) in d.iter_mut().zip(&slots) {
        *die = (k % size) as i64 + 1;
        k /= size;
    }
    let mut attacker = d[..attacker_faces.len()].to_vec();
    let mut defender = d[3..3 + defender_faces.len()].to_vec();
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
