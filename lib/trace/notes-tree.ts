/**
 * Notes commits built without `git notes`: a notes tree is a tree of blobs named by the commit
 * they annotate, so a few notes are added to a notes commit with a scratch index (no checkout,
 * and no need for the annotated commits to exist here: a note for a commit that has not arrived
 * yet is kept as it is). Used by `intent push` (a notes ref per intent) and `intent notes fold`.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { git } from '../git/process.js';
import { hostEnv } from '../core/settings.js';

/** `git notes merge -s cat_sort_uniq` on two notes: every line of both once, sorted. */
export function catSortUniq(a: string, b: string): string {
  const lines = [...new Set([...a.split('\n'), ...b.split('\n')].filter((l) => l !== ''))].sort();
  return lines.join('\n') + '\n';
}

/**
 * A new notes commit on `parent` (null: a first one) with `changes` ([annotated commit, note
 * blob]) set. A note the parent's tree has keeps its path (whatever fan-out git chose); a new
 * one goes at the top level, as git writes small notes trees.
 */
export function notesCommit(cwd: string, scratch: string, parent: string | null, changes: [string, string][], message: string): string {
  mkdirSync(scratch, { recursive: true });
  const dir = mkdtempSync(join(scratch, 'notes-index-'));
  const env = { GIT_INDEX_FILE: join(dir, 'index') };
  try {
    const pathOf = new Map<string, string>();
    if (parent) {
      git(['read-tree', `${parent}^{tree}`], { cwd, env });
      for (const p of git(['ls-tree', '-r', '--full-tree', '--name-only', `${parent}^{tree}`], { cwd }).split('\n').filter(Boolean)) pathOf.set(p.replace(/\//g, ''), p);
    }
    git(['update-index', '--add', '--index-info'], { cwd, env, input: changes.map(([c, blob]) => `100644 blob ${blob}\t${pathOf.get(c) ?? c}\n`).join('') });
    const tree = git(['write-tree'], { cwd, env }).trim();
    return git(['commit-tree', tree, ...(parent ? ['-p', parent] : []), '-m', message], { cwd, env: identity() }).trim();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A committer for notes commits where git has none configured (a CI runner, a server). */
function identity(): Record<string, string> {
  const e = hostEnv();
  return {
    GIT_AUTHOR_NAME: e.GIT_AUTHOR_NAME ?? 'intent', GIT_AUTHOR_EMAIL: e.GIT_AUTHOR_EMAIL ?? 'intent@localhost',
    GIT_COMMITTER_NAME: e.GIT_COMMITTER_NAME ?? 'intent', GIT_COMMITTER_EMAIL: e.GIT_COMMITTER_EMAIL ?? 'intent@localhost',
  };
}
