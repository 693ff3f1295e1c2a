import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../core/files.js';
import { gitRaw } from '../git/process.js';
import { recordCommit } from '../trace/record-commit.js';
import { checkStagedCommit, type PreCommitResult } from './pre-commit.js';
import type { TraceRecord } from '../trace/record.js';
import type { HookContext } from '../core/hook-context.js';

// A merge commit made by `git merge` runs neither pre-commit nor post-commit: git runs
// pre-merge-commit before it and post-merge after it. In an intent worktree a merge commit is
// governed like any commit (its changes against the first parent must stay inside the scope, and
// it gets a note); pre-merge-commit runs the pre-commit check, then leaves a marker naming the
// first parent, so post-merge records the merge commit git made, and not a fast-forward.

const MARKER = 'intent-merge-pending';

/**
 * pre-merge-commit: the pre-commit check of the merge's staged result; when it passes in a
 * governed worktree, leaves the marker that tells post-merge a merge commit on top of HEAD is coming.
 */
export async function checkMergeCommit(cwd: string, env: NodeJS.ProcessEnv): Promise<PreCommitResult> {
  const result = await checkStagedCommit(cwd, env);
  if (result.governed) {
    const [gitDir, head] = gitDirAnd(cwd, 'HEAD') ?? [];
    if (!gitDir || !head) throw new Error(`cannot read HEAD in ${cwd}`);
    writeFileAtomic(join(gitDir, MARKER), `${head}\n`);
  }
  return result;
}

/**
 * post-merge: records HEAD when it is the merge commit that pre-merge-commit announced (its first
 * parent is the marker's commit). Returns the record, or null (a fast-forward, a squash, no
 * marker, or an ungoverned worktree).
 */
export function recordMerge({ cwd, env, warn }: HookContext, squash: boolean): TraceRecord | null {
  const [gitDir, ...parents] = gitDirAnd(cwd, 'HEAD^@') ?? [];
  if (!gitDir) return null; // no HEAD (nothing pre-merge-commit could have announced)
  const file = join(gitDir, MARKER);
  let expected: string;
  try {
    expected = readFileSync(file, 'utf8').trim();
  } catch {
    return null;
  }
  rmSync(file, { force: true });
  if (squash || parents.length < 2 || parents[0] !== expected) return null;
  return recordCommit(cwd, env, { warn });
}

/** This worktree's git dir and what `rev` names (HEAD^@: each parent of HEAD), from one `git rev-parse`; null when it fails. */
function gitDirAnd(cwd: string, rev: string): string[] | null {
  const res = gitRaw(['rev-parse', '--path-format=absolute', '--git-dir', rev], { cwd });
  return res.status === 0 ? res.stdout.trim().split('\n') : null;
}
