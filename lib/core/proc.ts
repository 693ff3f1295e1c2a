/** What Linux's /proc says about a process. */
import { readFileSync } from 'node:fs';

/**
 * The fields of `/proc/<pid>/stat` after the command name, or null where there is none (the
 * process is gone, no /proc). The name (field 2) may hold spaces and parentheses, so the fields are
 * counted from its last `)`: [0] is the state (field 3 in proc(5)), [1] the parent's pid, [11]-[14]
 * the user and system times (own and waited-for children's), [19] the start time.
 */
export function procStat(pid: number | 'self'): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** Whether `pid` runs (a zombie does not: a killed process nobody has reaped yet). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // No /proc: kill(0) said it exists.
  const state = procStat(pid)?.[0];
  return state === undefined || state !== 'Z';
}
