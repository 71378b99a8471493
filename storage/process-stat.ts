/**
 * What Linux says about a process (/proc/<pid>/stat), for telling one process from another that
 * later got the same pid: a process is identified by its boot, its pid and its start time.
 */
import { readFileSync } from "node:fs";

export interface ProcessStat {
  /** The command name (field 2, without its parentheses). */
  command: string;
  ppid: number;
  /** Process group id. */
  pgrp: number;
  /** Start time in clock ticks since boot (field 22). */
  startTicks: number;
}

/** The process's stat, or undefined when there is no such process. */
export function processStat(pid: number): ProcessStat | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "latin1");
  } catch {
    return undefined;
  }
  // The command name is in parentheses and may itself hold spaces or ')'.
  const close = stat.lastIndexOf(")");
  const command = stat.slice(stat.indexOf("(") + 1, close);
  // After it: state (field 3), ppid (4), pgrp (5), … starttime (22).
  const fields = stat.slice(close + 2).split(" ");
  const ppid = Number(fields[1]);
  const pgrp = Number(fields[2]);
  const startTicks = Number(fields[19]);
  if (!Number.isSafeInteger(ppid) || !Number.isSafeInteger(pgrp) || !Number.isSafeInteger(startTicks)) return undefined;
  return { command, ppid, pgrp, startTicks };
}

/** This boot's id (/proc/sys/kernel/random/boot_id). */
export function bootId(): string {
  return readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
}
