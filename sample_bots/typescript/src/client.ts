// The connection side of the kit: one stream, Hello, queues, many games at once, retries after a
// rejection and reconnects after a dropped connection. Strategy lives in strategy.ts.
import * as grpc from "@grpc/grpc-js";
import { safeAction } from "./actions";
import { default2210 } from "./r2210";
import { loadProtocol } from "./protocol";
import type { Action, ConnectRequest, ConnectResponse, DecisionRequest } from "./protocol";
import { decide, type Game } from "./strategy";

const CLIENT_NAME = "conquest-typescript-kit";
const CLIENT_VERSION = "0.1.0";
const FIRST_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 15_000;

export interface Config {
  /** host:port of the server. */
  server: string;
  /** Registered bot token; empty for practice play under `name`. */
  token: string;
  name: string;
  /** Games played at once. */
  capacity: number;
  /** Queues to join; empty: the first queue the server offers. */
  queues: string[];
  /** Stop after this many games; 0: play forever. */
  games: number;
}

interface SessionEnd {
  welcomed: boolean;
  reason: string;
  fatal: boolean;
}

type Stream = grpc.ClientDuplexStream<ConnectRequest, ConnectResponse>;

/** Plays games for one bot; its games outlive a dropped connection. */
export class Client {
  private readonly games = new Map<string, Game & { last?: DecisionRequest }>();
  private started = 0;
  private stopping = false;
  private stream?: Stream;

  constructor(private readonly config: Config) {}

  private wantMore(): boolean {
    return !this.stopping && (this.config.games === 0 || this.started < this.config.games);
  }

  private done(): boolean {
    return this.stopping || (!this.wantMore() && this.games.size === 0);
  }

  /** Close the stream and stop (games in progress are left to the server's defaults). */
  stop(): void {
    this.stopping = true;
    this.stream?.cancel();
  }

  /**
   * Play until the game count is reached or the server refuses the bot, reconnecting with
   * exponential backoff (and jitter) whenever the stream drops.
   */
  async run(): Promise<void> {
    const api = loadProtocol().conquest.v1.BotService;
    const client = new api(this.config.server, grpc.credentials.createInsecure());
    let backoff = FIRST_BACKOFF_MS;
    try {
      for (;;) {
        const end = await this.session(client);
        if (this.done()) return;
        if (end.fatal) throw new Error(end.reason);
        if (end.welcomed) backoff = FIRST_BACKOFF_MS;
        const wait = Math.round(backoff / 2 + Math.random() * (backoff / 2));
        console.log(`connection lost (${end.reason}); reconnecting in ${wait} ms`);
        await new Promise((resolve) => setTimeout(resolve, wait));
        backoff = Math.min(2 * backoff, MAX_BACKOFF_MS);
      }
    } finally {
      client.close();
    }
  }

  /** One stream, until it ends; resolves with why. */
  private session(client: grpc.Client & { Connect(): Stream }): Promise<SessionEnd> {
    return new Promise((resolve) => {
      const stream = client.Connect();
      this.stream = stream;
      let welcomed = false;
      let fatal = "";
      const send = (message: ConnectRequest) => stream.write(message);
      stream.on("data", (message: ConnectResponse) => {
        try {
          if (message.welcome) welcomed = true;
          fatal = this.handle(message, send) || fatal;
          if (this.done()) stream.end();
        } catch (error) {
          console.log(`dropping the stream: ${error}`);
          stream.cancel();
        }
      });
      stream.on("error", (error: grpc.ServiceError) => resolve({ welcomed, reason: fatal || error.message, fatal: !!fatal }));
      stream.on("end", () => resolve({ welcomed, reason: fatal || "the server closed the stream", fatal: !!fatal }));
      send({
        hello: {
          token: this.config.token,
          name: this.config.name,
          client_name: CLIENT_NAME,
          client_version: CLIENT_VERSION,
          capacity: this.config.capacity,
        },
      });
    });
  }

  /** Handle one server message; returns a reason when it is a fatal error reconnecting cannot fix. */
  private handle(message: ConnectResponse, send: (m: ConnectRequest) => void): string {
    switch (message.message) {
      case "welcome": {
        const w = message.welcome!;
        console.log(
          `welcome ${w.bot_name} (session ${w.session_id}, server ${w.server_version}, ranked ${w.ranked}, ` +
            `resumed games [${w.resumed_game_ids.join(", ")}])`,
        );
        this.forgetGamesNotResumed(w.resumed_game_ids);
        if (this.done()) break; // the session ends after this message
        if (this.config.queues.length === 0 && w.queues.length > 0) this.config.queues = [w.queues[0].name];
        this.joinQueues(send, w.resumed_game_ids);
        break;
      }
      case "game_started": {
        // Sent again for each game resumed after a reconnect.
        const g = message.game_started!;
        if (!this.games.has(g.game_id)) {
          this.started++;
          console.log(`game ${g.game_id} started: seat ${g.seat} of ${g.players.length} (${g.queue})`);
        }
        this.games.set(g.game_id, { id: g.game_id, seat: g.seat, players: g.players, map: g.map!, rules: g.rules! });
        if (!this.wantMore()) this.leaveQueues(send);
        break;
      }
      case "decision_request": {
        const req = message.decision_request!;
        if (req.r2210) {
          // A RISK 2210 A.D. game: answered from its Legal2210 alone (r2210.ts).
          const game = this.games.get(req.game_id);
          if (game) game.last = req;
          send({ decision: { game_id: req.game_id, request_id: req.request_id, r2210: default2210(req.r2210.legal!) } });
          break;
        }
        send({ decision: { game_id: req.game_id, request_id: req.request_id, action: this.decide(req) } });
        break;
      }
      case "decision_rejected": {
        // Retry with the plainest legal action while time is left.
        const r = message.decision_rejected!;
        console.log(`game ${r.game_id}: decision ${r.request_id} rejected: ${r.reason}`);
        const last = this.games.get(r.game_id)?.last;
        if (r.can_retry && last && last.request_id === r.request_id) {
          const answer = last.r2210 ? { r2210: default2210(last.r2210.legal!) } : { action: safeAction(last.legal!) };
          send({ decision: { game_id: r.game_id, request_id: r.request_id, ...answer } });
        }
        break;
      }
      case "game_events":
        break; // Public events (a DecisionRequest carries its own in req.events); the sample reads the observation.
      case "game_over": {
        const over = message.game_over!;
        const game = this.games.get(over.game_id);
        this.games.delete(over.game_id);
        const mine = over.results.find((r) => game && r.seat === game.seat);
        if (mine) {
          console.log(
            `game ${over.game_id} over after ${over.turns} turns (${over.reason}): place ${mine.place}, ${mine.outcome}`,
          );
        }
        break;
      }
      case "queue_status":
        break; // Our membership stands until we leave, reach JoinQueue.games or disconnect.
      case "error": {
        const e = message.error!;
        console.log(`server error ${e.code}: ${e.message}`);
        // A refused Hello is final; a server shutting down may come back.
        if (e.fatal && e.code !== "shutting_down") return `${e.code}: ${e.message}`;
        // A game the Welcome listed as resumed that will not come back (it ended, or our seat forfeited,
        // while we were away): stop waiting for it. One we never saw start counts as started, as
        // joinQueues counted it.
        if (e.code === "not_resumed" && !this.games.delete(e.game_id)) this.started++;
        break;
      }
    }
    return "";
  }

  /** The strategy's action; a game we know nothing of (or a strategy that throws) gets the plainest legal action. */
  private decide(req: DecisionRequest): Action {
    const game = this.games.get(req.game_id);
    if (!game) {
      console.log(`game ${req.game_id}: request for a game we were not told about; playing safe`);
      return safeAction(req.legal!);
    }
    game.last = req;
    try {
      return decide(game, req);
    } catch (error) {
      console.log(`game ${req.game_id}: strategy failed (${error}); playing safe`);
      return safeAction(req.legal!);
    }
  }

  /**
   * Drop the games that ended while we were disconnected: the server resumes only the games still in
   * progress, and sends no GameOver for the others.
   */
  private forgetGamesNotResumed(resumed: string[]): void {
    for (const id of [...this.games.keys()]) if (!resumed.includes(id)) this.games.delete(id);
  }

  /**
   * Join every configured queue once per connection (membership stands until we leave, reach
   * JoinQueue.games or disconnect) for the games still to start: `games` minus those started, counting a
   * resumed game we never saw start (seated as the connection dropped; its GameStarted follows). The
   * server seats us in at most that many, so it never starts a game we would abandon.
   */
  private joinQueues(send: (m: ConnectRequest) => void, resumed: string[]): void {
    let left = 0; // JoinQueue.games 0: no limit
    if (this.config.games > 0) {
      left = this.config.games - this.started - resumed.filter((id) => !this.games.has(id)).length;
      if (left <= 0) return;
    }
    for (const queue of this.config.queues) send({ join_queue: { queue, games: left } });
  }

  /**
   * Leave every queue once `games` games have started (with several queues, each was joined for all the
   * games left, so another queue could still seat us).
   */
  private leaveQueues(send: (m: ConnectRequest) => void): void {
    for (const queue of this.config.queues) {
      send({ leave_queue: { queue } });
    }
  }
}
