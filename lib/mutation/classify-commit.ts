/**
 * post-commit's classification of a commit: the cheap rules, then the syntax comparison of what
 * survives them (classify.ts), with a trace line saying which decided (INTENT_CLASSIFY_TRACE).
 */
import { appendFileSync } from 'node:fs';
import { cheapClasses, syntaxClasses, type FileClasses } from './classify.js';
import type { FileChange } from '../git/hunks.js';
import { syntaxOf } from './languages.js';
import { hostEnv, readSettings } from '../core/settings.js';

/**
 * How a commit's classes were decided, for the trace and the tests: by the cheap rules alone
 * (`no-syntax`), by tokens without the compiler (`no-compiler`), by the same parse trees
 * (`same-tree`), or by the syntax comparison (`computed`); the hook server's read-ahead decides
 * before the commit exists (`same-tree`, `syntax`).
 */
export type ClassOutcome = 'no-syntax' | 'no-compiler' | 'same-tree' | 'syntax' | 'computed';

/**
 * Classifies a commit's changes: exactly `classifyChanges(changes, blobs, claimedRefactor)`,
 * traced.
 */
export function classifyCommitChanges(changes: FileChange[], blobs: Map<string, Buffer>, env: NodeJS.ProcessEnv = hostEnv(), claimedRefactor = false): FileClasses {
  const { out, survivors } = cheapClasses(changes, blobs, claimedRefactor);
  if (!survivors.length) {
    traceClasses(env, { outcome: 'no-syntax' });
    return out;
  }
  // Only TS and JS files load the compiler; other survivors are compared by tokens.
  const compiler = survivors.some((x) => syntaxOf(x.c.path) || (x.c.oldPath && syntaxOf(x.c.oldPath)));
  const t0 = Date.now();
  syntaxClasses(out, survivors);
  traceClasses(env, { outcome: compiler ? 'computed' : 'no-compiler', ms: Date.now() - t0 });
  return out;
}

/** One JSON line per classification to the file INTENT_CLASSIFY_TRACE names (best effort). */
export function traceClasses(env: NodeJS.ProcessEnv, data: { outcome: ClassOutcome } & Record<string, unknown>): void {
  const to = readSettings(env).classifyTrace;
  if (!to) return;
  try {
    appendFileSync(to, JSON.stringify(data) + '\n');
  } catch { /* a trace is best effort */ }
}
