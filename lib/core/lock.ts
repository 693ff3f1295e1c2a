import { closeSync, mkdirSync, openSync, readFileSync, renameSync, unlinkSync, writeSync, linkSync } from 'node:fs';
import { dirname } from 'node:path';
import { IntentError } from './errors.js';
import { sleepSync } from './files.js';

/**
 * Runs `fn` while holding an exclusive lock file (created with O_EXCL). Used wherever several
 * worktrees' hooks may race: the notes ref, the ledger, the registry. A lock left behind by a
 * process that died is taken over; a live holder is waited for up to `timeoutMs`.
 */
export function withLock<T>(lockPath: string, fn: () => T, timeoutMs = 30_000): T {
  mkdirSync(dirname(lockPath), { recursive: true });
  const deadline = Date.now() + timeoutMs;
  let wait = 2;
  for (;;) {
    try {
      const fd = openSync(lockPath, 'wx');
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    if (takeOverIfDead(lockPath)) continue;
    if (Date.now() > deadline) {
      throw new IntentError(
        'LOCK_TIMEOUT',
        `timed out after ${timeoutMs} ms waiting for the lock ${lockPath}. If no intent process is running, delete that file and retry.`,
        { lockPath },
      );
    }
    sleepSync(wait + Math.random() * wait);
    wait = Math.min(wait * 2, 50);
  }
  try {
    return fn();
  } finally {
    // Release only our own lock: had it been taken over, the file belongs to someone else now.
    try {
      if (readFileSync(lockPath, 'utf8') === `${process.pid}\n`) unlinkSync(lockPath);
    } catch { /* already gone */ }
  }
}

function takeOverIfDead(lockPath: string): boolean {
  let content: string;
  try {
    content = readFileSync(lockPath, 'utf8');
  } catch {
    return true; // released meanwhile
  }
  const pid = Number.parseInt(content, 10);
  if (!Number.isInteger(pid) || pid <= 0) return false; // being written right now
  if (alive(pid)) return false;
  // Move it aside atomically, then make sure what we moved is the dead holder's lock. Known gap:
  // between the rename and a link back, a third process may take the lock too (needs a dead
  // holder and three contenders at once).
  const aside = `${lockPath}.stale.${process.pid}`;
  try {
    renameSync(lockPath, aside);
  } catch {
    return true;
  }
  const moved = readFileSync(aside, 'utf8');
  if (moved !== content) {
    try { linkSync(aside, lockPath); } catch { /* a new holder exists; ours was live too */ }
  }
  unlinkSync(aside);
  return true;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
