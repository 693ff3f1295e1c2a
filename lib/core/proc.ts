/** What Linux's /proc says about a process, and the descriptors a resident process must let go of. */
import { closeSync, readdirSync, readFileSync, statSync } from 'node:fs';

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

/** O_CLOEXEC as /proc/<pid>/fdinfo reports it (octal flags). */
const O_CLOEXEC = 0o2000000;

/**
 * Closes every descriptor above 2 this process inherited without close-on-exec (Linux: read from
 * /proc/self/fdinfo). A resident process must not hold what the committing process passed down:
 * a pipe's reader would see no end-of-file while the resident lives. Node itself marks only the
 * first contiguous descriptors close-on-exec at start-up (libuv's uv_disable_stdio_inheritance
 * stops at the first gap after 15), and opens all of its own with close-on-exec, so what is left
 * without the flag was inherited. Returns the descriptors closed. Elsewhere: nothing.
 */
export function closeInheritedFds(): number[] {
  const closed: number[] = [];
  let fds: string[];
  try {
    fds = readdirSync('/proc/self/fd');
  } catch {
    return closed;
  }
  for (const name of fds) {
    const fd = Number(name);
    if (!Number.isInteger(fd) || fd <= 2) continue;
    try {
      const flags = /^flags:\s*([0-7]+)$/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8'));
      if (!flags || (parseInt(flags[1]!, 8) & O_CLOEXEC) !== 0) continue;
      closeSync(fd);
      closed.push(fd);
    } catch { /* the directory's own descriptor, gone by now */ }
  }
  return closed;
}

/**
 * Whether process `pid` is stopped (SIGSTOP, a debugger: state T or t in /proc/<pid>/stat). A
 * stopped process answers nothing until it is continued, so nobody should wait for it.
 */
export function processStopped(pid: number): boolean {
  const state = procStat(pid)?.[0];
  return state === 'T' || state === 't';
}

/** The user id process `pid` runs as (the owner of /proc/<pid>), or null when it is gone. */
export function processUid(pid: number): number | null {
  try {
    return statSync(`/proc/${pid}`).uid;
  } catch {
    return null;
  }
}
