// The client's message handling, fed server messages directly (no network).
import assert from "node:assert/strict";
import { test } from "node:test";
import { Client } from "../src/client";
import type { ConnectRequest, ConnectResponse } from "../src/protocol";

/** The client's private message handler and bookkeeping, as the session drives them. */
interface Internals {
  handle(message: Partial<ConnectResponse>, send: (m: ConnectRequest) => void): string;
  done(): boolean;
  games: Map<string, unknown>;
}

function started(gameId: string): Partial<ConnectResponse> {
  return { message: "game_started", game_started: { game_id: gameId, seat: 0, players: [], queue: "classic-4" } as never };
}

function welcome(resumed: string[]): Partial<ConnectResponse> {
  return { message: "welcome", welcome: { resumed_game_ids: resumed, queues: [] } as never };
}

// Issue 7 (session 1 note): "the Go, TS and Java clients don't forget games that ended while they were
// disconnected, so with --games N such a game is never counted". The Welcome after a reconnect lists
// the games still in progress; the others ended while we were away and get no GameOver.
test("a Welcome after a reconnect forgets the games that ended meanwhile", () => {
  const client = new Client({ server: "", token: "", name: "t", capacity: 2, queues: ["classic-4"], games: 2 });
  const internals = client as unknown as Internals;
  const sent: ConnectRequest[] = [];
  const send = (m: ConnectRequest) => sent.push(m);
  internals.handle(started("ended"), send);
  internals.handle(started("running"), send);
  internals.handle(welcome(["running"]), send);
  assert.deepEqual([...internals.games.keys()], ["running"]);
  assert.equal(internals.done(), false, "the resumed game is still being played");
  internals.handle({ message: "game_over", game_over: { game_id: "running", results: [] } as never }, send);
  assert.equal(internals.done(), true, "both games are over");
  internals.handle(welcome([]), send);
  assert.ok(!sent.some((m) => m.join_queue), "joined a queue after its games were all played");
});

function over(gameId: string): Partial<ConnectResponse> {
  return { message: "game_over", game_over: { game_id: gameId, results: [] } as never };
}

/** The JoinQueue.games of every JoinQueue sent. */
function joins(sent: ConnectRequest[]): number[] {
  return sent.filter((m) => m.join_queue).map((m) => Number(m.join_queue!.games));
}

function kit(games: number): { internals: Internals; sent: ConnectRequest[]; send: (m: ConnectRequest) => void } {
  const client = new Client({ server: "", token: "", name: "t", capacity: 2, queues: ["classic-4"], games });
  const sent: ConnectRequest[] = [];
  return { internals: client as unknown as Internals, sent, send: (m) => sent.push(m) };
}

// bot.proto, JoinQueue.games: "Seat this bot in at most this many more games of the queue, then leave it
// (0: no limit)". With --games 1 and capacity 2 the kit used to join without a limit, was seated in two
// games and abandoned the second when it stopped.
test("JoinQueue asks for the games to play", () => {
  for (const games of [0, 1, 3]) {
    const { internals, sent, send } = kit(games);
    internals.handle(welcome([]), send);
    assert.deepEqual(joins(sent), [games], `--games ${games}`);
  }
});

// The server seats the last game of the limit (QueueStatus joined=false) before that game's GameStarted
// reaches us; a game ending in between must not join again, or a game more than asked would start.
test("no JoinQueue when a game ends", () => {
  const { internals, sent, send } = kit(2);
  internals.handle(welcome([]), send);
  internals.handle(started("a"), send);
  internals.handle({ message: "queue_status", queue_status: { queue: "classic-4", joined: false } as never }, send);
  internals.handle(over("a"), send);
  internals.handle(started("b"), send);
  internals.handle(over("b"), send);
  assert.deepEqual(joins(sent), [2]);
  assert.equal(internals.done(), true);
});

// After a reconnect the kit joins again (membership does not survive a disconnect) for the games left:
// --games minus those started, whether they finished, are resumed, or ended while we were away.
test("JoinQueue after a reconnect asks for the games left", () => {
  const { internals, sent, send } = kit(4);
  internals.handle(welcome([]), send);
  internals.handle(started("finished"), send);
  internals.handle(over("finished"), send);
  internals.handle(started("running"), send);
  sent.length = 0;
  internals.handle(welcome(["running"]), send);
  internals.handle(started("running"), send);
  assert.deepEqual(joins(sent), [2], "4 games, 2 started");
  // A resumed game we never saw start (seated as the connection dropped) counts too.
  sent.length = 0;
  internals.handle(welcome(["running", "unseen"]), send);
  internals.handle(started("running"), send);
  internals.handle(started("unseen"), send);
  assert.deepEqual(joins(sent), [1], "4 games, 3 started");
  sent.length = 0;
  internals.handle(welcome(["running", "unseen"]), send);
  internals.handle(over("running"), send);
  internals.handle(over("unseen"), send);
  assert.deepEqual(joins(sent), [1], "still 4 games, 3 started");
});

// Issue 20's review: "A Welcome can list a game that does not resume ... the SDK keeps waiting for it
// forever ... the bot must be told": Error{not_resumed} for a game the Welcome listed ends the wait.
test("an Error not_resumed stops the wait for a game the Welcome listed", () => {
  const { internals, send } = kit(1);
  internals.handle(welcome([]), send);
  internals.handle(started("gone"), send);
  internals.handle(welcome(["gone"]), send);
  assert.equal(internals.done(), false, "waiting for the resumed game");
  internals.handle({ message: "error", error: { code: "not_resumed", game_id: "gone", fatal: false } as never }, send);
  assert.equal(internals.done(), true, "the game will not come back: done");
});
