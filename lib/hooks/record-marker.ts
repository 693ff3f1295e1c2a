/**
 * The marker that spares a post-commit hook its request (lib/hooks/prefetch.ts recordWhenMade): when
 * the hook server has recorded a commit as soon as git made it, with nothing to print, it leaves
 * `done.<pid of the git process>` in its folder, holding the commit's id. The hook's runner
 * (git-hooks/runner.sh intent_recorded), once it has found the server it would ask, reads it and
 * HEAD with builtins: the same commit, and the file its own user's, and the hook is done without a
 * request (no watch process, no round trip). Anything else, and it asks as before. The marker is
 * written after the note and the ledger line, so a hook that takes it returns no earlier than one
 * that asks; it only says what the trace note already shows (threat model: anyone who can write
 * `.git/` can make a hook skip its work in other ways too; `intent verify` finds a commit without
 * its note).
 */
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { processAlive } from '../core/lock.js';

/** How long a marker stays for its hook to read: the hook reads it within milliseconds. */
const MARKER_MS = 2000;

/** The folders swept of markers left by servers that are gone. */
const swept = new Set<string>();

/**
 * Writes the marker of commit `sha`, made by the git process `git` (`<pid> <start time>`), into the
 * server's folder `dir`; markers a server that is gone left are removed first. Returns the file,
 * or null when none was written (the hook then asks).
 */
export function recordedMarker(dir: string, git: string | null, sha: string): string | null {
  const pid = git?.split(' ')[0];
  if (!pid) return null;
  try {
    // Once per folder: what a server killed before its markers' time was up left (a marker of this
    // process goes by its own timer).
    if (!swept.has(dir)) {
      for (const n of readdirSync(dir)) {
        const m = /^done\.([0-9]+)$/.exec(n);
        if (m && m[1] !== pid && !processAlive(Number(m[1]))) rmSync(join(dir, n), { force: true });
      }
      swept.add(dir);
    }
    const file = join(dir, `done.${pid}`);
    writeFileSync(file, `${sha}\n`);
    // Gone a little later, unless a later commit of the same git process (a rebase's) put its own there.
    setTimeout(() => {
      try {
        if (readFileSync(file, 'utf8') === `${sha}\n`) rmSync(file, { force: true });
      } catch { /* gone */ }
    }, MARKER_MS).unref();
    return file;
  } catch {
    return null;
  }
}
