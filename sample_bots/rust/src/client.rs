//! The connection side of the kit: one stream, Hello, queues, many games at once, retries after a
//! rejection and reconnects after a dropped connection. Strategy lives in strategy.rs.
// Messages are built with `..Default::default()` so fields added to the protocol later do not break it.
#![allow(clippy::needless_update)]
use std::collections::HashMap;
use std::hash::{BuildHasher, RandomState};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use tokio::sync::mpsc::{UnboundedSender, unbounded_channel};
use tokio_stream::wrappers::UnboundedReceiverStream;
use tonic::transport::Endpoint;

use crate::actions::safe_action;
use crate::pb::{self, bot_service_client::BotServiceClient, connect_request, connect_response::Message, decision};
use crate::r2210::default_2210;
use crate::strategy::{self, Game};

const CLIENT_NAME: &str = "conquest-rust-kit";
const FIRST_BACKOFF: Duration = Duration::from_millis(500);
const MAX_BACKOFF: Duration = Duration::from_secs(15);

/// Where to connect and what to play.
#[derive(Clone, Debug)]
pub struct Config {
    /// host:port of the server.
    pub server: String,
    /// Registered bot token; empty for practice play under `name`.
    pub token: String,
    /// Practice name.
    pub name: String,
    /// Games played at once.
    pub capacity: i32,
    /// Queues to join; empty: the first queue the server offers.
    pub queues: Vec<String>,
    /// Stop after this many games; 0: play forever.
    pub games: usize,
}

/// How one stream ended.
enum SessionEnd {
    /// Every wanted game was played.
    Done,
    /// The server refused the bot (a bad token or name): reconnecting cannot fix it.
    Refused(String),
    /// The connection dropped or the server closed it; `welcomed` says whether Hello got through.
    Lost { welcomed: bool, reason: String },
}

/// What a request allowed: a classic game's legal actions or a RISK 2210 A.D. game's.
#[derive(Clone, Debug)]
enum Legal {
    Classic(pb::LegalActions),
    R2210(pb::Legal2210),
}

/// Plays games for one bot; its games outlive a dropped connection.
pub struct Client {
    config: Config,
    games: HashMap<String, Game>,
    /// The request each game is answering (id and legal actions), for a retry after a rejection.
    pending: HashMap<String, (i64, Legal)>,
    started: usize,
}

impl Client {
    pub fn new(config: Config) -> Self {
        Client { config, games: HashMap::new(), pending: HashMap::new(), started: 0 }
    }

    fn want_more(&self) -> bool {
        self.config.games == 0 || self.started < self.config.games
    }

    fn done(&self) -> bool {
        !self.want_more() && self.games.is_empty()
    }

    /// Plays until the game count is reached or the server refuses the bot (the error says why),
    /// reconnecting with exponential backoff (and jitter) whenever the stream drops.
    pub async fn run(&mut self) -> Result<(), String> {
        let mut backoff = FIRST_BACKOFF;
        loop {
            match self.session().await {
                SessionEnd::Done => return Ok(()),
                SessionEnd::Refused(why) => return Err(why),
                SessionEnd::Lost { welcomed, reason } => {
                    if welcomed {
                        backoff = FIRST_BACKOFF;
                    }
                    let wait = jitter(backoff);
                    log(&format!("connection lost ({reason}); reconnecting in {} ms", wait.as_millis()));
                    tokio::time::sleep(wait).await;
                    backoff = (backoff * 2).min(MAX_BACKOFF);
                }
            }
        }
    }

    /// One stream, from Hello until it ends.
    async fn session(&mut self) -> SessionEnd {
        let lost = |welcomed, reason: String| SessionEnd::Lost { welcomed, reason };
        let endpoint = match Endpoint::from_shared(format!("http://{}", self.config.server)) {
            Ok(endpoint) => endpoint.connect_timeout(Duration::from_secs(10)),
            Err(e) => {
                return SessionEnd::Refused(format!("bad server address {:?}: {e}", self.config.server));
            }
        };
        let channel = match endpoint.connect().await {
            Ok(channel) => channel,
            Err(e) => return lost(false, format!("cannot connect: {e}")),
        };
        let (out, outbound) = unbounded_channel();
        // Hello goes out with the call: the server answers nothing before it.
        send(
            &out,
            connect_request::Message::Hello(pb::Hello {
                token: self.config.token.clone(),
                name: self.config.name.clone(),
                client_name: CLIENT_NAME.into(),
                client_version: env!("CARGO_PKG_VERSION").into(),
                capacity: self.config.capacity,
                ..Default::default()
            }),
        );
        let mut inbound = match BotServiceClient::new(channel).connect(UnboundedReceiverStream::new(outbound)).await {
            Ok(response) => response.into_inner(),
            Err(status) => return lost(false, status.message().to_string()),
        };
        let mut welcomed = false;
        loop {
            let message = match inbound.message().await {
                Ok(Some(response)) => response.message,
                Ok(None) => return lost(welcomed, "the server closed the stream".into()),
                Err(status) => {
                    return lost(welcomed, format!("{:?}: {}", status.code(), status.message()));
                }
            };
            welcomed |= matches!(message, Some(Message::Welcome(_)));
            if let Some(end) = message.and_then(|m| self.handle(m, &out)) {
                return end; // dropping `out` half-closes the stream
            }
        }
    }

    /// Handles one server message; returns how the session ends when it does.
    fn handle(&mut self, message: Message, out: &UnboundedSender<pb::ConnectRequest>) -> Option<SessionEnd> {
        match message {
            Message::Welcome(w) => {
                log(&format!(
                    "welcome {} (session {}, server {}, ranked {}, resumed games {:?})",
                    w.bot_name, w.session_id, w.server_version, w.ranked, w.resumed_game_ids
                ));
                // Games that ended while we were away are not resumed; forget them.
                self.games.retain(|id, _| w.resumed_game_ids.contains(id));
                self.pending.retain(|id, _| w.resumed_game_ids.contains(id));
                if self.done() {
                    return Some(SessionEnd::Done);
                }
                if self.config.queues.is_empty() {
                    self.config.queues.extend(w.queues.first().map(|q| q.name.clone()));
                }
                self.join_queues(out, &w.resumed_game_ids);
            }
            Message::GameStarted(g) => {
                // Sent again for each game resumed after a reconnect.
                if !self.games.contains_key(&g.game_id) {
                    self.started += 1;
                    log(&format!("game {} started: seat {} of {} ({})", g.game_id, g.seat, g.players.len(), g.queue));
                }
                let game = Game {
                    id: g.game_id.clone(),
                    seat: g.seat,
                    players: g.players,
                    map: g.map.unwrap_or_default(),
                    rules: g.rules.unwrap_or_default(),
                };
                self.games.insert(g.game_id, game);
                if !self.want_more() {
                    self.leave_queues(out);
                }
            }
            Message::DecisionRequest(req) => {
                if let Some(pb::decision_request::Game::R2210(r)) = &req.game {
                    // A RISK 2210 A.D. game: answered from its Legal2210 alone (r2210.rs).
                    let legal = Legal::R2210(r.legal.clone().unwrap_or_default());
                    send_decision(out, req.game_id.clone(), req.request_id, safe_answer(&legal));
                    self.pending.insert(req.game_id, (req.request_id, legal));
                } else {
                    let action = self.decide(&req);
                    send_decision(out, req.game_id, req.request_id, Answer::Classic(action));
                }
            }
            Message::DecisionRejected(r) => {
                // Retry with the plainest legal action while time is left.
                log(&format!("game {}: decision {} rejected: {}", r.game_id, r.request_id, r.reason));
                if let Some((request_id, legal)) = self.pending.get(&r.game_id)
                    && r.can_retry
                    && *request_id == r.request_id
                {
                    send_decision(out, r.game_id, r.request_id, safe_answer(legal));
                }
            }
            Message::GameEvents(_) => {
                // Public events (a DecisionRequest carries its own in req.events); the sample reads the
                // observation.
            }
            Message::GameOver(over) => {
                self.pending.remove(&over.game_id);
                if let Some(game) = self.games.remove(&over.game_id) {
                    for r in over.results.iter().filter(|r| r.seat == game.seat) {
                        log(&format!(
                            "game {} over after {} turns ({}): place {}, {}",
                            over.game_id,
                            over.turns,
                            over.reason,
                            r.place,
                            r.outcome().as_str_name()
                        ));
                    }
                }
                if self.done() {
                    return Some(SessionEnd::Done);
                }
            }
            Message::QueueStatus(_) => {
                // Our membership stands until we leave, reach JoinQueue.games or disconnect.
            }
            Message::Error(e) => {
                log(&format!("server error {}: {}", e.code, e.message));
                // A refused Hello is final; a server shutting down may come back.
                if e.fatal && e.code != "shutting_down" {
                    return Some(SessionEnd::Refused(format!("{}: {}", e.code, e.message)));
                }
                // A game the Welcome listed as resumed that will not come back (it ended, or our seat
                // forfeited, while we were away): stop waiting for it. One we never saw start counts as
                // started, as join_queues counted it.
                if e.code == "not_resumed" {
                    self.pending.remove(&e.game_id);
                    if self.games.remove(&e.game_id).is_none() {
                        self.started += 1;
                    }
                    if self.done() {
                        return Some(SessionEnd::Done);
                    }
                }
            }
        }
        None
    }

    /// The strategy's action; a game we know nothing of (or a strategy that panics) gets the
    /// plainest legal action instead, so the seat never times out.
    fn decide(&mut self, req: &pb::DecisionRequest) -> pb::Action {
        let legal = req.legal.clone().unwrap_or_default();
        let action = match self.games.get(&req.game_id) {
            None => {
                log(&format!("game {}: request for a game we were not told about; playing safe", req.game_id));
                safe_action(&legal)
            }
            Some(game) => catch_unwind(AssertUnwindSafe(|| strategy::decide(game, req))).unwrap_or_else(|_| {
                log(&format!("game {}: the strategy panicked; playing safe", req.game_id));
                safe_action(&legal)
            }),
        };
        self.pending.insert(req.game_id.clone(), (req.request_id, Legal::Classic(legal)));
        action
    }

    /// Joins every configured queue once per connection (membership stands until we leave, reach
    /// JoinQueue.games or disconnect) for the games still to start: `games` minus those started, counting
    /// a resumed game we never saw start (seated as the connection dropped; its GameStarted follows). The
    /// server seats us in at most that many, so it never starts a game we would abandon.
    fn join_queues(&self, out: &UnboundedSender<pb::ConnectRequest>, resumed: &[String]) {
        let mut left = 0; // JoinQueue.games 0: no limit
        if self.config.games > 0 {
            let unseen = resumed.iter().filter(|id| !self.games.contains_key(*id)).count();
            left = self.config.games.saturating_sub(self.started + unseen);
            if left == 0 {
                return;
            }
        }
        for queue in &self.config.queues {
            let join = pb::JoinQueue {
                queue: queue.clone(),
                games: i32::try_from(left).unwrap_or(i32::MAX),
                ..Default::default()
            };
            send(out, connect_request::Message::JoinQueue(join));
        }
    }

    /// Leaves every queue once `games` games have started (with several queues, each was joined for all
    /// the games left, so another queue could still seat us).
    fn leave_queues(&self, out: &UnboundedSender<pb::ConnectRequest>) {
        for queue in &self.config.queues {
            send(
                out,
                connect_request::Message::LeaveQueue(pb::LeaveQueue { queue: queue.clone(), ..Default::default() }),
            );
        }
    }
}

/// Queues a message on the stream; a send after the stream broke is dropped (the reconnect follows).
fn send(out: &UnboundedSender<pb::ConnectRequest>, message: connect_request::Message) {
    let _ = out.send(pb::ConnectRequest { message: Some(message) });
}

/// A decision's answer: a classic action, or a RISK 2210 A.D. one (sent as `Decision.r2210`).
enum Answer {
    Classic(pb::Action),
    R2210(pb::Action2210),
}

/// The plainest legal answer to a request, read off its legal actions alone.
fn safe_answer(legal: &Legal) -> Answer {
    match legal {
        Legal::Classic(legal) => Answer::Classic(safe_action(legal)),
        Legal::R2210(legal) => Answer::R2210(default_2210(legal)),
    }
}

fn send_decision(out: &UnboundedSender<pb::ConnectRequest>, game_id: String, request_id: i64, answer: Answer) {
    let (action, game) = match answer {
        Answer::Classic(action) => (Some(action), None),
        Answer::R2210(action) => (None, Some(decision::Game::R2210(action))),
    };
    let decision = pb::Decision { game_id, request_id, action, game, ..Default::default() };
    send(out, connect_request::Message::Decision(decision));
}

/// A wait between half and all of `backoff`, so many bots dropped at once do not reconnect in step.
fn jitter(backoff: Duration) -> Duration {
    let half = backoff / 2;
    let random = RandomState::new().hash_one(SystemTime::now());
    half + Duration::from_millis(random % (half.as_millis() as u64 + 1))
}

/// One log line on stderr, stamped with the UTC time of day.
pub fn log(line: &str) {
    let secs = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs()) % 86_400;
    eprintln!("{:02}:{:02}:{:02} {line}", secs / 3600, secs / 60 % 60, secs % 60);
}

/// The client's message handling, fed server messages directly (no network).
#[cfg(test)]
mod tests {
    use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};

    use super::*;

    fn client(games: usize) -> Client {
        Client::new(Config {
            server: String::new(),
            token: String::new(),
            name: "t".into(),
            capacity: 2,
            queues: vec!["classic-4".into()],
            games,
        })
    }

    fn welcome(resumed: &[&str]) -> Message {
        Message::Welcome(pb::Welcome {
            resumed_game_ids: resumed.iter().map(|id| id.to_string()).collect(),
            ..Default::default()
        })
    }

    fn started(id: &str) -> Message {
        Message::GameStarted(pb::GameStarted { game_id: id.into(), ..Default::default() })
    }

    fn over(id: &str) -> Message {
        Message::GameOver(pb::GameOver { game_id: id.into(), ..Default::default() })
    }

    /// Feeds `messages` to the client; returns every message it sent.
    fn sent(client: &mut Client, messages: Vec<Message>) -> Vec<connect_request::Message> {
        let (out, mut sent): (_, UnboundedReceiver<pb::ConnectRequest>) = unbounded_channel();
        for message in messages {
            client.handle(message, &out);
        }
        let mut all = vec![];
        while let Ok(request) = sent.try_recv() {
            all.extend(request.message);
        }
        all
    }

    /// Feeds `messages` to the client; returns the JoinQueue.games of every JoinQueue it sent.
    fn joins(client: &mut Client, messages: Vec<Message>) -> Vec<i32> {
        let joins = sent(client, messages).into_iter();
        joins
            .filter_map(|m| if let connect_request::Message::JoinQueue(j) = m { Some(j.games) } else { None })
            .collect()
    }

    /// bot.proto, JoinQueue.games: "Seat this bot in at most this many more games of the queue, then
    /// leave it (0: no limit)". With --games 1 and capacity 2 the kit used to join without a limit, was
    /// seated in two games and abandoned the second when it stopped.
    #[test]
    fn join_queue_asks_for_the_games_to_play() {
        for games in [0, 1, 3] {
            assert_eq!(joins(&mut client(games), vec![welcome(&[])]), [games as i32], "--games {games}");
        }
    }

    /// The server seats the last game of the limit (QueueStatus joined=false) before that game's
    /// GameStarted reaches us; a game ending in between must not join again, or a game more than asked
    /// would start.
    #[test]
    fn no_join_queue_when_a_game_ends() {
        let mut client = client(2);
        let left =
            Message::QueueStatus(pb::QueueStatus { queue: "classic-4".into(), joined: false, ..Default::default() });
        let messages = vec![welcome(&[]), started("a"), left, over("a"), started("b"), over("b")];
        assert_eq!(joins(&mut client, messages), [2]);
        assert!(client.done());
    }

    /// Every decision `client` sends on `messages`.
    fn decisions(client: &mut Client, messages: Vec<Message>) -> Vec<pb::Decision> {
        let sent = sent(client, messages).into_iter();
        sent.filter_map(|m| if let connect_request::Message::Decision(d) = m { Some(d) } else { None }).collect()
    }

    /// bot.proto: "for a RISK 2210 A.D. game set `r2210` instead of `action`", also in the retry after a
    /// rejection (issue 19: the kits "answer every 2210 decision").
    #[test]
    fn a_2210_request_and_its_retry_are_answered_with_2210_decisions() {
        let legal = pb::Legal2210 { phase: pb::Phase2210::Bid.into(), bid_max: 3, ..Default::default() };
        let request = pb::DecisionRequest {
            game_id: "g".into(),
            request_id: 7,
            game: Some(pb::decision_request::Game::R2210(pb::Request2210 {
                legal: Some(legal.clone()),
                ..Default::default()
            })),
            ..Default::default()
        };
        let rejected =
            pb::DecisionRejected { game_id: "g".into(), request_id: 7, can_retry: true, ..Default::default() };
        let mut client = client(1);
        let sent = decisions(
            &mut client,
            vec![started("g"), Message::DecisionRequest(request), Message::DecisionRejected(rejected)],
        );
        assert_eq!(sent.len(), 2, "the answer and its retry");
        for decision in sent {
            assert_eq!((decision.game_id.as_str(), decision.request_id), ("g", 7));
            assert_eq!(decision.action, None, "no classic action in a 2210 game");
            assert_eq!(decision.game, Some(decision::Game::R2210(default_2210(&legal))));
        }
    }

    /// bot.proto: "Membership does not survive a disconnect: join again after the next Welcome." The kit
    /// joins for the games left: --games minus those started, whether they finished, are resumed, or
    /// ended while we were away.
    #[test]
    fn join_queue_after_a_reconnect_asks_for_the_games_left() {
        let mut client = client(4);
        joins(&mut client, vec![welcome(&[]), started("finished"), over("finished"), started("running")]);
        assert_eq!(joins(&mut client, vec![welcome(&["running"]), started("running")]), [2], "4 games, 2 started");
        // A resumed game we never saw start (seated as the connection dropped) counts too.
        let messages = vec![welcome(&["running", "unseen"]), started("running"), started("unseen")];
        assert_eq!(joins(&mut client, messages), [1], "4 games, 3 started");
        // A game that ended while we were away is forgotten but stays counted.
        assert_eq!(joins(&mut client, vec![welcome(&["unseen"])]), [1], "still 4 games, 3 started");
        assert!(!client.done(), "the resumed game is still being played");
        joins(&mut client, vec![over("unseen")]);
        assert!(!client.done(), "one game is still to play");
    }

    /// Issue 20's review: "A Welcome can list a game that does not resume ... the SDK keeps waiting for it
    /// forever ... the bot must be told": Error{not_resumed} for a game the Welcome listed ends the wait.
    #[test]
    fn not_resumed_stops_waiting_for_the_game() {
        let mut client = client(1);
        let not_resumed =
            Message::Error(pb::Error { code: "not_resumed".into(), game_id: "gone".into(), ..Default::default() });
        joins(&mut client, vec![welcome(&[]), started("gone"), welcome(&["gone"])]);
        assert!(!client.done(), "waiting for the resumed game");
        joins(&mut client, vec![not_resumed]);
        assert!(client.done(), "the game will not come back: done");
    }
}
