/**
 * A progress bar on stderr for audit runs long enough to need one (cli-progress), and nothing when
 * stderr is not a terminal or the work is short.
 */
import cliProgress from "cli-progress";
import type { AuditProgress } from "../../engine/replay/audit-replay.js";

/** Frames below which the run takes only a few seconds: no bar. */
const BAR_THRESHOLD_FRAMES = 250_000;

export function progressReporter(label: string): { onProgress: (p: AuditProgress) => void; stop: () => void } {
  if (!process.stderr.isTTY) return { onProgress: () => undefined, stop: () => undefined };
  let bar: cliProgress.SingleBar | undefined;
  return {
    onProgress: ({ done, total }) => {
      if (total < BAR_THRESHOLD_FRAMES) return;
      if (bar === undefined) {
        bar = new cliProgress.SingleBar(
          { stream: process.stderr, format: `${label} [{bar}] {percentage}% | {value}/{total} commands | eta {eta}s`, hideCursor: true },
          cliProgress.Presets.shades_classic,
        );
        bar.start(total, 0);
      }
      bar.update(Math.min(done, total));
    },
    stop: () => bar?.stop(),
  };
}
