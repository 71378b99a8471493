/** Command-line options of the bench scripts: `--name value`, the fallback when absent. */

/** Every option a script has asked for, so that `refuseUnknownArgs` can tell a typo from an option. */
const asked = new Set<string>();

export function numberArg(name: string, fallback: number): number {
  asked.add(name);
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
}

export function stringArg(name: string, fallback: string): string {
  asked.add(name);
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? (process.argv[at + 1] ?? fallback) : fallback;
}

/** `--name` given (a switch without a value). */
export function flagArg(name: string): boolean {
  asked.add(name);
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

/**
 * Called once a script has read its options: `--help` prints `usage` and exits; an option the script
 * never asked for (a typo, or one of another bench) prints it and exits with 2, before a long run
 * starts with the option silently ignored.
 */
export function refuseUnknownArgs(usage: string): void {
  if (process.argv.includes("--help")) {
    console.log(usage);
    process.exit(0);
  }
  const unknown = process.argv.slice(2).filter((arg) => arg.startsWith("--") && !asked.has(arg.slice(2)));
  if (unknown.length > 0) {
    console.error(`unknown option ${unknown.join(", ")}\n${usage}`);
    process.exit(2);
  }
}
