// The generated protocol types (from ../../proto, by `npm run gen`) and the loader that matches them.
import * as path from "node:path";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import type { ProtoGrpcType } from "../gen/bot";

export type { Action } from "../gen/conquest/v1/Action";
export type { CardSet__Output as CardSet } from "../gen/conquest/v1/CardSet";
export type { ConnectRequest } from "../gen/conquest/v1/ConnectRequest";
export type { ConnectResponse__Output as ConnectResponse } from "../gen/conquest/v1/ConnectResponse";
export type { DecisionRequest__Output as DecisionRequest } from "../gen/conquest/v1/DecisionRequest";
export type { GameStarted__Output as GameStarted } from "../gen/conquest/v1/GameStarted";
export type { LegalActions__Output as LegalActions } from "../gen/conquest/v1/LegalActions";
export type { MapInfo__Output as MapInfo } from "../gen/conquest/v1/MapInfo";
export type { Mission__Output as Mission } from "../gen/conquest/v1/Mission";
export type { Observation__Output as Observation } from "../gen/conquest/v1/Observation";
export type { Player__Output as Player } from "../gen/conquest/v1/Player";
export type { RulesInfo__Output as RulesInfo } from "../gen/conquest/v1/RulesInfo";

/** The repository's proto/ directory (override with $CONQUEST_PROTO_DIR). */
export const PROTO_DIR = process.env.CONQUEST_PROTO_DIR ?? path.resolve(__dirname, "..", "..", "..", "..", "proto");

/** The same options `npm run gen` gives proto-loader-gen-types, so the types match what is decoded. */
const LOADER_OPTIONS: protoLoader.Options = {
  keepCase: true,
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
  includeDirs: [PROTO_DIR],
};

export function loadProtocol(): ProtoGrpcType {
  const definition = protoLoader.loadSync(["conquest/v1/bot.proto", "conquest/v1/game.proto"], LOADER_OPTIONS);
  return grpc.loadPackageDefinition(definition) as unknown as ProtoGrpcType;
}
