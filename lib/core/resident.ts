/**
 * Whether this process is long-lived (the hook server, lib/hooks/server.ts): then modules may keep
 * what they read in memory between hooks, checked against the identity of the files it came from
 * (`fileIdentity`). A hook run in its own node reads everything afresh, as always.
 */
import { statSync } from 'node:fs';

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
