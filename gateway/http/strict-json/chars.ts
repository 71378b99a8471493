/**
 * The character codes the scanner compares against. The scanner reads the text with
 * `charCodeAt` (a number, no one-character strings), so it names the codes here.
 */
export const CHAR_TAB = 0x09;
export const CHAR_LF = 0x0a;
export const CHAR_CR = 0x0d;
export const CHAR_SPACE = 0x20;
export const CHAR_QUOTE = 0x22;
export const CHAR_PLUS = 0x2b;
export const CHAR_COMMA = 0x2c;
export const CHAR_MINUS = 0x2d;
export const CHAR_DOT = 0x2e;
export const CHAR_SLASH = 0x2f;
export const CHAR_0 = 0x30;
export const CHAR_1 = 0x31;
export const CHAR_9 = 0x39;
export const CHAR_COLON = 0x3a;
export const CHAR_A_UPPER = 0x41;
export const CHAR_E_UPPER = 0x45;
export const CHAR_F_UPPER = 0x46;
export const CHAR_LEFT_BRACKET = 0x5b;
export const CHAR_BACKSLASH = 0x5c;
export const CHAR_RIGHT_BRACKET = 0x5d;
export const CHAR_A_LOWER = 0x61;
export const CHAR_B_LOWER = 0x62;
export const CHAR_E_LOWER = 0x65;
export const CHAR_F_LOWER = 0x66;
export const CHAR_N_LOWER = 0x6e;
export const CHAR_R_LOWER = 0x72;
export const CHAR_T_LOWER = 0x74;
export const CHAR_U_LOWER = 0x75;
export const CHAR_LEFT_BRACE = 0x7b;
export const CHAR_RIGHT_BRACE = 0x7d;

export function isDigit(c: number): boolean {
  return c >= CHAR_0 && c <= CHAR_9;
}
