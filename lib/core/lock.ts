import { closeSync, mkdirSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync, linkSync } from 'node:fs';
import { dirname } from 'node:path';
import { IntentError } from './errors.js';
import { sleepSync } from './files.js';
import { warn } from './hook-context.js';
import { procStat } from './proc.js';

/** How long a lock file may name no process (being written) before it counts as planted. */
const UNNAMED_GRACE_MS = 1000;

/**
 * Runs `fn` while holding an exclusive lock file (created with O_EXCL). Used wherever several
 * worktrees' hooks may race: the notes ref, the ledger, the registry. The file names its owner:
 * pid and the process's start time, so a lock left by a process that died, one whose pid now
 * belongs to another process, or one planted by hand (naming no process) is taken over within a
 * second, with a message; a live holder is waited for up to `timeoutMs`.
 */
export function withLock<T>(lockPath: string, fn: () => T, timeoutMs = 30_000): T {
  acquire(lockPath, timeoutMs);
  try {
    return fn();
  } finally {
    release(lockPath);
  }
}

/** withLock for work that waits on something (a child process): held until `fn`'s promise settles. */
export async function withLockAsync<T>(lockPath: string, fn: () => Promise<T>, timeoutMs = 30_000): Promise<T> {
  acquire(lockPath, timeoutMs);
  try {
    return await fn();
  } finally {
    release(lockPath);
  }
}

/**
 * Takes the lock for work that cannot be one callback (a step function holding it across the git
 * calls it yields); the returned function releases it, once.
 */
export function takeLock(lockPath: string, timeoutMs = 30_000): () => void {
  acquire(lockPath, timeoutMs);
  let held = true;
  return () => {
    if (held) release(lockPath);
    held = false;
  };
}

function acquire(lockPath: string, timeoutMs: number): void {
  mkdirSync(dirname(lockPath), { recursive: true });
  const deadline = Date.now() + timeoutMs;
  let wait = 2;
  for (;;) {
    try {
      const fd = openSync(lockPath, 'wx');
      writeSync(fd, OWNER);
      closeSync(fd);
      return;
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
}

/** Releases only our own lock: had it been taken over, the file belongs to someone else now. */
function release(lockPath: string): void {
  try {
    if (readFileSync(lockPath, 'utf8') === OWNER) unlinkSync(lockPath);
  } catch { /* already gone */ }
}

function takeOverIfDead(lockPath: string): boolean {
  let content: string;
  try {
    content = readFileSync(lockPath, 'utf8');
  } catch {
    return true; // released meanwhile
  }
  const why = staleReason(lockPath, content);
  if (why === null) return false;
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
  if (moved === content) warn(`intent: took over the lock ${lockPath}: ${why}.\n`);
  return true;
}

/** What this process writes into a lock it holds: `<pid> <start time>`. */
const OWNER = `${process.pid} ${startTime(process.pid) ?? '-'}\n`;

/** This process as a lock names its owner (`<pid> <start time>\n`): for marks of work under way. */
export function ownerStamp(): string {
  return OWNER;
}

/** Whether the process a stamp (`ownerStamp`) names is gone: not running, or its pid is another process's now. */
export function stampGone(stamp: string): boolean {
  const m = /^(\d+) (\d+|-)\n$/.exec(stamp);
  return !!m && ownerGone(Number(m[1]), m[2]) !== null;
}

/** Why the process `pid`, started at `recorded` (clock ticks; `-`: unknown), is gone, or null while it runs. */
function ownerGone(pid: number, recorded: string | undefined): string | null {
  if (!processAlive(pid)) return `its owner, pid ${pid}, is not running`;
  const actual = startTime(pid);
  if (recorded && recorded !== '-' && actual !== null && recorded !== actual) return `pid ${pid} is another process now (started at ${actual}, the owner at ${recorded})`;
  return null;
}

/** Why a lock's owner is gone (or never existed), or null while it may still be held. */
function staleReason(lockPath: string, content: string): string | null {
  const m = /^(\d+)(?: (\d+|-))?\n$/.exec(content);
  const age = () => {
    try {
      return Date.now() - statSync(lockPath).mtimeMs;
    } catch {
      return 0;
    }
  };
  if (!m) {
    if (age() < UNNAMED_GRACE_MS) return null; // being written right now
    return `it names no process (${JSON.stringify(content.slice(0, 40))}): a planted or torn lock file`;
  }
  const pid = Number(m[1]);
  const recorded = m[2];
  const gone = ownerGone(pid, recorded);
  if (gone) return gone;
  if (recorded === undefined && startTime(pid) !== null && age() >= UNNAMED_GRACE_MS) return `it names pid ${pid} without its start time: not a lock intent wrote`;
  return null;
}

/** A process's start time (clock ticks since boot, from /proc), or null where /proc has none. */
function startTime(pid: number): string | null {
  return procStat(pid)?.[19] ?? null;
}

/** Whether process `pid` exists (one of another user's too). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
