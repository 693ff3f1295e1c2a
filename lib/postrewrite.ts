import { join } from 'node:path';
import { withLock } from './lock.js';
import { readNote, writeNote } from './notes.js';
import { openRepo, stateDir } from './repo.js';
import { recordCommit } from './postcommit.js';
import { METADATA_KEY } from './version.js';

/** The intent id a note names, or null when the note is missing or unreadable. */
export function noteIntent(note: string | null): string | null {
  try {
    const rec = JSON.parse(note?.split('\n')[1] ?? '') as { metadata?: Record<string, { intent_id?: unknown }> };
    const id = rec.metadata?.[METADATA_KEY]?.intent_id;
    return typeof id === 'string' ? id : null;
  } catch {
    return null;
  }
}

/** Whether the note starts with the record of `sha` itself (post-commit wrote it before git copied the old note). */
function startsFresh(note: string | null, sha: string): boolean {
  try {
    return (JSON.parse(note?.split('\n')[1] ?? '') as { vcs?: { revision?: string } }).vcs?.revision === sha;
  } catch {
    return false;
  }
}

/**
 * The post-rewrite hook (amend, rebase): `stdin` lists `<old> <new>` pairs. git copies (or
 * concatenates) the old commit's note onto the new one. When post-commit had already recorded the
 * new commit, the note is cut back to that record (its ledger line exists); otherwise the new
 * commit gets a fresh record under the old commit's intent (else the worktree's active one), so
 * ranges and hashes stay true to the new commit. Returns the commits whose note changed.
 */
export function recordRewrites(cwd: string, env: NodeJS.ProcessEnv, stdin: string): string[] {
  const done: string[] = [];
  const lock = join(stateDir(openRepo(cwd)), 'record.lock');
  for (const line of stdin.split('\n')) {
    const [oldSha, newSha] = line.trim().split(/\s+/);
    if (!oldSha || !newSha) continue;
    const note = readNote(cwd, newSha);
    if (note !== null && startsFresh(note, newSha)) {
      const own = note.split('\n').slice(0, 2).join('\n') + '\n';
      if (own !== note) {
        withLock(lock, () => writeNote(cwd, newSha, own));
        done.push(newSha);
      }
      continue;
    }
    const intentId = noteIntent(readNote(cwd, oldSha)) ?? undefined;
    if (recordCommit(cwd, env, { rev: newSha, intentId })) done.push(newSha);
  }
  return done;
}
