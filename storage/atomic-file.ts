/**
 * Writes a file atomically and durably: a temporary file with the final mode from its creation,
 * fsync, rename over the target, fsync of the directory. A crash leaves the old file or the whole
 * new one, never a partial one nor a secret readable by others for a moment. Used for the bootstrap
 * operator secret, the quick-start audit signing key (0600) and the audit key history.
 */
import * as fs from "node:fs";
import * as path from "node:path";

export function writeFileAtomically(filePath: string, content: string, mode: number): void {
  const dir = path.dirname(filePath);
  const tmpPath = `${filePath}.tmp`;
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  fs.rmSync(tmpPath, { force: true }); // a leftover would keep its old mode
  const fd = fs.openSync(tmpPath, "wx", mode);
  try {
    fs.fchmodSync(fd, mode); // independent of the umask
    fs.writeFileSync(fd, content, "utf8");
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmpPath, filePath);
  const dirFd = fs.openSync(dir, "r");
  try {
    fs.fsyncSync(dirFd);
  } finally {
    fs.closeSync(dirFd);
  }
}
