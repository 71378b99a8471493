/** Command-line options of the bench scripts: `--name value`, the fallback when absent. */

export function numberArg(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
}

export function stringArg(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? (process.argv[at + 1] ?? fallback) : fallback;
}

/** `--name` given (a switch without a value). */
export function flagArg(name: string): boolean {
  return process.argv.includes(`--${name}`);
}

/** `--name NAME=value,NAME=value`: settings for a service, as an environment (empty when absent). */
export function settingsArg(name: string): Record<string, string> {
  return Object.fromEntries(
    stringArg(name, "")
      .split(",")
      .filter((pair) => pair !== "")
      .map((pair) => [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)]),
  ) as Record<string, string>;
}
