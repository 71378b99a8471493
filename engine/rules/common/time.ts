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

const MS_PER_DAY = 86_400_000;
/** The instants whose year has four digits (0000–9999), which `toISOString` writes without a sign. */
const FIRST_FOUR_DIGIT_YEAR_MS = -62_167_219_200_000;
const FIRST_FIVE_DIGIT_YEAR_MS = 253_402_300_800_000;

/** Days since 1970-01-01 of a proleptic Gregorian date (month 1–12). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

const CHAR_0 = 0x30;
const CHAR_DASH = 0x2d;
const CHAR_T = 0x54;
const CHAR_COLON = 0x3a;
const CHAR_DOT = 0x2e;
const CHAR_Z = 0x5a;

/** The character code of the digit of `n` (a non-negative integer) at `place` (1, 10, 100, 1000). */
function digitAt(n: number, place: number): number {
  return CHAR_0 + (Math.floor(n / place) % 10);
}

/**
 * The last time written and the last read, each with its answer. The commands of one batch share one
 * server time, so a shard writes the same time into every event of a batch, and folds those events
 * reading the same text back, one command after another. Each function gives what it computes from
 * its argument alone, so remembering the last answer changes no result; it saves formatting and
 * parsing the time again for every command (decision I64).
 */
let lastWrittenMs = Number.NaN;
let lastWritten = "";
let lastRead: string | undefined;
let lastReadMs = 0;

/**
 * The one textual form of time the service emits: `YYYY-MM-DDTHH:mm:ss.sssZ`, exactly
 * `Date.prototype.toISOString` of integer epoch milliseconds (every time the engine holds is one).
 */
export function isoFromMs(epochMs: number): string {
  if (epochMs !== lastWrittenMs) {
    lastWritten = formatIso(epochMs);
    lastWrittenMs = epochMs;
  }
  return lastWritten;
}

/**
 * `isoFromMs` computed from the calendar arithmetic (every event and commitment of a command carries
 * times, so no Date object is made for the usual four-digit years).
 */
function formatIso(epochMs: number): string {
  if (epochMs < FIRST_FOUR_DIGIT_YEAR_MS || epochMs >= FIRST_FIVE_DIGIT_YEAR_MS) return new Date(epochMs).toISOString();
  const days = Math.floor(epochMs / MS_PER_DAY);
  let rest = epochMs - days * MS_PER_DAY;
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / MS_PER_MINUTE);
  rest -= minutes * MS_PER_MINUTE;
  const seconds = Math.floor(rest / MS_PER_SECOND);
  const millis = rest - seconds * MS_PER_SECOND;
  // Civil date of `days` (the inverse of daysFromCivil).
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365);
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const monthIndex = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * monthIndex + 2) / 5) + 1;
  const month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  // One string from its 24 character codes: no pieces. Joining pieces with `+` or a template makes
  // V8 keep a rope (an object per piece) that a market keeps for its whole life, and costs more.
  return String.fromCharCode(
    digitAt(year, 1000), digitAt(year, 100), digitAt(year, 10), digitAt(year, 1), CHAR_DASH,
    digitAt(month, 10), digitAt(month, 1), CHAR_DASH, digitAt(day, 10), digitAt(day, 1), CHAR_T,
    digitAt(hours, 10), digitAt(hours, 1), CHAR_COLON, digitAt(minutes, 10), digitAt(minutes, 1), CHAR_COLON,
    digitAt(seconds, 10), digitAt(seconds, 1), CHAR_DOT, digitAt(millis, 100), digitAt(millis, 10), digitAt(millis, 1), CHAR_Z,
  );
}

const NORMALIZED_LENGTH = 24; // YYYY-MM-DDTHH:mm:ss.sssZ

/** Whether `text` has the length and separators of `YYYY-MM-DDTHH:mm:ss.sssZ` (its digits are read after). */
function hasNormalizedSeparators(text: string): boolean {
  return (
    text.length === NORMALIZED_LENGTH &&
    text.charCodeAt(4) === CHAR_DASH && text.charCodeAt(7) === CHAR_DASH && text.charCodeAt(10) === CHAR_T &&
    text.charCodeAt(13) === CHAR_COLON && text.charCodeAt(16) === CHAR_COLON && text.charCodeAt(19) === CHAR_DOT &&
    text.charCodeAt(23) === CHAR_Z
  );
}

/** The number the `digits` characters of `text` from `at` write in decimal, or -1 when one is not a digit. */
function decimalAt(text: string, at: number, digits: number): number {
  let value = 0;
  for (let i = at; i < at + digits; i += 1) {
    const digit = text.charCodeAt(i) - CHAR_0;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return value;
}

/**
 * Epoch milliseconds of a time this engine wrote (`isoFromMs` output, e.g. an event's `occurredAt`),
 * read digit by digit; anything else goes through `parseDateTimeMs`. Either way the answer is
 * `parseDateTimeMs`'s.
 */
export function msOfNormalized(text: string): number {
  if (text !== lastRead) {
    lastReadMs = readMs(text);
    lastRead = text;
  }
  return lastReadMs;
}

/** `msOfNormalized` read from the text, its fields in place (no array or iterator per call). */
function readMs(text: string): number {
  if (hasNormalizedSeparators(text)) {
    const year = decimalAt(text, 0, 4);
    const month = decimalAt(text, 5, 2);
    const day = decimalAt(text, 8, 2);
    const hours = decimalAt(text, 11, 2);
    const minutes = decimalAt(text, 14, 2);
    const seconds = decimalAt(text, 17, 2);
    const millis = decimalAt(text, 20, 3);
    if (
      year >= 0 && month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month) &&
      hours >= 0 && hours <= 23 && minutes >= 0 && minutes <= 59 && seconds >= 0 && seconds <= 59 && millis >= 0
    ) {
      return daysFromCivil(year, month, day) * MS_PER_DAY + hours * 3_600_000 + minutes * MS_PER_MINUTE + seconds * MS_PER_SECOND + millis;
    }
  }
  const ms = parseDateTimeMs(text);
  assert(ms !== undefined, "engine times are normalized");
  return ms;
}

export function addSeconds(epochMs: number, seconds: number): number {
  return epochMs + seconds * MS_PER_SECOND;
}

/** True when `epochMs` is an instant `toISOString` can render (±8.64e15 ms), as an integer. */
export function isValidEpochMs(epochMs: number): boolean {
  return Number.isSafeInteger(epochMs) && Math.abs(epochMs) <= 8.64e15;
}
