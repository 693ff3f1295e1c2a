/**
 * The repository's resident process (the hook server, lib/hooks/server.ts): whether it still has a
 * reason to stay, and stopping it (`intent uninstall`). Linux only (it reads /proc); elsewhere
 * there is none.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { processStopped, processUid } from '../core/proc.js';
import { realOrSelf, sleepSync } from '../core/files.js';
import { alive } from '../core/proc.js';

/**
 * Whether the repository whose common git folder is `commonDir` still has a worktree a resident
 * serves: a linked worktree on an intent branch (`refs/heads/intent/…`), or one with a detached
 * HEAD (an intent worktree in the middle of a rebase). When none is left (the last one done,
 * abandoned or removed with `git worktree remove`), the residents leave; the next commit of an
 * intent worktree starts them again.
 */
export function intentWorktreesLeft(commonDir: string): boolean {
  let ids: string[];
  try {
    ids = readdirSync(join(commonDir, 'worktrees'));
  } catch {
    return false;
  }
  for (const id of ids) {
    try {
      const head = readFileSync(join(commonDir, 'worktrees', id, 'HEAD'), 'utf8');
      if (!head.startsWith('ref: ') || head.startsWith('ref: refs/heads/intent/')) return true;
    } catch { /* being added or removed */ }
  }
  return false;
}

/**
 * The pids of this user's hook servers of the state folder `state` (`<git-common-dir>/intent`):
 * those of `<state>/server`, found by their command lines in /proc.
 */
export function residentsOf(state: string): number[] {
  const uid = process.getuid?.();
  const here = realOrSelf(state);
  const found: number[] = [];
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((p) => /^[0-9]+$/.test(p));
  } catch {
    return found;
  }
  for (const p of pids) {
    const pid = Number(p);
    if (pid === process.pid || processUid(pid) !== uid) continue;
    try {
      const argv = readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0');
      const serve = argv.indexOf('serve-hooks');
      if (serve !== -1 && realOrSelf(argv[serve + 1] ?? '') === join(here, 'server')) found.push(pid);
    } catch { /* gone */ }
  }
  return found;
}

/**
 * Stops the residents of `state` (`residentsOf`): SIGTERM (and SIGCONT to a stopped one, so it can
 * act on it), then waits up to `waitMs` for them to leave; whoever is still there gets SIGKILL.
 * Returns the pids that were running.
 */
export function stopResidents(state: string, waitMs = 3000): number[] {
  const pids = residentsOf(state);
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGTERM');
      if (processStopped(pid)) process.kill(pid, 'SIGCONT');
    } catch { /* gone */ }
  }
  const until = Date.now() + waitMs;
  while (pids.some((p) => alive(p)) && Date.now() < until) sleepSync(20);
  for (const pid of pids) {
    if (!alive(pid)) continue;
    try {
      process.kill(pid, 'SIGKILL');
    } catch { /* gone */ }
  }
  return pids;
}
