import { closeSync, fsyncSync, openSync, realpathSync, renameSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** Writes a file so readers see the old bytes or the new ones, never a torn mix (temp + rename). */
export function writeFileAtomic(path: string, data: string | Buffer): void {
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${Date.now()}.tmp`);
  const fd = openSync(tmp, 'wx', 0o644);
  try {
    writeSync(fd, typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
    fsyncSync(fd);
  } catch (e) {
    closeSync(fd);
    try { unlinkSync(tmp); } catch { /* already gone */ }
    throw e;
  }
  closeSync(fd);
  renameSync(tmp, path);
}

/**
 * Replaces a file by a temp file and a rename, without fsync: readers see the old bytes or the new,
 * never a torn mix, but a crash may lose the new ones. For caches and markers, which only save
 * work. Removes its temp file when it fails, and throws.
 */
export function replaceFile(path: string, data: string | Buffer): void {
  const tmp = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, data);
    renameSync(tmp, path);
  } catch (e) {
    try {
      unlinkSync(tmp);
    } catch { /* nothing written */ }
    throw e;
  }
}

/** Blocks the thread for `ms` milliseconds (hooks are synchronous programs). */
export function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** The physical path of `p` (symbolic links resolved), or `p` itself when it cannot be resolved (missing). */
export function realOrSelf(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}
