/**
 * Where the scanner is, and what it has seen. One instance (index.ts) serves every call: parsing
 * is synchronous and never re-entered, and reusing the per-depth arrays means a scan allocates
 * nothing on the common path.
 */
export class ScanState {
  text = "";
  /** The cursor: index of the next character to read. */
  pos = 0;
  maxDepth = 0;
  /** A `-0` was seen: JSON.parse then runs with a reviver that turns it into 0. */
  sawNegativeZero = false;
  /** Set by scanString: whether the literal just scanned had escapes. */
  lastStringEscaped = false;
  /** Deepest container reached, so cleanup touches only the per-depth slots that were used. */
  deepest = 0;
  /**
   * True when the text can hold no raw lone surrogate (it came from UTF-8, or is well-formed): then
   * strings are skipped with native `indexOf` searches for '"' and '\\' instead of a per-character
   * loop. That search does not see raw control characters inside strings; JSON.parse refuses them,
   * and the text is then scanned again character by character for a precise message.
   */
  plainText = false;
  /** Position of the next backslash at or after the last search (text length when none is left). */
  nextBackslash = -1;

  // ---- per depth d (1 = the top-level container) ----
  /**
   * The member being scanned, for error paths. For an object, the name's range in the text
   * (`pathStart..pathEnd`, quotes excluded) and whether it has escapes; for an array, -1 and the
   * index in `pathEnd`.
   */
  readonly pathStart: number[] = [0];
  readonly pathEnd: number[] = [0];
  readonly pathEscaped: boolean[] = [false];
  /** Name ranges of the members seen so far in the object being scanned (member-names.ts). */
  readonly nameStarts: number[][] = [[]];
  readonly nameEnds: number[][] = [[]];
  /** Decoded names, for objects in set mode (member-names.ts). */
  readonly nameSets: (Set<string> | undefined)[] = [undefined];

  /** Prepares a scan of `text`. */
  start(text: string, maxDepth: number, plainText: boolean): void {
    this.text = text;
    this.pos = 0;
    this.maxDepth = maxDepth;
    this.sawNegativeZero = false;
    this.deepest = 0;
    this.nextBackslash = -1;
    this.plainText = plainText;
  }

  /** A container at a depth deeper than any before in this scan is entered. */
  reach(depth: number): void {
    this.deepest = depth;
    if (this.nameStarts[depth] === undefined) {
      this.nameStarts[depth] = [];
      this.nameEnds[depth] = [];
    }
  }

  /** Drops what the scan holds on to (the text, the decoded names), whether it ended well or not. */
  finish(): void {
    this.text = "";
    for (let d = 1; d <= this.deepest; d++) this.nameSets[d]?.clear();
  }
}

/** A refusal found by the scan. Thrown inside the scanner only; scanDocument turns it into its message. */
export class JsonRefusal {
  constructor(readonly message: string) {}
}
