import { join } from 'node:path';
import { withLock } from '../core/lock.js';
import { readNote, writeNote } from '../git/notes.js';
import { openRepo, stateDir } from '../git/repo.js';
import { recordCommit } from '../trace/record-commit.js';
import type { HookContext } from '../core/hook-context.js';
import type { TraceRecord } from '../trace/record.js';
import { noteRecord } from '../trace/note-records.js';
import { METADATA_KEY } from '../core/version.js';

/** The intent id a note names, or null when the note is missing or unreadable. */
export function noteIntent(note: string | null): string | null {
  const id = noteRecord(note)?.metadata?.[METADATA_KEY]?.intent_id;
  return typeof id === 'string' ? id : null;
}

/** Whether the note starts with the record of `sha` itself (post-commit wrote it before git copied the old note). */
function startsFresh(note: string | null, sha: string): boolean {
  try {
    return (JSON.parse(note?.split('\n')[1] ?? '') as { vcs?: { revision?: string } }).vcs?.revision === sha;
  } catch {
    return false;
  }
}

/** The record of a note (the one readers use when it holds several), or null. */
function recordOf(note: string | null): TraceRecord | null {
  const rec = noteRecord(note);
  return rec && Array.isArray(rec.files) ? rec : null;
}

function hasAiCredit(rec: TraceRecord): boolean {
  return rec.files.some((f) => f.conversations.some((c) => c.contributor.type === 'ai' && c.ranges.length > 0));
}

/**
 * The post-rewrite hook (amend, rebase, squash): `stdin` lists `<old> <new>` pairs, several olds
 * for one new when commits were squashed. git copies (or concatenates) the old commits' notes onto
 * the new one. When post-commit had already recorded the new commit and no model credit is at
 * stake, the note is cut back to that record (its ledger line exists); otherwise the new commit
 * gets a fresh record under the old commits' intent (else the worktree's active one), so ranges
 * and hashes describe the new commit, and the lines models were credited with in the old commits
 * keep their credit (found by content). Returns the commits whose note changed.
 */
export function recordRewrites({ cwd, env, warn }: HookContext, stdin: string): string[] {
  const done: string[] = [];
  const lock = join(stateDir(openRepo(cwd)), 'record.lock');
  const olds = new Map<string, string[]>();
  for (const line of stdin.split('\n')) {
    const [oldSha, newSha] = line.trim().split(/\s+/);
    if (!oldSha || !newSha) continue;
    olds.set(newSha, [...(olds.get(newSha) ?? []), oldSha]);
  }
  for (const [newSha, oldShas] of olds) {
    const oldNotes = oldShas.map((sha) => ({ sha, note: readNote(cwd, sha) }));
    const carry = oldNotes.flatMap(({ sha, note }) => {
      const record = recordOf(note);
      return record ? [{ sha, record }] : [];
    });
    const note = readNote(cwd, newSha);
    if (note !== null && startsFresh(note, newSha) && !carry.some((c) => hasAiCredit(c.record))) {
      const own = note.split('\n').slice(0, 2).join('\n') + '\n';
      if (own !== note) {
        withLock(lock, () => writeNote(cwd, newSha, own));
        done.push(newSha);
      }
      continue;
    }
    const intentId = oldNotes.map((o) => noteIntent(o.note)).find((id) => id !== null) ?? undefined;
    if (recordCommit(cwd, env, { rev: newSha, intentId, carry, warn })) done.push(newSha);
  }
  return done;
}
