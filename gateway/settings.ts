/**
 * Every environment setting the service reads, with its default and what is allowed: the source of
 * `market-service serve --help` and of `.env.example`. Validation lives in config.ts and
 * auth/config.ts; test/ops checks that both agree with this table.
 */
export interface SettingDoc {
  name: string;
  default: string;
  allowed: string;
}

export const SETTINGS: readonly SettingDoc[] = [
  { name: "HOST", default: "127.0.0.1", allowed: "IP address or host name to bind (a warning is logged for non-loopback without TLS)" },
  { name: "PORT", default: "8080", allowed: "integer 0..65535 (0: any free port)" },
  { name: "DATA_DIR", default: "./data", allowed: "directory for logs and snapshots (created if missing)" },
  { name: "SHARDS", default: "the data directory's recorded count; for a new directory the number of CPU cores (max 64)", allowed: "integer 1..64; a directory keeps the count it was created with, a different SHARDS is refused" },
  { name: "TLS_CERT_FILE", default: "(none: plain HTTP)", allowed: "PEM certificate file; set with TLS_KEY_FILE" },
  { name: "TLS_KEY_FILE", default: "(none)", allowed: "PEM private key file; set with TLS_CERT_FILE" },
  { name: "CHECKPOINT_EVERY_COMMANDS", default: "100000", allowed: "integer 1..100000000: snapshot shards + idempotency index after this many commands" },
  { name: "CHECKPOINT_EVERY_SECONDS", default: "60", allowed: "integer 0..86400 (0: only by command count)" },
  { name: "LOG_LEVEL", default: "info", allowed: "debug | info | warn | error | silent" },
  { name: "EVENTS_KEEP_ALIVE_MS", default: "5000", allowed: "integer 100..60000: a comment line on a live event stream that carried nothing for this long, so uWS and proxies never cut an idle stream (docs/events.md)" },
  { name: "EVENTS_SUBSCRIBER_BUFFER_BYTES", default: "1048576", allowed: "integer 4096..1073741824: events one subscriber may leave unread before its stream ends with event: overflow (it resumes from its last sequence)" },
  { name: "MCP_RESPONSE_MODE", default: "json", allowed: "json (one JSON body per POST /mcp) | sse (server-sent events)" },
  { name: "AUDIT_SIGNING_KEY_FILE", default: "(none: a key is generated at DATA_DIR/audit-signing-key.pem, and every start warns that whoever holds DATA_DIR can then sign)", allowed: "Ed25519 private key, PEM PKCS#8 (openssl genpkey -algorithm ed25519), mode 0600, outside DATA_DIR: signs the audit log heads; in cluster mode the same key on every node (a node with another is refused)" },
  { name: "AUDIT_KEY_HISTORY_FILE", default: "(none: the signing key alone)", allowed: "JSON key history written by `market-service signing-key rotate` (docs/proofs.md); its last key must be AUDIT_SIGNING_KEY_FILE's" },
  { name: "AUDIT_HEADS", default: "on", allowed: "on | off: signed heads in every log and a Market-Receipt header on accepted replies (docs/proofs.md); off only to measure their cost" },
  { name: "AUDIT_HEAD_EVERY_COMMANDS", default: "10000", allowed: "integer 1..10000000: a log records a signed head after this many entries ..." },
  { name: "AUDIT_HEAD_EVERY_SECONDS", default: "1", allowed: "integer 1..86400: ... or once the oldest entry no head covers is this old" },
  { name: "AUDIT_ACCEPT_UNSIGNED_TAIL", default: "(none: a log with more entries after its last verified head than a crash leaves is refused at start)", allowed: "<log>:<first uncovered entry>[,…] exactly as the refusal names it (e.g. shard-0:37): start on that tail anyway; logged as a warning and recorded in the log by a head entry that verify reports (docs/storage.md)" },
  { name: "AUDIT_PROOF_CACHE_BYTES", default: "268435456", allowed: "integer 0..8589934592: bytes of log Merkle trees each worker pool thread keeps between proofs, least recently used logs evicted beyond it (about 74 bytes a log entry; 0 keeps none: every proof reads its log from the start)" },
  { name: "AUTH_CHALLENGE_TTL", default: "120", allowed: "challenge lifetime, integer seconds 1..3600" },
  { name: "AUTH_TOKEN_TTL", default: "900", allowed: "bearer token lifetime, integer seconds 1..86400" },
  { name: "AUTH_AUDIENCE", default: "market-service", allowed: "1..128 visible ASCII characters, bound into challenges and tokens" },
  { name: "HMAC_CLOCK_SKEW_SECONDS", default: "300", allowed: "integer seconds 1..3600 either side of the server clock" },
  { name: "SERVICE_HMAC_SECRETS", default: "(none: a bootstrap operator is created in DATA_DIR/operator.secret)", allowed: "actor=secret,... (secrets ≥ 32 visible ASCII characters)" },
  { name: "SERVICE_HMAC_SECRETS_FILE", default: "(none)", allowed: "JSON file {\"actor\": \"secret\"}" },
  { name: "MCP_STATIC_TOKENS", default: "(none)", allowed: "token=actor,... accepted on /mcp only (tokens ≥ 32 visible ASCII characters)" },
  { name: "MCP_STATIC_TOKENS_FILE", default: "(none)", allowed: "JSON file {\"token\": \"actor\"}" },
  { name: "SERVICE_OPERATOR_ACTORS", default: "(none; the bootstrap operator when one was created)", allowed: "comma-separated actor ids allowed to POST /v1/admin/identities" },
  { name: "METRICS_TOKEN", default: "(none: only operator actors read /metrics)", allowed: "bearer token (≥ 32 visible ASCII characters) that may read GET /metrics and nothing else, e.g. for a Prometheus scrape job" },
  { name: "METRICS_TOKEN_FILE", default: "(none)", allowed: "file holding the metrics token (the file a Prometheus job names as credentials_file)" },
];

export function settingsHelp(): string {
  const width = Math.max(...SETTINGS.map((s) => s.name.length));
  return [
    "Settings (environment variables; a bad value exits with status 2 naming the setting):",
    ...SETTINGS.map((s) => `  ${s.name.padEnd(width)}  ${s.allowed}\n  ${" ".repeat(width)}  default: ${s.default}`),
  ].join("\n");
}

/** `.env.example`: every setting, commented out at its default, and how a `.env` is read. */
export function envExample(): string {
  return [
    "# market-service settings (all optional; `market-service serve --help` lists them too).",
    "# `npm start` reads a file named .env in this folder when there is one: copy this file to .env and",
    "# uncomment what you change. A variable already set in the environment wins over the file. Nothing",
    "# else reads .env: give the single binary, `market-service serve` or `node dist/gateway/main.js` the",
    "# variables in their environment (under systemd: Environment= or EnvironmentFile=).",
    ...SETTINGS.map((s) => `\n# ${s.allowed}\n# default: ${s.default}\n# ${s.name}=`),
    "",
  ].join("\n");
}
