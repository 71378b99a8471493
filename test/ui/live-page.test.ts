/**
 * The live market page (docs/live-page.md) in a real browser: Debian's Chromium (headless, installed
 * by scripts/fetch-chromium.sh) driven by playwright-core, against the real service on a loopback
 * port (test/http-api/support/harness.ts: uWS, shard workers, durable logs in a temp dir, a
 * ManualClock). The test acts through the API as a person's other tabs would (create, publish, claim,
 * bid) and reads what the page shows; the auction closes when the test moves the service's clock.
 * A screenshot of each page goes to the test's temporary directory (its path is printed).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auctionMechanism, directClaimMechanism, Harness, openMarket, uid, type Principal } from "../http-api/support/harness.js";
import { freePort } from "../../scripts/free-port.js";

const CHROMIUM = "/usr/bin/chromium";
/**
 * Flags for a headless Chromium on a closed network: without the background-networking ones it
 * tries Google's hosts at every start. `--no-sandbox`:
 * the tests run as root, where Chromium's sandbox refuses to start.
 */
const CHROMIUM_FLAGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
/** Bound on every wait for the page: an event, not a deadline (never reached when the page works). */
const PAGE_WAIT_MS = 15_000;

let h: Harness;
let browser: Browser;
let alice: Principal; // creator
let bob: Principal;
let carol: Principal; // bob and carol bid
let shots: string;

beforeAll(async () => {
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(`Chromium is not installed at ${CHROMIUM}: run scripts/fetch-chromium.sh (Debian's chromium package; npm test runs it first)`);
  }
  shots = fs.mkdtempSync(path.join(os.tmpdir(), "live-page-"));
  // The service's clock starts at the real time, so the auction's countdown (the browser's clock) is sensible.
  // A fixed port: the restart test starts the service again where the page reconnects.
  h = await Harness.start({ startMs: Math.floor(Date.now() / 1000) * 1000, env: { PORT: String(await freePort()) } });
  [alice, bob, carol] = await h.principals("alice", "bob", "carol");
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_FLAGS, timeout: 60_000 });
});

afterAll(async () => {
  await browser?.close();
  await h?.close();
  if (shots !== undefined) process.stdout.write(`live page screenshots: ${shots}\n`);
});

interface Watched {
  page: Page;
  /** Every URL the page requested, to show no token is ever in one. */
  urls: string[];
  /** What the page printed to its console and its uncaught errors. */
  problems: string[];
}

/** Opens the page, pastes `marketId` and `token`, presses Watch. */
async function watch(marketId: string, token: string): Promise<Watched> {
  const context = await browser.newContext({ viewport: { width: 900, height: 1000 } });
  const page = await context.newPage();
  page.setDefaultTimeout(PAGE_WAIT_MS);
  const urls: string[] = [];
  const problems: string[] = [];
  page.on("request", (request) => urls.push(request.url()));
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("console", (message) => {
    if (message.type() === "error" || message.type() === "warning") problems.push(`console ${message.type()}: ${message.text()}`);
  });
  const response = await page.goto(`${h.url}/`);
  expect(response?.status()).toBe(200);
  await page.waitForSelector("html[data-ready='true']");
  await page.getByLabel("Market id").fill(marketId);
  await page.getByLabel("Bearer token").fill(token);
  await page.getByRole("button", { name: "Watch" }).click();
  return { page, urls, problems };
}

async function textOf(page: Page, selector: string): Promise<string> {
  return ((await page.textContent(selector)) ?? "").trim();
}

/** Waits until `selector`'s text is `expected` (bounded by PAGE_WAIT_MS); fails showing what it was. */
async function waitForText(page: Page, selector: string, expected: string | RegExp): Promise<void> {
  try {
    await page.waitForFunction(
      ([sel, source, flags]) => {
        // Runs in the page; this file is type-checked without the DOM's types.
        const { document } = globalThis as unknown as { document: { querySelector(selector: string): { textContent: string | null } | null } };
        const text = document.querySelector(sel)?.textContent?.trim() ?? "";
        return flags === null ? text === source : new RegExp(source, flags).test(text);
      },
      [selector, typeof expected === "string" ? expected : expected.source, typeof expected === "string" ? null : expected.flags] as const,
    );
  } catch (error) {
    throw new Error(`${selector} did not show ${String(expected)}: it shows ${JSON.stringify(await textOf(page, selector))}; status: ${JSON.stringify(await textOf(page, "#status"))}\n${String(error)}`);
  }
}

async function claim(who: Principal, marketId: string): Promise<void> {
  const response = await h.post(`/v1/markets/${encodeURIComponent(marketId)}/direct-claims`, { commandId: uid("claim"), principalId: who.id }, who.auth);
  expect(response.status, response.text).toBe(200);
}

/** The winning bid's id, from the market as its creator reads it. */
async function winningBidId(marketId: string): Promise<string> {
  const market = await h.get(`/v1/markets/${encodeURIComponent(marketId)}`, alice.auth);
  return market.body.mechanismState.winningBidId as string;
}

/**
 * At this width no visible word is split across two lines (each word's text range has one box) and
 * nothing is wider than the screen. Ids may wrap (they are not words), but the ones here fit.
 */
async function expectReadableAtWidth(page: Page, width: number): Promise<void> {
  const found = await page.evaluate(() => {
    // Runs in the page; this file is type-checked without the DOM's types.
    interface TextNode {
      textContent: string | null;
      parentElement: { closest(selector: string): unknown } | null;
    }
    const { document, window } = globalThis as unknown as {
      document: {
        body: unknown;
        documentElement: { scrollWidth: number };
        createTreeWalker(root: unknown, what: number): { nextNode(): TextNode | null };
        createRange(): { setStart(node: TextNode, offset: number): void; setEnd(node: TextNode, offset: number): void; getClientRects(): { length: number } };
      };
      window: { innerWidth: number };
    };
    const split: string[] = [];
    const walker = document.createTreeWalker(document.body, 4 /* NodeFilter.SHOW_TEXT */);
    for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
      if (node.parentElement?.closest("[hidden], .visually-hidden, script, style") !== null) continue;
      const text = node.textContent ?? "";
      for (const match of text.matchAll(/\S+/g)) {
        const range = document.createRange();
        range.setStart(node, match.index ?? 0);
        range.setEnd(node, (match.index ?? 0) + match[0].length);
        if (range.getClientRects().length > 1) split.push(match[0]);
      }
    }
    return { split, scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth };
  });
  expect(found.innerWidth).toBe(width);
  expect(found.split, "words split across lines").toEqual([]);
  expect(found.scrollWidth).toBeLessThanOrEqual(width);
}

function expectNoTokenInUrls(watched: Watched, tokens: readonly string[]): void {
  expect(watched.urls.length).toBeGreaterThan(0);
  for (const url of watched.urls) for (const token of tokens) expect(url).not.toContain(token);
}

describe("the live page in Chromium", () => {
  it("shows a direct-claim market's capacity filling as claims are committed, and its commitments", async () => {
    const marketId = uid("storm");
    await openMarket(h, alice, marketId, directClaimMechanism({ capacity: 10 }));
    const watched = await watch(marketId, alice.auth.token);
    const { page } = watched;
    await waitForText(page, "#status", /^Live/);
    expect(await page.getAttribute("#status", "data-state")).toBe("live");
    await waitForText(page, "#capacity", "10");
    await waitForText(page, "#allocated", "0");

    // Claims through the API, each one acknowledged (durable) before the next; new claimants on
    // every attempt (vitest retries a failed test, and a principal claims a market once).
    const claimants = await Promise.all([1, 2, 3, 4].map(() => h.principal(uid("claimant"))));
    for (const who of claimants) await claim(who, marketId);
    await waitForText(page, "#allocated", String(claimants.length));
    expect(await page.getAttribute("#capacity-bar", "value")).toBe(String(claimants.length));
    // The creator sees every claim's commitment.
    await waitForText(page, "#commitment-count", `(${claimants.length})`);
    expect(await page.locator("#commitments tr").count()).toBe(claimants.length);
    await page.screenshot({ path: path.join(shots, "direct-claim.png"), fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await expectReadableAtWidth(page, 390);
    await page.screenshot({ path: path.join(shots, "direct-claim-390.png"), fullPage: true });
    await page.setViewportSize({ width: 900, height: 1000 });

    // One more, after the page has settled: the count moves again, to the exact number.
    await claim(await h.principal(uid("claimant")), marketId);
    await waitForText(page, "#allocated", String(claimants.length + 1));
    expect(await textOf(page, "#market-state")).toBe("open");

    expectNoTokenInUrls(watched, [alice.auth.token]);
    expect(page.url()).toBe(`${h.url}/`);
    expect(watched.problems).toEqual([]);
    await page.context().close();
  });

  it("shows another principal the public view: capacity filling to the exact number, no commitment of anyone else", async () => {
    const marketId = uid("public");
    await openMarket(h, alice, marketId, directClaimMechanism({ capacity: 3 }));
    const watched = await watch(marketId, bob.auth.token); // bob is not the creator
    const { page } = watched;
    await waitForText(page, "#status", /^Live/);
    await waitForText(page, "#allocated", "0");
    for (let i = 0; i < 3; i++) await claim(await h.principal(uid("claimant")), marketId);
    await waitForText(page, "#allocated", "3");
    await waitForText(page, "#market-state", "closed"); // the last capacity closes the market
    expect(await textOf(page, "#commitment-count")).toBe("(0)");
    expect(await page.isVisible("#no-commitments")).toBe(true);
    expectNoTokenInUrls(watched, [bob.auth.token]);
    expect(watched.problems).toEqual([]);
    await page.context().close();
  });

  it("counts an auction down by the browser's clock and shows the result once the service's clock closes it", async () => {
    const marketId = uid("auction");
    // Ten minutes by the service's clock, which started at the real time: about ten by the browser's.
    await openMarket(h, alice, marketId, auctionMechanism({ closesAt: h.isoIn(600_000), currency: "EUR" }));
    const watched = await watch(marketId, alice.auth.token);
    const { page } = watched;
    await waitForText(page, "#status", /^Live/);
    await waitForText(page, "#countdown", /^(0\d|10):\d\d$/);
    await waitForText(page, "#result", "Not resolved yet.");

    for (const [who, amountMinor] of [[bob, 12_000], [carol, 9_000]] as const) {
      const response = await h.post(`/v1/markets/${encodeURIComponent(marketId)}/sealed-bids`, { commandId: uid("bid"), principalId: who.id, amountMinor, currency: "EUR" }, who.auth);
      expect(response.status, response.text).toBe(200);
    }
    await waitForText(page, "#bid-count", "2");
    // No bid amount reaches the page while the auction is open.
    const openText = (await page.textContent("body")) ?? "";
    expect(openText).not.toContain("12000");
    expect(openText).not.toContain("9000");
    await page.screenshot({ path: path.join(shots, "auction-open.png"), fullPage: true });

    // The close: the service's clock passes closesAt and its shards resolve the auction.
    h.advance(600_000 + 1_000);
    await waitForText(page, "#result", /^Resolved: winner selected/);
    expect(await page.getAttribute("#result", "data-outcome")).toBe("winner_selected");
    // The second price, 9000 minor units of EUR, as a person reads it.
    expect(await textOf(page, "#result")).toBe(`Resolved: winner selected to bob at 90.00 EUR (the second price); winning bid ${await winningBidId(marketId)}.`);
    await waitForText(page, "#countdown", "closed");
    // The winner's commitment names its claimant.
    await waitForText(page, "#commitment-count", "(1)");
    expect(await page.locator("#commitments td").allTextContents()).toEqual([expect.stringMatching(/^c\./), "awaiting_confirmations", "bob", expect.stringMatching(/^\d{4}-/)]);
    await page.screenshot({ path: path.join(shots, "auction-resolved.png"), fullPage: true });
    // On a phone's width: every word whole, nothing wider than the screen.
    await page.setViewportSize({ width: 390, height: 844 });
    await expectReadableAtWidth(page, 390);
    await page.screenshot({ path: path.join(shots, "auction-resolved-390.png"), fullPage: true });

    expectNoTokenInUrls(watched, [alice.auth.token]);
    expect(watched.problems).toEqual([]);
    await page.context().close();
  });

  it("shows Reconnecting while the service restarts, then resumes after the last event it showed: nothing missed, nothing twice", async () => {
    const marketId = uid("restart");
    await openMarket(h, alice, marketId, directClaimMechanism({ capacity: 5 }));
    const watched = await watch(marketId, alice.auth.token);
    const { page } = watched;
    await waitForText(page, "#status", /^Live/);
    // Every state the status passes through, however briefly (a wait that polls could miss one).
    await page.evaluate(() => {
      const { document, MutationObserver } = globalThis as unknown as {
        document: { querySelector(selector: string): { dataset: Record<string, string | undefined> } | null; documentElement: { dataset: Record<string, string | undefined> } };
        MutationObserver: new (callback: () => void) => { observe(target: unknown, options: { attributes: boolean }): void };
      };
      const status = document.querySelector("#status");
      const seen: string[] = [];
      new MutationObserver(() => {
        seen.push(status?.dataset["state"] ?? "");
        document.documentElement.dataset["statusHistory"] = seen.join(" ");
      }).observe(status, { attributes: true });
    });
    await claim(await h.principal(uid("claimant")), marketId);
    await waitForText(page, "#allocated", "1");

    await h.restart(); // same port, same data directory
    await claim(await h.principal(uid("claimant")), marketId);
    await waitForText(page, "#allocated", "2");
    await waitForText(page, "#status", /^Live/);
    const history = (await page.getAttribute("html", "data-status-history")) ?? "";
    expect(history).toMatch(/reconnecting.*live/);
    // The market's events, each shown once: created, published, two claims (accepted + committed each).
    expect(await textOf(page, "#event-count")).toBe(await textOf(page, "#last-sequence"));
    await waitForText(page, "#commitment-count", "(2)");
    expectNoTokenInUrls(watched, [alice.auth.token]);
    await page.context().close();
  });

  it("reports a refused token as an error with its code, and an unknown market likewise", async () => {
    const marketId = uid("m");
    await openMarket(h, alice, marketId, directClaimMechanism({ capacity: 1 }));
    const refused = await watch(marketId, "not-a-token-0123456789");
    await waitForText(refused.page, "#status", /^Error unauthenticated/);
    expect(await refused.page.getAttribute("#status", "data-code")).toBe("unauthenticated");
    expectNoTokenInUrls(refused, ["not-a-token-0123456789"]);
    await refused.page.context().close();

    const unknown = await watch("no-such-market", alice.auth.token);
    await waitForText(unknown.page, "#status", /^Error market_not_found/);
    expect(await unknown.page.isHidden("#market")).toBe(true);
    await unknown.page.context().close();
  });
});
