import { readFileSync } from 'node:fs';
import { readBlobs } from '../git/blobs.js';
import { classifyChanges } from './classify.js';
import { IntentError } from '../core/errors.js';
import { git, splitNul } from '../git/process.js';
import type { FileChange } from '../git/hunks.js';

const TRAILER = /^Intent-Mutation:[ \t]*(.*?)[ \t]*$/im;

/**
 * The commit-msg check of an `Intent-Mutation:` trailer. `AST_REFACTOR` is a claim the staged
 * change must bear out by syntax; a false claim is refused naming the first differing construct.
 * Returns the claim (or null when the message makes none).
 */
export function checkMutationClaim(cwd: string, messageFile: string): string | null {
  const message = readFileSync(messageFile, 'utf8').split('\n').filter((l) => !l.startsWith('#')).join('\n');
  const m = TRAILER.exec(message);
  if (!m) return null;
  const claim = m[1].toUpperCase();
  if (claim === 'INTENT_EVOLUTION') return claim;
  if (claim !== 'AST_REFACTOR') {
    throw new IntentError('INVALID_INPUT', `Intent-Mutation: "${m[1]}" is not a mutation class; write AST_REFACTOR or INTENT_EVOLUTION.`, { claim: m[1] });
  }
  const changes = stagedChanges(cwd);
  const blobs = readBlobs(cwd, changes.flatMap((c) => [c.oldOid, c.newOid]));
  const classes = classifyChanges(changes, blobs, true);
  const wrong = changes.find((c) => classes.get(c.path)?.cls !== 'AST_REFACTOR');
  if (wrong) {
    const why = classes.get(wrong.path)?.reason ?? `${wrong.path} changes more than layout, names or order`;
    throw new IntentError(
      'MUTATION_CLAIM_FALSE',
      `Intent-Mutation: AST_REFACTOR is not true for this commit: ${why}.\nRemove the trailer (or write Intent-Mutation: INTENT_EVOLUTION), or split the behaviour change into its own commit.`,
      { path: wrong.path, reason: why },
    );
  }
  return claim;
}

/** The staged changes against HEAD (renames detected), read with the hook's own index. */
function stagedChanges(cwd: string): FileChange[] {
  const out = git(['-c', 'core.quotePath=false', 'diff', '--cached', '--raw', '-z', '--no-abbrev', '-M', '--no-ext-diff', '--no-relative'], { cwd, inheritRepoEnv: true });
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
