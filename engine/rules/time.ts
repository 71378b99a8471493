/**
 * Time as data. The engine never reads a clock: commands carry `occurredAtMs`, and the only time
 * functions here convert between RFC 3339 text and epoch milliseconds, deterministically.
 */
import { assert } from "./assert.js";

const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

const MS_PER_MINUTE = 60_000;
const MS_PER_SECOND = 1_000;

function daysInMonth(year: number, month: number): number {
  if (month === 2) {
    const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
    return leap ? 29 : 28;
  }
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/**
 * Strict RFC 3339 parse to epoch milliseconds; `undefined` for anything that is not a real calendar
 * instant (`Date.parse` would accept `2026-02-31` as 3 March). Fractions beyond milliseconds are
 * truncated, and a leap second (`:60`) is refused.
 */
export function parseDateTimeMs(text: string): number | undefined {
  const m = RFC3339.exec(text);
  if (m === null) return undefined;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  const hour = Number(m[4]);
  const minute = Number(m[5]);
  const second = Number(m[6]);
  const fractionMs = m[7] === undefined ? 0 : Number(m[7].slice(0, 3).padEnd(3, "0"));
  if (month < 1 || month > 12) return undefined;
  if (day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  let offsetMinutes = 0;
  if (m[8] === undefined) {
    const offsetHours = Number(m[10]);
    const offsetMins = Number(m[11]);
    if (offsetHours > 23 || offsetMins > 59) return undefined;
    offsetMinutes = (m[9] === "-" ? -1 : 1) * (offsetHours * 60 + offsetMins);
  }
  // Date.UTC maps years 0..99 to 1900..1999, so set the full year explicitly.
  const instant = new Date(0);
  instant.setUTCFullYear(year, month - 1, day);
  instant.setUTCHours(hour, minute, second, fractionMs);
  const ms = instant.getTime() - offsetMinutes * MS_PER_MINUTE;
  return Number.isFinite(ms) ? ms : undefined;
}

let cachedSecond = Number.NaN;
let cachedPrefix = "";
let cachedMs = Number.NaN;
let cachedIso = "";

/**
 * The one textual form of time the service emits: `YYYY-MM-DDTHH:mm:ss.sssZ` (exactly
 * `Date.prototype.toISOString`). Commands arrive in bursts within one second, so the text up to the
 * second is remembered and only the milliseconds are appended: a pure cache, 10× cheaper than
 * formatting a Date per event.
 */
export function isoFromMs(epochMs: number): string {
  // A batch stamps one time on all its commands: every commitment and event of it shares one string.
  if (epochMs === cachedMs) return cachedIso;
  const second = Math.floor(epochMs / MS_PER_SECOND);
  if (second !== cachedSecond) {
    const iso = new Date(second * MS_PER_SECOND).toISOString();
    cachedPrefix = iso.slice(0, iso.length - 5); // drop ".000Z"
    cachedSecond = second;
  }
  const milli = epochMs - second * MS_PER_SECOND;
  cachedIso = `${cachedPrefix}${milli < 10 ? ".00" : milli < 100 ? ".0" : "."}${milli}Z`;
  cachedMs = epochMs;
  return cachedIso;
}

let parsedText = "";
let parsedMs = 0;
/** `YYYY-MM-DDTHH:mm:ss` of the last full parse, and the epoch milliseconds of that second. */
let parsedSecondText = "";
let parsedSecondMs = 0;
const NORMALIZED_LENGTH = 24; // YYYY-MM-DDTHH:mm:ss.sssZ
const SECOND_TEXT_LENGTH = 19;

/** The three digits of `.sssZ` at the end of a normalized time, or -1 when they are not there. */
function normalizedMillis(text: string): number {
  if (text.length !== NORMALIZED_LENGTH || text.charCodeAt(19) !== 46 /* . */ || text.charCodeAt(23) !== 90 /* Z */) return -1;
  let millis = 0;
  for (let i = 20; i < 23; i += 1) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return -1;
    millis = millis * 10 + digit;
  }
  return millis;
}

/**
 * Epoch milliseconds of a time this engine wrote (`isoFromMs` output, e.g. an event's `occurredAt`).
 * The events of one batch share their text, so the last parse is remembered; and times of one
 * second share their first 19 characters, so a time within the second of the last full parse only
 * needs its milliseconds read (a record's events are milliseconds apart when its market shares
 * batches with others). Pure caches: the answer is `parseDateTimeMs`'s.
 */
export function msOfNormalized(text: string): number {
  if (text === parsedText) return parsedMs;
  const millis = normalizedMillis(text);
  let ms: number | undefined;
  if (millis >= 0 && parsedSecondText !== "" && text.startsWith(parsedSecondText)) {
    ms = parsedSecondMs + millis;
  } else {
    ms = parseDateTimeMs(text);
    assert(ms !== undefined, "engine times are normalized");
    if (millis >= 0) {
      parsedSecondText = text.slice(0, SECOND_TEXT_LENGTH);
      parsedSecondMs = ms - millis;
    }
  }
  parsedText = text;
  parsedMs = ms;
  return ms;
}

export function addSeconds(epochMs: number, seconds: number): number {
  return epochMs + seconds * MS_PER_SECOND;
}

/** True when `epochMs` is an instant `toISOString` can render (±8.64e15 ms), as an integer. */
export function isValidEpochMs(epochMs: number): boolean {
  return Number.isSafeInteger(epochMs) && Math.abs(epochMs) <= 8.64e15;
}
