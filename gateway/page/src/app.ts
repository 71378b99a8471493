/**
 * The live market page (docs/live-page.md): a market id and a bearer token in, the market as it
 * changes out. It reads the market once (`GET /v1/markets/{id}`), then follows its event stream
 * from the first event, folding both into a `MarketView` and rendering that.
 *
 * The token is kept in this tab only (memory and sessionStorage, which the browser clears when the
 * tab closes), sent as the Authorization header and nowhere else: never in a URL, never logged.
 * The inputs have no `name`, so even a form submitted without this script sends nothing.
 */
import { remainingText } from "./countdown.js";
import { readMarket } from "./market-read.js";
import { type ConnectionStatus, StreamRefused, watchMarketEvents } from "./market-stream.js";
import { MarketView } from "./market-view.js";
import { formatMinorUnits } from "./money.js";

const TOKEN_KEY = "market-service.live-page.token";
const MARKET_KEY = "market-service.live-page.market";

function element<T extends HTMLElement>(id: string, type: { new (): T }): T {
  const found = document.getElementById(id);
  if (!(found instanceof type)) throw new Error(`the page has no #${id}`);
  return found;
}

const ui = {
  form: element("connect", HTMLFormElement),
  marketId: element("market-id", HTMLInputElement),
  token: element("token", HTMLInputElement),
  stop: element("stop", HTMLButtonElement),
  forget: element("forget", HTMLButtonElement),
  status: element("status", HTMLElement),
  market: element("market", HTMLElement),
  marketName: element("market-name", HTMLElement),
  marketState: element("market-state", HTMLElement),
  marketVersion: element("market-version", HTMLElement),
  eventCount: element("event-count", HTMLElement),
  lastSequence: element("last-sequence", HTMLElement),
  capacitySection: element("capacity-section", HTMLElement),
  allocated: element("allocated", HTMLElement),
  capacity: element("capacity", HTMLElement),
  capacityBar: element("capacity-bar", HTMLProgressElement),
  auctionSection: element("auction-section", HTMLElement),
  closesAt: element("closes-at", HTMLTimeElement),
  countdown: element("countdown", HTMLElement),
  bidCount: element("bid-count", HTMLElement),
  result: element("result", HTMLElement),
  commitmentCount: element("commitment-count", HTMLElement),
  commitments: element("commitments", HTMLTableSectionElement),
  noCommitments: element("no-commitments", HTMLElement),
};

/** The market being watched; replaced on every Watch. */
interface Session {
  readonly marketId: string;
  readonly token: string;
  readonly controller: AbortController;
  readonly view: MarketView;
  refetching: boolean;
  refetchAgain: boolean;
}

let session: Session | undefined;
let renderQueued = false;

function showStatus(status: ConnectionStatus | { state: "idle" | "loading" }): void {
  ui.status.dataset["state"] = status.state;
  switch (status.state) {
    case "idle":
      ui.status.textContent = "Not connected";
      break;
    case "loading":
      ui.status.textContent = "Reading the market…";
      break;
    case "connecting":
      ui.status.textContent = "Connecting to the event stream…";
      break;
    case "live":
      ui.status.textContent = "Live: events arrive as they are committed";
      break;
    case "reconnecting":
      ui.status.textContent = `Reconnecting (${status.reason}); resuming after the last event seen`;
      break;
    case "error":
      ui.status.dataset["code"] = status.code;
      ui.status.textContent = `Error ${status.code}: ${status.message}`;
      return;
  }
  delete ui.status.dataset["code"];
}

/** Coalesces renders to one per frame: a claim storm delivers events far faster than a screen shows them. */
function scheduleRender(): void {
  if (renderQueued) return;
  renderQueued = true;
  requestAnimationFrame(() => {
    renderQueued = false;
    render();
  });
}

function render(): void {
  const view = session?.view;
  if (view === undefined || view.marketId === "") {
    ui.market.hidden = true;
    return;
  }
  ui.market.hidden = false;
  ui.marketName.textContent = view.marketId;
  ui.marketState.textContent = view.state;
  ui.marketVersion.textContent = String(view.version);
  ui.eventCount.textContent = String(view.eventCount);
  ui.lastSequence.textContent = String(view.lastSequence);

  ui.capacitySection.hidden = view.kind !== "direct-claim";
  if (view.kind === "direct-claim") {
    ui.allocated.textContent = view.allocated === undefined ? "?" : String(view.allocated);
    ui.capacity.textContent = view.capacity === undefined ? "?" : String(view.capacity);
    ui.capacityBar.max = view.capacity ?? 1;
    ui.capacityBar.value = view.allocated ?? 0;
  }

  ui.auctionSection.hidden = view.kind !== "auction";
  if (view.kind === "auction") {
    ui.closesAt.textContent = view.closesAt ?? "?";
    ui.closesAt.dateTime = view.closesAt ?? "";
    ui.bidCount.textContent = view.bidCount === undefined ? "?" : String(view.bidCount);
    renderCountdown();
    const result = view.result;
    ui.result.dataset["outcome"] = result?.outcome ?? "";
    if (result === undefined) ui.result.textContent = "Not resolved yet.";
    else if (result.outcome === "winner_selected") {
      const price = result.clearingPrice === undefined ? "" : ` at ${formatMinorUnits(result.clearingPrice.amountMinor, result.clearingPrice.currency)} (the second price)`;
      const winner = result.winnerPrincipalId === undefined ? "" : ` to ${result.winnerPrincipalId}`;
      ui.result.textContent = `Resolved: winner selected${winner}${price}; winning bid ${result.winningBidId ?? "(not shown to this token)"}.`;
    } else if (result.outcome === "no_trade") ui.result.textContent = "Resolved: no trade (no eligible bid).";
    else ui.result.textContent = `Resolved: ${result.outcome}.`;
  }

  ui.commitmentCount.textContent = `(${view.commitmentCount})`;
  const rows = view.commitmentRows();
  ui.noCommitments.hidden = rows.length > 0;
  const fragment = document.createDocumentFragment();
  for (const row of rows) {
    const tr = document.createElement("tr");
    const cells: Array<[label: string, text: string]> = [
      ["Commitment", row.id],
      ["State", row.state],
      ["Claimant", row.claimant ?? "not shown to this token"],
      ["Changed at", row.updatedAt],
    ];
    for (const [label, text] of cells) {
      const td = document.createElement("td");
      // The column's name, shown before the value where a narrow screen stacks the cells (style.css).
      td.dataset["label"] = label;
      td.textContent = text;
      tr.append(td);
    }
    tr.dataset["state"] = row.state;
    fragment.append(tr);
  }
  ui.commitments.replaceChildren(fragment);
}

function renderCountdown(): void {
  const view = session?.view;
  if (view === undefined || view.kind !== "auction") return;
  if (view.result !== undefined) ui.countdown.textContent = "closed";
  else if (view.closesAt === undefined) ui.countdown.textContent = "?";
  else ui.countdown.textContent = remainingText(view.closesAt, Date.now()) ?? "closing: waiting for the result";
}

/** Reads the market again after an event whose effect its data does not carry; one read at a time. */
async function refetchMarket(current: Session): Promise<void> {
  if (current.refetching) {
    current.refetchAgain = true;
    return;
  }
  current.refetching = true;
  try {
    do {
      current.refetchAgain = false;
      const read = await readMarket(current.marketId, current.token);
      if (current.controller.signal.aborted) return;
      if (read.ok) current.view.applyMarket(read.body);
      scheduleRender();
    } while (current.refetchAgain);
  } finally {
    current.refetching = false;
  }
}

async function watch(marketId: string, token: string): Promise<void> {
  session?.controller.abort();
  const current: Session = { marketId, token, controller: new AbortController(), view: new MarketView(), refetching: false, refetchAgain: false };
  session = current;
  ui.stop.disabled = false;
  render();
  showStatus({ state: "loading" });
  const read = await readMarket(marketId, token);
  if (current.controller.signal.aborted) return;
  if (!read.ok) {
    showStatus({ state: "error", code: read.code, message: read.message });
    ui.stop.disabled = true;
    return;
  }
  try {
    current.view.applyMarket(read.body);
  } catch (error) {
    showStatus({ state: "error", code: "unreadable_market", message: error instanceof Error ? error.message : String(error) });
    return;
  }
  render();
  const onStatus = (status: ConnectionStatus): void => {
    if (!current.controller.signal.aborted) showStatus(status);
  };
  try {
    for await (const event of watchMarketEvents({ marketId, token, afterSequence: current.view.lastSequence, signal: current.controller.signal, onStatus })) {
      if (current.view.applyEvent(event) === "refetch-market") void refetchMarket(current);
      scheduleRender();
    }
  } catch (error) {
    // A refusal was reported as the error status already; anything else is a bug of this page.
    if (!(error instanceof StreamRefused)) showStatus({ state: "error", code: "page_error", message: error instanceof Error ? error.message : String(error) });
  }
}

function stop(): void {
  session?.controller.abort();
  ui.stop.disabled = true;
  showStatus({ state: "idle" });
}

ui.form.addEventListener("submit", (submit) => {
  submit.preventDefault();
  const marketId = ui.marketId.value.trim();
  const token = ui.token.value.trim();
  if (marketId === "" || token === "") return;
  sessionStorage.setItem(TOKEN_KEY, token);
  sessionStorage.setItem(MARKET_KEY, marketId);
  void watch(marketId, token);
});
ui.stop.addEventListener("click", stop);
ui.forget.addEventListener("click", () => {
  sessionStorage.removeItem(TOKEN_KEY);
  ui.token.value = "";
  stop();
});
setInterval(renderCountdown, 250);

ui.marketId.value = sessionStorage.getItem(MARKET_KEY) ?? "";
ui.token.value = sessionStorage.getItem(TOKEN_KEY) ?? "";
showStatus({ state: "idle" });
document.documentElement.dataset["ready"] = "true";
