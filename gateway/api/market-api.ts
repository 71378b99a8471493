/**
 * Market operations, independent of transport: HTTP routes and MCP tools call the same functions,
 * so authority, validation, idempotency, transitions and privacy are the same on both (and the
 * same command sent over both is one command).
 *
 * A command's path: validate the body against the engine's own type (400 `invalid_request`),
 * check delegated authority (§5.5; a refusal travels WITH the command so it is recorded), build the
 * engine command, fingerprint its content, and submit it to the market runtime, which answers only
 * after the shard's fdatasync.
 */
import type { IValidation } from "typia";
import type { Command } from "../../engine/rules/types/command.js";
import type { CommandIdentity, CommitmentActionBody, DirectClaimBody, ErrorCode, PublishMarketBody, Rejection, SealedBidBody, UncheckedCreateMarketBody } from "@market-service/client/wire";
import { buildCommand, buildIdentity, CONTENT_MEMBERS, IDENTITY_LAYOUT } from "../../engine/rules/types/command-layout.js";
import {
  validateCommitmentActionBody,
  validateCreateMarketBody,
  validateDirectClaimBody,
  validatePublishMarketBody,
  validateSealedBidBody,
} from "../../engine/rules/validation/generated/bodies.js";
import { SCOPE_FOR_OPERATION, type DelegableOperation } from "../auth/authority.js";
import type { AuthService } from "../auth/service.js";
import type { Clock } from "../../engine/clock.js";
import { orderedFingerprint } from "../../engine/idempotency/fingerprint.js";
import { canonicalJson } from "../../engine/canonical-hash.js";
import type { Markets } from "../../engine/runtime/markets.js";
import { validationMessage } from "../../engine/rules/validation/field-message.js";
import { AuditLogApi } from "./audit-log-api.js";

/** A reply for either transport: JSON text made by the shard, or an error code and message. */
/** `receipt`: an accepted command's receipt (JSON text, the `Market-Receipt` header; packages/client/src/audit/receipt.ts). */
export type ApiReply = { ok: true; status: 200 | 201; json: string | Buffer; receipt?: string } | { ok: false; code: ErrorCode; message: string };

export type MarketOperation = DelegableOperation;

interface OperationSpec<Body> {
  /** Where the target id comes from: the body (create) or the path / tool input. */
  target: "body" | "marketId" | "commitmentId";
  successStatus: 200 | 201;
  validate: (input: unknown) => IValidation<Body>;
  /** The engine command, by the declared layout of its type (engine/rules/types/command-layout.ts). */
  build: (targetId: string, body: Body, commandId: string, identity: CommandIdentity, authorityRejection: Rejection | undefined) => Command;
}

const OPERATIONS: { [Op in MarketOperation]: OperationSpec<never> } = {
  "market.create_draft": {
    target: "body",
    successStatus: 201,
    validate: validateCreateMarketBody,
    build: (_id, body: UncheckedCreateMarketBody, commandId, identity, authorityRejection) =>
      buildCommand("market.create_draft", {
        marketId: body.marketId,
        subject: body.subject,
        mechanism: body.mechanism,
        commandId,
        identity,
        occurredAtMs: 0, // stamped by the shard
        authorityRejection,
      }),
  } satisfies OperationSpec<UncheckedCreateMarketBody> as OperationSpec<never>,
  "market.publish": {
    target: "marketId",
    successStatus: 200,
    validate: validatePublishMarketBody,
    build: (marketId, body: PublishMarketBody, commandId, identity, authorityRejection) =>
      buildCommand("market.publish", { marketId, expectedVersion: body.expectedVersion, commandId, identity, occurredAtMs: 0, authorityRejection }),
  } satisfies OperationSpec<PublishMarketBody> as OperationSpec<never>,
  "direct_claim.submit": {
    target: "marketId",
    successStatus: 200,
    validate: validateDirectClaimBody,
    build: (marketId, body: DirectClaimBody, commandId, identity, authorityRejection) =>
      buildCommand("direct_claim.submit", { marketId, expectedVersion: body.expectedVersion, commandId, identity, occurredAtMs: 0, authorityRejection }),
  } satisfies OperationSpec<DirectClaimBody> as OperationSpec<never>,
  "sealed_auction.submit_bid": {
    target: "marketId",
    successStatus: 200,
    validate: validateSealedBidBody,
    build: (marketId, body: SealedBidBody, commandId, identity, authorityRejection) =>
      buildCommand("sealed_auction.submit_bid", {
        marketId,
        amountMinor: body.amountMinor,
        currency: body.currency,
        commandId,
        identity,
        occurredAtMs: 0,
        authorityRejection,
      }),
  } satisfies OperationSpec<SealedBidBody> as OperationSpec<never>,
  "commitment.confirm": {
    target: "commitmentId",
    successStatus: 200,
    validate: validateCommitmentActionBody,
    build: (commitmentId, _body: CommitmentActionBody, commandId, identity, authorityRejection) =>
      buildCommand("commitment.confirm", { commitmentId, commandId, identity, occurredAtMs: 0, authorityRejection }),
  } satisfies OperationSpec<CommitmentActionBody> as OperationSpec<never>,
  "commitment.decline": {
    target: "commitmentId",
    successStatus: 200,
    validate: validateCommitmentActionBody,
    build: (commitmentId, _body: CommitmentActionBody, commandId, identity, authorityRejection) =>
      buildCommand("commitment.decline", { commitmentId, commandId, identity, occurredAtMs: 0, authorityRejection }),
  } satisfies OperationSpec<CommitmentActionBody> as OperationSpec<never>,
};

/**
 * The engine command for a validated body of `operation`, sent by `actorId`, with the refusal of
 * the gateway's authority check if there was one (it travels with the command, to be recorded).
 * Built by the declared layout of its type, so the shard channel's agreed structures (engine/runtime/wire.ts) and
 * the log's frames are what they always were.
 */
export function buildMarketCommand(
  operation: MarketOperation,
  actorId: string,
  targetId: string,
  body: { commandId: string; principalId: string; authorityRef?: string | undefined },
  authorityRejection?: Rejection,
): Command {
  const identity = buildIdentity({ principalId: body.principalId, actorId, authorityRef: body.authorityRef });
  return OPERATIONS[operation].build(targetId, body as never, body.commandId, identity, authorityRejection);
}

/**
 * The content that makes two submissions "the same command": everything but server time and the
 * authority decision. Fields in a fixed order per command type, so it is deterministic without a
 * general canonicalizer on the claim-storm path: the commandId, the identity's members, then the
 * command's content members, each in its declared order (command-layout.ts), absent ones as null;
 * only the free-form parts of a create (subject, mechanism) go through RFC 8785 canonical JSON.
 * Fingerprints are logged: this order is what earlier versions wrote (test/runtime/fingerprint.test.ts).
 */
export function fingerprintOfCommand(command: Command): string {
  const fields: unknown[] = [command.commandId];
  const identity = command.identity as unknown as Readonly<Record<string, unknown>>;
  for (const member of IDENTITY_LAYOUT) fields.push(identity[member.name] ?? null);
  const members = command as unknown as Readonly<Record<string, unknown>>;
  for (const member of CONTENT_MEMBERS[command.type]) {
    const value = members[member.name];
    fields.push(value === undefined ? null : member.kind === "json" ? canonicalJson(value) : value);
  }
  return orderedFingerprint(command.type, fields);
}

export interface MarketApiParts {
  runtime: Markets;
  auth: AuthService;
  clock: Clock;
}

export class MarketApi {
  /** The logs' heads and proofs (audit-log-api.ts), through the same runtime. */
  readonly logs: AuditLogApi;

  constructor(private readonly parts: MarketApiParts) {
    this.logs = new AuditLogApi(parts.runtime);
  }

  /**
   * Run a market or commitment command for the authenticated actor. `targetId` is the path (or tool
   * input) id: the market id, or the commitment id; unused for create, whose id is in the body.
   */
  async execute(actorId: string, operation: MarketOperation, targetId: string, input: unknown): Promise<ApiReply> {
    const spec = OPERATIONS[operation] as unknown as OperationSpec<UncheckedCreateMarketBody & PublishMarketBody & SealedBidBody>;
    const checked = spec.validate(input);
    if (!checked.success) return { ok: false, code: "invalid_request", message: validationMessage(spec.validate, input, checked.errors) };
    const body = checked.data;
    const { principalId, authorityRef } = body;
    const scope = SCOPE_FOR_OPERATION[operation];
    const authority = this.parts.auth.checkAuthority(
      authorityRef === undefined ? { actorId, principalId, scope } : { actorId, principalId, authorityRef, scope },
      this.parts.clock.nowMs(),
    );
    const command = buildMarketCommand(operation, actorId, targetId, body, authority);
    const { reply } = await this.parts.runtime.submit(command, fingerprintOfCommand(command));
    if (!reply.ok) return reply;
    return reply.receipt === undefined || reply.receipt === "" ? { ok: true, status: spec.successStatus, json: reply.json } : { ok: true, status: spec.successStatus, json: reply.json, receipt: reply.receipt };
  }

  async getMarket(marketId: string): Promise<ApiReply> {
    return ok200(await this.parts.runtime.readMarket(marketId));
  }

  /** The record, for the creator principal or the creating actor (checked by the shard). */
  async getRecord(actorId: string, marketId: string): Promise<ApiReply> {
    return ok200(await this.parts.runtime.readRecord(marketId, actorId));
  }

  /**
   * A principal's own bid receipts and commitments in a market. The actor reads its own principal,
   * or another principal's through a delegation holding any market scope.
   */
  async getOutcome(actorId: string, marketId: string, principalId: string | undefined, authorityRef: string | undefined): Promise<ApiReply> {
    const principal = principalId ?? actorId;
    if (principal !== actorId || authorityRef !== undefined) {
      const refusal = this.parts.auth.checkAnyMarketAuthority(
        { actorId, principalId: principal, ...(authorityRef === undefined ? {} : { authorityRef }) },
        this.parts.clock.nowMs(),
      );
      if (refusal !== undefined) return { ok: false, code: refusal.code, message: refusal.message };
    }
    return ok200(await this.parts.runtime.readOutcome(marketId, principal));
  }
}

function ok200(reply: { ok: true; json: string | Buffer } | { ok: false; code: ErrorCode; message: string }): ApiReply {
  return reply.ok ? { ok: true, status: 200, json: reply.json } : reply;
}
