/**
 * Whether this process is long-lived (the hook server, lib/hooks/server.ts): then modules may keep
 * what they read in memory between hooks, checked against the identity of the files it came from
 * (`fileIdentity`). A hook run in its own node reads everything afresh, as always.
 */
import { closeSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { procStat } from './proc.js';

let resident = false;

export function isResident(): boolean {
  return resident;
}

/** Called once by the hook server before it serves. */
export function becomeResident(): void {
  resident = true;
}

/**
 * A file's or folder's identity: device, inode, size, modification and change times in
 * nanoseconds (null when it is missing). Any write changes the change time, which no user process
 * can set back; a folder's changes when an entry is added, removed or renamed into it (git writes
 * every loose ref through a lock file renamed into place).
 */
export function fileIdentity(path: string): string | null {
  try {
    const s = statSync(path, { bigint: true });
    return `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
  } catch {
    return null;
  }
}

/** What a resident process made of a file, with the file's identity when it was read. */
export interface Kept<T> {
  identity: string;
  value: T;
}

/**
 * What `read` makes of the file at `path`, read again only when the file's identity differs from
 * the one kept; kept only when the file did not change while it was read.
 */
export function keptRead<T>(kept: Map<string, Kept<T>>, path: string, read: () => T): T {
  const identity = fileIdentity(path);
  const hit = identity === null ? undefined : kept.get(path);
  if (hit && hit.identity === identity) return hit.value;
  const value = read();
  if (identity !== null && fileIdentity(path) === identity) kept.set(path, { identity, value });
  else kept.delete(path);
  return value;
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
