/**
 * post-commit's classification of a commit, using what the worker pre-commit started has
 * computed ahead when it fits (lib/mutation/ahead.ts explains the scheme).
 */
import { join } from 'node:path';
import { sleepSync } from '../core/files.js';
import { cheapClasses, syntaxClasses, type FileClasses } from './classify.js';
import type { FileChange } from '../git/hunks.js';
import { syntaxOf } from './languages.js';
import { aheadDir, aheadKey, readEntry, remove, trace, validEntry, waitBound, workersFor, type Entry } from './ahead.js';
import { hostEnv } from '../core/settings.js';

/** How post-commit got its classes: for the trace (INTENT_CLASSIFY_TRACE) and the tests. */
export type AheadOutcome = 'no-syntax' | 'same-tree' | 'no-compiler' | 'waiting' | 'cache' | 'waited' | 'computed' | 'timeout' | 'worker-gone' | 'rejected';

/**
 * post-commit's classification of a commit (`parent` → the commit): the cheap rules here; what
 * survives them from the worker's entry when there is a valid one (waiting for a live worker for
 * the same parent up to INTENT_CLASSIFY_WAIT_MS, default 4 s), else by syntax here. Returns the
 * classes (exactly what `classifyChanges(changes, blobs, claimedRefactor)` returns; the worker
 * classifies without a claim, so a claimed refactor never matches its entries) and a warning for stderr when an entry was
 * found and refused.
 */
export function classifyCommitChanges(
  stateDir: string,
  changes: FileChange[],
  blobs: Map<string, Buffer>,
  parent: string | undefined,
  env: NodeJS.ProcessEnv = hostEnv(),
  claimedRefactor = false,
): { classes: FileClasses; warning: string } {
  const { out, survivors } = cheapClasses(changes, blobs, claimedRefactor);
  if (!survivors.length) {
    trace(env, { outcome: 'no-syntax' });
    return { classes: out, warning: '' };
  }
  // Only TS and JS files load the compiler; other survivors are compared by tokens, here.
  if (!survivors.some((x) => syntaxOf(x.c.path) || (x.c.oldPath && syntaxOf(x.c.oldPath)))) {
    trace(env, { outcome: 'no-compiler' });
    return { classes: syntaxClasses(out, survivors), warning: '' };
  }
  const dir = aheadDir(stateDir);
  const key = aheadKey(changes, claimedRefactor);
  const file = join(dir, `${key}.json`);
  const t0 = Date.now();
  let outcome: AheadOutcome = 'computed';
  let entry = readEntry(file);
  if (entry === undefined && parent) {
    const bound = waitBound(env);
    let workers = workersFor(dir, parent);
    if (workers.length) {
      outcome = 'worker-gone';
      trace(env, { outcome: 'waiting', workers: workers.length });
    }
    let pause = 2;
    while (entry === undefined && workers.length) {
      if (Date.now() - t0 > bound) {
        outcome = 'timeout';
        break;
      }
      sleepSync(pause);
      pause = Math.min(pause * 2, 10);
      entry = readEntry(file);
      // A worker that is done removes its marker (a resident one lives on); a dead one counts as done.
      if (entry === undefined) workers = workersFor(dir, parent);
    }
    // A worker that finished between the last look and its exit.
    if (entry === undefined && outcome === 'worker-gone') entry = readEntry(file);
  } else if (entry !== undefined) outcome = 'cache';
  let warning = '';
  let worker: Entry['worker'] | undefined;
  if (entry !== undefined) {
    remove(file);
    const checked = entry === null ? null : validEntry(entry, key, changes, out);
    if (checked) {
      if (outcome !== 'cache') outcome = 'waited';
      worker = (entry as Entry).worker;
      for (const x of survivors) out.set(x.c.path, checked.get(x.c.path)!);
    } else {
      outcome = 'rejected';
      warning = `intent: WARNING: ignored the classification cache entry ${file}: it does not fit this commit (garbled, stale or not written by intent's worker); classified here instead.\n`;
    }
  }
  if (outcome !== 'cache' && outcome !== 'waited') syntaxClasses(out, survivors);
  trace(env, { outcome, key, waited_ms: Date.now() - t0, ...(worker ? { worker_pid: worker.pid, worker_wall_ms: worker.wall_ms, worker_cpu_ms: worker.cpu_ms } : {}) });
  return { classes: out, warning };
}

