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
