/**
 * Number literals. JSON.parse rounds what a double cannot hold, and a signed body must not mean
 * something other than what it says, so:
 * - an integer value beyond ±(2^53 − 1) is refused (`9007199254740993` would become ...992, and
 *   `1e300` is an integer no int64 field can hold exactly);
 * - a number beyond the double range is refused (`1e400` would become Infinity), and so is a
 *   non-zero literal that underflows to 0 (`1e-400`);
 * - other non-integers are ordinary doubles (`0.1` is accepted);
 * - `-0` is accepted and noted (`sawNegativeZero`), and returned as 0: JSON output has no negative
 *   zero anyway, and keeping it would let two byte-different logs record the same request.
 */
import { CHAR_0, CHAR_1, CHAR_9, CHAR_DOT, CHAR_E_LOWER, CHAR_E_UPPER, CHAR_MINUS, CHAR_PLUS, isDigit } from "./chars.js";
import { pathTo, syntaxError } from "./messages.js";
import { JsonRefusal, type ScanState } from "./scan-state.js";

/** An integer part with at most this many digits is always below 2^53 (which has 16). */
const ALWAYS_SAFE_INTEGER_DIGITS = 15;
/** A non-zero fraction with at most this many digits is ≥ 1e-300, well above the smallest double. */
const NEVER_UNDERFLOWING_FRACTION_DIGITS = 300;

/** Advances past a number literal (cursor on its '-' or first digit) and applies the rules above. */
export function scanNumber(s: ScanState, depth: number): void {
  const source = s.text;
  const start = s.pos;
  const negative = source.charCodeAt(start) === CHAR_MINUS;
  const integerStart = negative ? start + 1 : start;
  // Integer part: `0`, or a non-zero digit and any digits after it (no leading zeros).
  let p = integerStart;
  let c = source.charCodeAt(p);
  if (c === CHAR_0) p++;
  else if (c >= CHAR_1 && c <= CHAR_9) p = skipDigits(source, p);
  else throw syntaxAt(s, p, "expected a digit", depth);
  const integerDigits = p - integerStart;
  // Fraction: an optional `.digits`.
  let fractionStart = p;
  if (source.charCodeAt(p) === CHAR_DOT) {
    fractionStart = ++p;
    if (!isDigit(source.charCodeAt(p))) throw syntaxAt(s, p, "expected a digit after '.'", depth);
    p = skipDigits(source, p);
  }
  const fractionEnd = p;
  // Exponent: an optional `e`/`E`, sign and digits.
  c = source.charCodeAt(p);
  const hasExponent = c === CHAR_E_LOWER || c === CHAR_E_UPPER;
  if (hasExponent) {
    c = source.charCodeAt(++p);
    if (c === CHAR_PLUS || c === CHAR_MINUS) c = source.charCodeAt(++p);
    if (!isDigit(c)) throw syntaxAt(s, p, "expected a digit in the exponent", depth);
    p = skipDigits(source, p);
  }
  s.pos = p;
  const fractionDigits = fractionEnd - fractionStart;
  if (!hasExponent && integerDigits <= ALWAYS_SAFE_INTEGER_DIGITS && fractionDigits <= NEVER_UNDERFLOWING_FRACTION_DIGITS) {
    // No conversion needed: |value| < 1e15 (finite, and an integer value is safe), and a non-zero
    // fraction this short cannot underflow. Only -0 needs a note.
    const zeroIntegerPart = integerDigits === 1 && source.charCodeAt(integerStart) === CHAR_0;
    if (negative && zeroIntegerPart && allZeroDigits(source, fractionStart, fractionEnd)) s.sawNegativeZero = true;
    return;
  }
  checkConverted(s, depth, source.slice(start, p), negative);
}

/** The position after the run of digits starting at `p` (a digit). */
function skipDigits(source: string, p: number): number {
  do p++;
  while (isDigit(source.charCodeAt(p)));
  return p;
}

function syntaxAt(s: ScanState, p: number, expectation: string, depth: number): JsonRefusal {
  s.pos = p;
  return syntaxError(s, expectation, depth);
}

/** The rules for a literal whose value needs the conversion to be judged. */
function checkConverted(s: ScanState, depth: number, literal: string, negative: boolean): void {
  const value = Number(literal);
  if (!Number.isFinite(value)) throw new JsonRefusal(`number at ${pathTo(s, depth)} is out of range`);
  if (Number.isInteger(value) && !Number.isSafeInteger(value)) {
    throw new JsonRefusal(
      `number at ${pathTo(s, depth)} cannot be represented exactly: integers must be between -9007199254740991 and 9007199254740991`,
    );
  }
  if (value === 0) {
    if (hasNonZeroMantissaDigit(literal)) throw new JsonRefusal(`number at ${pathTo(s, depth)} is too small (it would round to 0)`);
    if (negative) s.sawNegativeZero = true;
  }
}

function allZeroDigits(source: string, from: number, to: number): boolean {
  for (let k = from; k < to; k++) if (source.charCodeAt(k) !== CHAR_0) return false;
  return true;
}

/** Whether a digit before the exponent is not 0, i.e. the literal does not mean zero. */
function hasNonZeroMantissaDigit(literal: string): boolean {
  for (let k = 0; k < literal.length; k++) {
    const c = literal.charCodeAt(k);
    if (c === CHAR_E_LOWER || c === CHAR_E_UPPER) return false;
    if (c >= CHAR_1 && c <= CHAR_9) return true;
  }
  return false;
}
