import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { hookGitArgv } from '../core/hook-parent.js';
import { readBlobs } from '../git/blobs.js';
import { classifyChanges, explainEvolution, type FileClasses } from './classify.js';
import { IntentError } from '../core/errors.js';
import { git, gitRaw, splitNul } from '../git/process.js';
import type { FileChange } from '../git/hunks.js';

const TRAILER = /^Intent-Mutation:[ \t]*(.*?)[ \t]*$/im;

/** The value of a commit message's `Intent-Mutation:` trailer as written, or null; `#` lines are comments. */
export function mutationClaim(message: string): string | null {
  return TRAILER.exec(message.split('\n').filter((l) => !l.startsWith('#')).join('\n'))?.[1] ?? null;
}

/** Whether a commit message claims `Intent-Mutation: AST_REFACTOR` (any case). */
export function claimsRefactor(message: string): boolean {
  return mutationClaim(message)?.toUpperCase() === 'AST_REFACTOR';
}

/**
 * The commit-msg check of an `Intent-Mutation:` trailer. `AST_REFACTOR` is a claim the staged
 * change must bear out: it is held to the decision the post-commit hook records in the trace note
 * (`classifyChanges` given the claim, the same diff options), so an accepted claim is always
 * recorded as AST_REFACTOR; a refused one names the first differing construct (or says the
 * change is too large to compare). Returns the claim (or null when the message makes none).
 */
export function checkMutationClaim(cwd: string, messageFile: string): string | null {
  // git names the file relative to the worktree's top (the hook's directory, not the process's).
  const written = mutationClaim(readFileSync(resolve(cwd, messageFile), 'utf8'));
  if (written === null) return null;
  const claim = written.toUpperCase();
  if (claim === 'INTENT_EVOLUTION') return claim;
  if (claim !== 'AST_REFACTOR') {
    throw new IntentError('INVALID_INPUT', `Intent-Mutation: "${written}" is not a mutation class; write AST_REFACTOR or INTENT_EVOLUTION.`, { claim: written });
  }
  const changes = stagedChanges(cwd, commitOrEmptyTree(cwd, amending() ? 'HEAD^1' : 'HEAD'));
  const blobs = readBlobs(cwd, changes.flatMap((c) => [c.oldOid, c.newOid]));
  const classes = classifyChanges(changes, blobs, true);
  const why = unmet(changes, blobs, classes);
  if (why !== null) {
    const wrong = changes.find((c) => classes.get(c.path)?.cls !== 'AST_REFACTOR');
    throw new IntentError(
      'MUTATION_CLAIM_FALSE',
      `Intent-Mutation: AST_REFACTOR is not true for this commit: ${why}.\nRemove the trailer (or write Intent-Mutation: INTENT_EVOLUTION), or split the behaviour change into its own commit.`,
      { path: wrong?.path ?? null, reason: why },
    );
  }
  return claim;
}

/**
 * Why a claimed refactor is not one, or null when it is: a file the decision calls an evolution,
 * or no file at all (a commit that changes nothing is recorded as INTENT_EVOLUTION: classifyCommit).
 */
function unmet(changes: FileChange[], blobs: Map<string, Buffer>, classes: FileClasses): string | null {
  if (!changes.length) return 'the commit changes no file';
  const wrong = changes.find((c) => classes.get(c.path)?.cls !== 'AST_REFACTOR');
  return wrong ? explainEvolution(changes, blobs, classes, wrong.path) : null;
}

/**
 * The post-commit warning for a commit whose message claims AST_REFACTOR but whose change against
 * its parent is not one ('' when the claim holds): a claim the commit-msg check did not see whole
 * (written in the editor after intent worktrees' prepare-commit-msg checked the message, `--no-verify`
 * in the main worktree, a rebase, an amend where git's command line cannot be read). The note records
 * what the commit is; the committer hears why.
 */
export function unmetClaimWarning(sha: string, changes: FileChange[], blobs: Map<string, Buffer>, classes: FileClasses): string {
  const why = unmet(changes, blobs, classes);
  if (why === null) return '';
  return `intent: WARNING: commit ${sha.slice(0, 12)} claims Intent-Mutation: AST_REFACTOR, but against its parent it is not one: ${why}.\n` +
    'intent: it is recorded as INTENT_EVOLUTION. The claim was not checked against this commit as a whole before it was made (a claim written in ' +
    'the editor, --no-verify in the main worktree, a rebase, or an amend where git\'s command line cannot be read); to drop the claim: git commit --amend, without the trailer.\n';
}

/**
 * Whether the git process this hook runs for is `git commit --amend` (its command line, read from
 * /proc: git → the hook's shell → node). git tells commit-msg nothing else; where there is no
 * /proc this says no, and post-commit warns about a claim the whole amended commit does not bear out.
 */
function amending(): boolean {
  return (hookGitArgv() ?? []).some((a) => /^--am(e(nd?)?)?$/.test(a));
}

/**
 * What post-commit will compare the commit with: HEAD (an amend: HEAD's first parent), or the
 * empty tree when there is none (the first commit of a branch, an amended root commit).
 */
function commitOrEmptyTree(cwd: string, rev: string): string {
  const r = gitRaw(['rev-parse', '-q', '--verify', `${rev}^{commit}`], { cwd, inheritRepoEnv: true });
  return r.status === 0 ? r.stdout.trim() : git(['hash-object', '-t', 'tree', '--stdin'], { cwd, input: '' }).trim();
}

/**
 * The staged changes against `base` (HEAD, or HEAD's parent for an amend), read with the hook's
 * own index; renames found as the post-commit hook's diff finds them (lib/git/diff.ts), so both
 * classify the same changes.
 */
function stagedChanges(cwd: string, base: string): FileChange[] {
  const out = git(
    ['-c', 'core.quotePath=false', 'diff', '--cached', '--raw', '-z', '--no-abbrev', '--find-renames=50%', '--no-ext-diff', '--no-relative', '--ignore-submodules=none', base, '--'],
    { cwd, inheritRepoEnv: true },
  );
  const parts = splitNul(out);
  const changes: FileChange[] = [];
  for (let i = 0; i < parts.length; i++) {
    const [oldMode, newMode, oldOid, newOid, st] = parts[i].slice(1).split(' ');
    const two = st[0] === 'R' || st[0] === 'C';
    const a = parts[++i];
    const b = two ? parts[++i] : a;
    changes.push({ status: st[0], path: b, oldPath: two ? a : null, oldMode, newMode, oldOid, newOid, similarity: st.length > 1 ? Number(st.slice(1)) : null, hunks: [] });
  }
  return changes;
}
