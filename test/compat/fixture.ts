/** The compatibility fixture's location, settings and the shape of what it records (make-fixture-log.ts). */
import * as path from "node:path";
import type { IdentityFile } from "@market-service/client";

export const FIXTURE_DIR = path.join(import.meta.dirname, "fixture-log");
export const FIXTURE_START_MS = Date.parse("2026-05-01T10:00:00.000Z");
export const OPERATOR = { actorId: "operator", secret: "fixture-operator-secret-0123456789abcdef" };
/** The settings the fixture was written with (a service reading it must use the same shard count). */
export const FIXTURE_ENV = {
  HOST: "127.0.0.1",
  PORT: "0",
  SHARDS: "2",
  LOG_LEVEL: "silent",
  SERVICE_HMAC_SECRETS: `${OPERATOR.actorId}=${OPERATOR.secret}`,
  SERVICE_OPERATOR_ACTORS: OPERATOR.actorId,
  AUTH_TOKEN_TTL: "86400",
};

/** One request the generator sent, with the status and the exact reply text it got. */
export interface RecordedExchange {
  method: "GET" | "POST";
  route: string;
  body: unknown;
  /** The principal whose token sent it. */
  as: string;
  status: number;
  reply: string;
}

export interface FixtureExpectations {
  /** The commit whose code wrote the fixture. */
  writtenBy: string;
  identities: Record<string, IdentityFile>;
  exchanges: RecordedExchange[];
  /** Per market: its creator, and the exact texts of GET market and GET record, and the record hash. */
  markets: Record<string, { creator: string; market: string; record: string; recordHash: string }>;
}
