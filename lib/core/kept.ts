/**
 * What the hook server keeps between hooks: one object (`KeptStore`), made by the server when it
 * starts and passed with each hook's context (core/hook-context.ts `kept`, `keptMap`). Code that many hooks
 * run keeps there what it made of a file, checked against the file's identity (`keptRead`); in a
 * hook's own node there is no store, and every read is fresh.
 */
import { statSync } from 'node:fs';

/** The hook server's caches, by name: each module keeps its own under a name of its own. */
export class KeptStore {
  private readonly stores = new Map<string, unknown>();

  /** The cache named `name`, made by `make` when first asked for. */
  get<T>(name: string, make: () => T): T {
    if (!this.stores.has(name)) this.stores.set(name, make());
    return this.stores.get(name) as T;
  }
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
