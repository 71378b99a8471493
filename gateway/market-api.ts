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
import type { Command } from "../engine/rules/types/command.js";
import type { CommandIdentity } from "../engine/rules/types/shared.js";
import type {
  CommitmentActionBody,
  CreateMarketBody,
  DirectClaimBody,
  PublishMarketBody,
  SealedBidBody,
} from "../engine/rules/types/command.js";
import type { ErrorCode } from "../engine/rules/types/errors.js";
import {
  validateCommitmentActionBody,
  validateCreateMarketBody,
  validateDirectClaimBody,
  validatePublishMarketBody,
  validateSealedBidBody,
} from "../engine/rules/validation/generated/bodies.js";
import { SCOPE_FOR_OPERATION, type DelegableOperation } from "./auth/authority.js";
import type { AuthService } from "./auth/service.js";
import type { Clock } from "../engine/clock.js";
import { orderedFingerprint } from "../engine/idempotency/fingerprint.js";
import { canonicalJson } from "../engine/canonical-hash.js";
import type { MarketRuntime } from "../engine/runtime/market-runtime.js";
import { validationMessage } from "../engine/rules/validation/field-message.js";

/** A reply for either transport: JSON text made by the shard, or an error code and message. */
export type ApiReply = { ok: true; status: 200 | 201; json: string | Buffer } | { ok: false; code: ErrorCode; message: string };

export type MarketOperation = DelegableOperation;

interface OperationSpec<Body> {
  /** Where the target id comes from: the body (create) or the path / tool input. */
  target: "body" | "marketId" | "commitmentId";
  successStatus: 200 | 201;
  validate: (input: unknown) => IValidation<Body>;
  /**
   * The engine command, as one object literal per shape (no spreads): objects of one shape keep one
   * hidden class, which the channel's MessagePack encoder packs faster (decision I13). Member order as
   * it always was (the operation's own members,
   * then `commandId`, `identity`, `occurredAtMs`), so logged frames are unchanged.
   */
  build: (targetId: string, body: Body, commandId: string, identity: CommandIdentity) => Command;
}

const OPERATIONS: { [Op in MarketOperation]: OperationSpec<never> } = {
  "market.create_draft": {
    target: "body",
    successStatus: 201,
    validate: validateCreateMarketBody,
    build: (_id, body: CreateMarketBody, commandId, identity) => ({
      type: "market.create_draft",
      marketId: body.marketId,
      subject: body.subject,
      mechanism: body.mechanism,
      commandId,
      identity,
      occurredAtMs: 0, // stamped by the shard
    }),
  } satisfies OperationSpec<CreateMarketBody> as OperationSpec<never>,
  "market.publish": {
    target: "marketId",
    successStatus: 200,
    validate: validatePublishMarketBody,
    build: (marketId, body: PublishMarketBody, commandId, identity) => ({
      type: "market.publish",
      marketId,
      expectedVersion: body.expectedVersion,
      commandId,
      identity,
      occurredAtMs: 0,
    }),
  } satisfies OperationSpec<PublishMarketBody> as OperationSpec<never>,
  "direct_claim.submit": {
    target: "marketId",
    successStatus: 200,
    validate: validateDirectClaimBody,
    build: (marketId, body: DirectClaimBody, commandId, identity) =>
      body.expectedVersion === undefined
        ? { type: "direct_claim.submit", marketId, commandId, identity, occurredAtMs: 0 }
        : { type: "direct_claim.submit", marketId, expectedVersion: body.expectedVersion, commandId, identity, occurredAtMs: 0 },
  } satisfies OperationSpec<DirectClaimBody> as OperationSpec<never>,
  "sealed_auction.submit_bid": {
    target: "marketId",
    successStatus: 200,
    validate: validateSealedBidBody,
    build: (marketId, body: SealedBidBody, commandId, identity) => ({
      type: "sealed_auction.submit_bid",
      marketId,
      amountMinor: body.amountMinor,
      currency: body.currency,
      commandId,
      identity,
      occurredAtMs: 0,
    }),
  } satisfies OperationSpec<SealedBidBody> as OperationSpec<never>,
  "commitment.confirm": {
    target: "commitmentId",
    successStatus: 200,
    validate: validateCommitmentActionBody,
    build: (commitmentId, _body: CommitmentActionBody, commandId, identity) => ({ type: "commitment.confirm", commitmentId, commandId, identity, occurredAtMs: 0 }),
  } satisfies OperationSpec<CommitmentActionBody> as OperationSpec<never>,
  "commitment.decline": {
    target: "commitmentId",
    successStatus: 200,
    validate: validateCommitmentActionBody,
    build: (commitmentId, _body: CommitmentActionBody, commandId, identity) => ({ type: "commitment.decline", commitmentId, commandId, identity, occurredAtMs: 0 }),
  } satisfies OperationSpec<CommitmentActionBody> as OperationSpec<never>,
};

/**
 * The engine command for a validated body of `operation`, sent by `actorId`: one object literal per
 * shape (see OperationSpec.build), identity included. The shard channel agrees these shapes in
 * advance (wire.ts), and its test builds commands here.
 */
export function buildMarketCommand(
  operation: MarketOperation,
  actorId: string,
  targetId: string,
  body: { commandId: string; principalId: string; authorityRef?: string | undefined },
): Command {
  const { principalId, authorityRef } = body;
  const identity: CommandIdentity = authorityRef === undefined ? { principalId, actorId } : { principalId, actorId, authorityRef };
  return OPERATIONS[operation].build(targetId, body as never, body.commandId, identity);
}

/**
 * The content that makes two submissions "the same command": everything but server time and the
 * authority decision. Fields in a fixed order per command type (absent optional fields as null), so
 * it is deterministic without a general canonicalizer on the claim-storm path; only the free-form
 * parts of a create (subject, mechanism) go through RFC 8785 canonical JSON.
 */
export function fingerprintOfCommand(command: Command): string {
  const { principalId, actorId, authorityRef } = command.identity;
  const head = [command.commandId, principalId, actorId, authorityRef ?? null];
  switch (command.type) {
    case "market.create_draft":
      return orderedFingerprint(command.type, [...head, command.marketId, canonicalJson(command.subject), canonicalJson(command.mechanism)]);
    case "market.publish":
      return orderedFingerprint(command.type, [...head, command.marketId, command.expectedVersion]);
    case "direct_claim.submit":
      return orderedFingerprint(command.type, [...head, command.marketId, command.expectedVersion ?? null]);
    case "sealed_auction.submit_bid":
      return orderedFingerprint(command.type, [...head, command.marketId, command.amountMinor, command.currency]);
    case "sealed_auction.resolve":
      return orderedFingerprint(command.type, [...head, command.marketId]);
    case "commitment.confirm":
    case "commitment.decline":
    case "commitment.expire":
      return orderedFingerprint(command.type, [...head, command.commitmentId]);
  }
}

export interface MarketApiParts {
  runtime: MarketRuntime;
  auth: AuthService;
  clock: Clock;
}

export class MarketApi {
  constructor(private readonly parts: MarketApiParts) {}

  /**
   * Run a market or commitment command for the authenticated actor. `targetId` is the path (or tool
   * input) id: the market id, or the commitment id; unused for create, whose id is in the body.
   */
  async execute(actorId: string, operation: MarketOperation, targetId: string, input: unknown): Promise<ApiReply> {
    const spec = OPERATIONS[operation] as unknown as OperationSpec<CreateMarketBody & PublishMarketBody & SealedBidBody>;
    const checked = spec.validate(input);
    if (!checked.success) return { ok: false, code: "invalid_request", message: validationMessage(spec.validate, input, checked.errors) };
    const body = checked.data;
    const { principalId, authorityRef } = body;
    const command = buildMarketCommand(operation, actorId, targetId, body);
    const scope = SCOPE_FOR_OPERATION[operation];
    const authority = this.parts.auth.checkAuthority(
      authorityRef === undefined ? { actorId, principalId, scope } : { actorId, principalId, authorityRef, scope },
      this.parts.clock.nowMs(),
    );
    if (authority !== undefined) command.authorityRejection = authority;
    const { reply } = await this.parts.runtime.submit(command, fingerprintOfCommand(command));
    return reply.ok ? { ok: true, status: spec.successStatus, json: reply.json } : reply;
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
