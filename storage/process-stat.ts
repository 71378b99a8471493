/**
 * What Linux says about a process (/proc/<pid>/stat), for telling one process from another that
 * later got the same pid: a process is identified by its boot, its pid and its start time.
 */
import { readdirSync, readFileSync } from "node:fs";

export interface ProcessStat {
  /** The command name (field 2, without its parentheses). */
  command: string;
  /** The state letter (field 3): R, S, D, T, Z (zombie), X (dead), … */
  state: string;
  ppid: number;
  /** Process group id. */
  pgrp: number;
  /** Start time in clock ticks since boot (field 22). */
  startTicks: number;
}

/** The process's stat, or undefined when there is no such process. */
export function processStat(pid: number): ProcessStat | undefined {
  const stat = readStat(`/proc/${pid}/stat`);
  if (stat === undefined) return undefined;
  // The command name is in parentheses and may itself hold spaces or ')'.
  const close = stat.lastIndexOf(")");
  const command = stat.slice(stat.indexOf("(") + 1, close);
  // After it: state (field 3), ppid (4), pgrp (5), … starttime (22).
  const fields = stat.slice(close + 2).split(" ");
  const state = stateOf(stat);
  const ppid = Number(fields[1]);
  const pgrp = Number(fields[2]);
  const startTicks = Number(fields[19]);
  if (!Number.isSafeInteger(ppid) || !Number.isSafeInteger(pgrp) || !Number.isSafeInteger(startTicks)) return undefined;
  return { command, state, ppid, pgrp, startTicks };
}

/**
 * True while the process that started at `startTicks` under `pid` still runs: a later process with
 * the same pid (another start time) is not it, and neither is its zombie.
 *
 * A zombie (state Z, or X while it is being reaped) has exited: its files, sockets and memory are
 * released and only its exit status waits for its parent, which may take a while (a container whose
 * PID 1 reaps slowly). It holds nothing, so it counts as gone. Its pid cannot be reused until it is
 * reaped, and after that a new process under the pid has another start time. One exception: the
 * stat of a process whose main thread ended while other threads go on also says Z, and that process
 * still runs; its other threads (/proc/<pid>/task) tell it apart.
 */
export function isAlive(pid: number, startTicks: number): boolean {
  const stat = processStat(pid);
  if (stat === undefined || stat.startTicks !== startTicks) return false;
  return !exited(stat.state) || hasRunningThread(pid);
}

function exited(state: string): boolean {
  return state === "Z" || state === "X";
}

function hasRunningThread(pid: number): boolean {
  let threads: string[];
  try {
    threads = readdirSync(`/proc/${pid}/task`);
  } catch {
    return false;
  }
  return threads.some((tid) => {
    const stat = readStat(`/proc/${pid}/task/${tid}/stat`);
    return stat !== undefined && !exited(stateOf(stat));
  });
}

/** Field 3, the state letter, which follows the command name's closing parenthesis and a space. */
function stateOf(stat: string): string {
  const close = stat.lastIndexOf(")");
  return stat.slice(close + 2, close + 3);
}

function readStat(file: string): string | undefined {
  try {
    return readFileSync(file, "latin1");
  } catch {
    return undefined;
  }
}

/** This boot's id (/proc/sys/kernel/random/boot_id). */
export function bootId(): string {
  return readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
}
