/**
 * The logs' proofs and heads for clients (docs/endpoints.md, "Audit logs"; docs/proofs.md), whichever
 * transport asks: a head signed now over a log's whole tree, an inclusion proof with the proven
 * entry's payload when the reader may see it (engine/audit/entry-visibility.ts), a consistency
 * proof. The shard or partition that writes the log answers (Markets.readLog); proofs are built on
 * the worker pool.
 */
import { entryVisibility, marketFactsOf, visibleToCreator } from "../../engine/audit/entry-visibility.js";
import type { LogProofRequest } from "../../engine/audit/log-proofs.js";
import { base64UrlDecode, type ErrorCode, type Market } from "@market-service/client/wire";
import { decodeLogEntry } from "../../engine/log/logged-head.js";
import type { Markets } from "../../engine/runtime/markets.js";
import { jsonText, logHeadRead, logProofRead, type ShardReply } from "../../engine/shard-protocol/shard-protocol.js";

/** What a transport answers (market-api.ts's ApiReply narrowed to a read's: not imported, which would make a cycle). */
type ApiReply = { ok: true; status: 200; json: string | Buffer } | { ok: false; code: ErrorCode; message: string };

/** An inclusion proof as the pool hands it over: the endpoint's members, and the entry's payload always. */
interface PooledInclusion {
  leafIndex: number;
  treeSize: number;
  path: string[];
  leafHash: string;
  entry: string;
}

export class AuditLogApi {
  constructor(private readonly runtime: Markets) {}

  /** A head signed now over the log's whole current tree. */
  async head(logId: string): Promise<ApiReply> {
    const read = this.runtime.readLog(logId, logHeadRead());
    return read === undefined ? unknownLog(logId) : ok200(await read);
  }

  /** `{ oldSize, newSize, path }`. */
  async consistency(logId: string, oldSize: number, newSize: number): Promise<ApiReply> {
    return this.proof(logId, { type: "consistency", oldSize, newSize });
  }

  /**
   * `{ leafIndex, treeSize, path, leafHash, entry }`: `entry` the payload (base64url) if `readerId` may
   * see it, else null; `leafHash` always (every leaf hash is public: they are the siblings in other
   * proofs' paths), so a reader who may not see the entry can still check the proof.
   */
  async inclusion(readerId: string, logId: string, leafIndex: number, treeSize: number): Promise<ApiReply> {
    const reply = await this.proof(logId, { type: "inclusion", leafIndex, treeSize });
    if (!reply.ok) return reply;
    const pooled = JSON.parse(jsonText(reply.json)) as PooledInclusion;
    const shown = (await this.mayRead(readerId, pooled.entry)) ? pooled.entry : null;
    return { ok: true, status: 200, json: JSON.stringify({ leafIndex: pooled.leafIndex, treeSize: pooled.treeSize, path: pooled.path, leafHash: pooled.leafHash, entry: shown }) };
  }

  private async proof(logId: string, request: LogProofRequest): Promise<ApiReply> {
    const read = this.runtime.readLog(logId, logProofRead(request));
    return read === undefined ? unknownLog(logId) : ok200(await read);
  }

  /** The visibility rule; the market is read (as it is now) only when the reader is not the command's own. */
  private async mayRead(readerId: string, entryBase64: string): Promise<boolean> {
    const entry = decodeLogEntry(base64UrlDecode(entryBase64));
    const visibility = entryVisibility(entry, readerId);
    if (typeof visibility === "string") return visibility === "visible";
    if (entry.kind !== "command") return false;
    const market = await this.runtime.readMarket(visibility.marketId);
    const facts = market.ok ? marketFactsOf(JSON.parse(jsonText(market.json)) as Market) : undefined;
    return visibleToCreator(entry.logged.c, readerId, facts);
  }
}

function unknownLog(logId: string): ApiReply {
  return { ok: false, code: "not_found", message: `log ${JSON.stringify(logId)} was not found: this service writes no log of that name (shard-<n> embedded, partition-<p> in a cluster)` };
}

function ok200(reply: ShardReply): ApiReply {
  return reply.ok ? { ok: true, status: 200, json: reply.json } : reply;
}
