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
