// The TypeScript starter kit for Conquest: connects to a server and plays.
import { parseArgs } from "node:util";
import { Client } from "./client";

const USAGE = `usage: node dist/src/main.js [options]
  --server host:port   server address (default localhost:50051)
  --token TOKEN        bot token for ranked play (default $CONQUEST_TOKEN)
  --name NAME          bot name for practice play without a token (default ts-aggressive)
  --queue Q1,Q2        queues to join (default: the server's first queue)
  --capacity N         games to play at the same time, 1-64 (default 4)
  --games N            stop after this many games (default 0: until interrupted)`;

function main(): void {
  const { values } = parseArgs({
    options: {
      server: { type: "string", default: "localhost:50051" },
      token: { type: "string", default: process.env.CONQUEST_TOKEN ?? "" },
      name: { type: "string", default: "ts-aggressive" },
      queue: { type: "string", default: "" },
      capacity: { type: "string", default: "4" },
      games: { type: "string", default: "0" },
      help: { type: "boolean", default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const client = new Client({
    server: values.server,
    token: values.token,
    name: values.name,
    capacity: Number(values.capacity),
    queues: values.queue ? values.queue.split(",") : [],
    games: Number(values.games),
  });
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => client.stop());
  client.run().catch((error: Error) => {
    console.error(error.message);
    process.exitCode = 1;
  });
}

main();
