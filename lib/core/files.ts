import { closeSync, fsyncSync, lstatSync, openSync, realpathSync, renameSync, statSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { IntentError } from './errors.js';

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

/**
 * Refuses (WRITE_FAILED, nothing written) an output path that a temp file and a rename would
 * clobber in a way the user did not ask for: anything that exists and is not a regular file (a
 * device such as /dev/null, a FIFO, a socket, a directory) or is a symbolic link (the rename would
 * replace the link, not the file it points to), and a path whose folder does not exist.
 */
export function checkOutputPath(path: string, option = '--out'): void {
  let st;
  try {
    st = lstatSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new IntentError('WRITE_FAILED', `${option} ${path}: cannot look at it (${(e as Error).message}); nothing was written.`, { path });
    }
    let dir;
    try { dir = statSync(dirname(path)); } catch { dir = null; }
    if (!dir?.isDirectory()) {
      throw new IntentError('WRITE_FAILED', `${option} ${path}: the folder ${dirname(path)} does not exist; create it or name another file. Nothing was written.`, { path, dir: dirname(path) });
    }
    return;
  }
  if (st.isFile()) return;
  const kind = st.isSymbolicLink() ? 'a symbolic link (writing would replace the link, not the file it points to)'
    : st.isDirectory() ? 'a directory' : st.isFIFO() ? 'a FIFO' : st.isSocket() ? 'a socket'
    : st.isCharacterDevice() || st.isBlockDevice() ? 'a device' : 'not a regular file';
  throw new IntentError('WRITE_FAILED', `${option} ${path} is ${kind}; name a regular file, or a new one (without ${option}, the default place is used). Nothing was written.`, { path, reason: 'not-a-regular-file' });
}
