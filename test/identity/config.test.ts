import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, loadAuthConfig, type Env } from "../../gateway/auth/index.js";
import { hashTokenText } from "../../gateway/auth/token-hash.js";
import { tempDir } from "./helpers.js";

const SECRET = "s".repeat(32);

function configError(env: Env, dataDir = tempDir("data")): ConfigError {
  try {
    loadAuthConfig(env, dataDir);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error("expected a ConfigError");
}

describe("loadAuthConfig", () => {
  it("applies the documented defaults", () => {
    const config = loadAuthConfig({ SERVICE_HMAC_SECRETS: `svc=${SECRET}` }, tempDir("data"));
    expect(config).toMatchObject({
      challengeTtlSeconds: 120,
      tokenTtlSeconds: 900,
      audience: "market-service",
      hmacClockSkewSeconds: 300,
      maxChallenges: 100_000,
      bootstrapNotice: undefined,
    });
    expect(config.operatorActors.size).toBe(0);
    expect(config.hmacSecrets.get("svc")).toEqual(Buffer.from(SECRET));
  });

  it("reads every setting", () => {
    const dir = tempDir("data");
    const config = loadAuthConfig(
      {
        AUTH_CHALLENGE_TTL: "60",
        AUTH_TOKEN_TTL: "3600",
        AUTH_AUDIENCE: "https://market.example",
        HMAC_CLOCK_SKEW_SECONDS: "30",
        SERVICE_HMAC_SECRETS: `a=${SECRET},b=${SECRET}==`,
        MCP_STATIC_TOKENS: `${"t".repeat(40)}=agent`,
        SERVICE_OPERATOR_ACTORS: " a , ops ",
      },
      dir,
    );
    expect(config).toMatchObject({ challengeTtlSeconds: 60, tokenTtlSeconds: 3600, audience: "https://market.example", hmacClockSkewSeconds: 30 });
    expect([...config.hmacSecrets.keys()]).toEqual(["a", "b"]);
    expect(config.hmacSecrets.get("b")?.toString()).toBe(`${SECRET}==`); // split at the first "="
    expect([...config.operatorActors]).toEqual(["a", "ops"]);
    expect(config.staticMcpTokenHashes.get(hashTokenText("t".repeat(40)))).toBe("agent");
    expect([...config.staticMcpTokenHashes.keys()].some((k) => k.includes("tttt"))).toBe(false);
    expect(fs.readdirSync(dir)).toEqual([]); // secrets configured: no bootstrap file
  });

  it("reads the _FILE variants (JSON objects)", () => {
    const dir = tempDir("data");
    const secretsFile = path.join(dir, "secrets.json");
    const tokensFile = path.join(dir, "tokens.json");
    fs.writeFileSync(secretsFile, JSON.stringify({ "svc-a": SECRET }));
    fs.writeFileSync(tokensFile, JSON.stringify({ ["x".repeat(32)]: "agent" }));
    const config = loadAuthConfig({ SERVICE_HMAC_SECRETS_FILE: secretsFile, MCP_STATIC_TOKENS_FILE: tokensFile }, dir);
    expect(config.hmacSecrets.has("svc-a")).toBe(true);
    expect(config.staticMcpTokenHashes.size).toBe(1);
  });

  it.each(["AUTH_CHALLENGE_TTL", "AUTH_TOKEN_TTL", "HMAC_CLOCK_SKEW_SECONDS"])("refuses bad %s values", (setting) => {
    for (const value of ["0", "-5", "1.5", "abc", " 60", "1e3", "99999999"]) {
      const error = configError({ SERVICE_HMAC_SECRETS: `svc=${SECRET}`, [setting]: value });
      expect(error.setting).toBe(setting);
      expect(error.message).toMatch(new RegExp(`^${setting}: must be a whole number of seconds from 1 to \\d+$`));
    }
  });

  it.each([
    ["AUTH_AUDIENCE", { AUTH_AUDIENCE: "has space" }, /AUTH_AUDIENCE: must be 1 to 128 visible ASCII/],
    ["secret too short", { SERVICE_HMAC_SECRETS: "svc=short-secret" }, /entry 1: the secret must be 32 to 1024/],
    ["entry without =", { SERVICE_HMAC_SECRETS: `svc=${SECRET},oops` }, /entry 2 must have the form actor=secret/],
    ["empty actor", { SERVICE_HMAC_SECRETS: `=${SECRET}` }, /entry 1 must have the form/],
    ["@system actor", { SERVICE_HMAC_SECRETS: `@system=${SECRET}` }, /entry 1: actor id "@system" is reserved for the service/],
    ["duplicate actor", { SERVICE_HMAC_SECRETS: `a=${SECRET},a=${SECRET}x` }, /actor "a" is listed twice/],
    ["both secret sources", { SERVICE_HMAC_SECRETS: `a=${SECRET}`, SERVICE_HMAC_SECRETS_FILE: "/x.json" }, /set either SERVICE_HMAC_SECRETS or SERVICE_HMAC_SECRETS_FILE/],
    ["missing secrets file", { SERVICE_HMAC_SECRETS_FILE: "/nonexistent/secrets.json" }, /SERVICE_HMAC_SECRETS_FILE: file .* cannot be read/],
    ["operator list with an empty item", { SERVICE_HMAC_SECRETS: `a=${SECRET}`, SERVICE_OPERATOR_ACTORS: "a,,b" }, /SERVICE_OPERATOR_ACTORS: item 2/],
    ["duplicate operator", { SERVICE_HMAC_SECRETS: `a=${SECRET}`, SERVICE_OPERATOR_ACTORS: "a,a" }, /listed twice/],
    ["static token too short", { SERVICE_HMAC_SECRETS: `a=${SECRET}`, MCP_STATIC_TOKENS: "short=agent" }, /MCP_STATIC_TOKENS: entry 1: the token must be/],
    ["static token equal to an HMAC secret", { SERVICE_HMAC_SECRETS: `a=${SECRET}`, MCP_STATIC_TOKENS: `${SECRET}=agent` }, /the token equals an HMAC secret/],
    ["duplicate static token", { SERVICE_HMAC_SECRETS: `a=${SECRET}`, MCP_STATIC_TOKENS: `${"t".repeat(32)}=x,${"t".repeat(32)}=y` }, /listed twice/],
  ])("refuses %s, naming the setting and never echoing a secret", (_name, env, pattern) => {
    const error = configError(env);
    expect(error.message).toMatch(pattern);
    expect(error.message).not.toContain(SECRET);
    expect(error.message).not.toContain("short-secret");
    expect(error.message).not.toContain("tttt");
  });

  it("refuses malformed _FILE content", () => {
    const dir = tempDir("data");
    const file = path.join(dir, "s.json");
    for (const content of ["not json", "[]", '{"a": 1}']) {
      fs.writeFileSync(file, content);
      expect(configError({ SERVICE_HMAC_SECRETS_FILE: file }, dir).setting).toBe("SERVICE_HMAC_SECRETS_FILE");
    }
  });
});

describe("bootstrap operator credential", () => {
  it("is generated on first run when no HMAC secret is configured: 0600 JSON file, operator, one-line notice", () => {
    const dir = path.join(tempDir("data"), "nested");
    const config = loadAuthConfig({}, dir);
    const file = path.join(dir, "operator.secret");
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const stored = JSON.parse(fs.readFileSync(file, "utf8")) as { actorId: string; secret: string };
    expect(stored.actorId).toBe("operator");
    expect(stored.secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(config.hmacSecrets.get("operator")).toEqual(Buffer.from(stored.secret));
    expect([...config.operatorActors]).toEqual(["operator"]);
    expect(config.bootstrapNotice).toContain(file);
    expect(config.bootstrapNotice).not.toContain(stored.secret);
    expect(config.bootstrapNotice?.includes("\n")).toBe(false);
    expect(fs.readdirSync(dir)).toEqual(["operator.secret"]);
  });

  it("is loaded (not regenerated) on the next start, without a notice, alongside configured operators", () => {
    const dir = tempDir("data");
    const first = loadAuthConfig({}, dir);
    const second = loadAuthConfig({ SERVICE_OPERATOR_ACTORS: "alice" }, dir);
    expect(second.hmacSecrets.get("operator")).toEqual(first.hmacSecrets.get("operator"));
    expect(second.bootstrapNotice).toBeUndefined();
    expect([...second.operatorActors].sort()).toEqual(["alice", "operator"]);
    // Still loaded when secrets are configured later (delete the file to revoke it).
    const third = loadAuthConfig({ SERVICE_HMAC_SECRETS: `svc=${SECRET}` }, dir);
    expect([...third.hmacSecrets.keys()].sort()).toEqual(["operator", "svc"]);
  });

  it("is not generated when any HMAC secret is configured", () => {
    const dir = tempDir("data");
    loadAuthConfig({ SERVICE_HMAC_SECRETS: `svc=${SECRET}` }, dir);
    expect(fs.existsSync(path.join(dir, "operator.secret"))).toBe(false);
  });

  it("refuses a file readable by group or others, a malformed file, and a clash with a configured actor", () => {
    const dir = tempDir("data");
    loadAuthConfig({}, dir);
    const file = path.join(dir, "operator.secret");
    fs.chmodSync(file, 0o640);
    expect(configError({}, dir).message).toMatch(/must not be accessible by group or others \(chmod 600\)/);
    fs.chmodSync(file, 0o600);
    expect(configError({ SERVICE_HMAC_SECRETS: `operator=${SECRET}` }, dir).message).toMatch(/actor "operator" is also defined by/);
    fs.writeFileSync(file, '{"actorId":"operator"}');
    const error = configError({}, dir);
    expect(error.setting).toBe("operator.secret");
  });
});
