// Item 4: `intent checkout` against a bare `git worktree add` of the same repository.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { REPS, check, git, intent, stats } from './util.mjs';

/** The PENDING intents the checkout benchmark opens, one a repetition (registered up front). */
export function checkoutIntents(reps = REPS) {
  return Array.from({ length: reps + 2 }, (_, i) => ({ id: `CO-${String(i + 1).padStart(2, '0')}`, scope: [`src/co${i + 1}/**`] }));
}

/**
 * Each repetition opens a new intent with the CLI (`intent checkout CO-nn`: a new branch and
 * worktree from HEAD, hooks, active-intent record, registry set to IN_PROGRESS) and makes a
 * plain worktree with `git worktree add -b <branch> <path> HEAD` from the same main worktree;
 * the order alternates so neither always runs on a warmer cache.
 */
export function checkoutOverhead(main, plainDir, reps = REPS) {
  const ids = checkoutIntents(reps).map((i) => i.id);
  const series = { intent: [], plain: [], diff: [], cpuDiff: [] };
  for (let r = -1; r < reps; r++) {
    const id = ids[r + 1];
    const path = join(plainDir, `w${r + 1}`);
    const doIntent = () => {
      const res = intent(main, ['checkout', id]);
      check(existsSync(res.stdout.trim()), `intent checkout ${id} printed ${res.stdout}`);
      return res;
    };
    const doPlain = () => git(main, ['worktree', 'add', '-q', '-b', `plain/w${r + 1}`, path, 'HEAD']);
    let a;
    let b;
    if (r % 2 === 0) {
      a = doIntent();
      b = doPlain();
    } else {
      b = doPlain();
      a = doIntent();
    }
    if (r < 0) continue;
    series.intent.push(a.ms);
    series.plain.push(b.ms);
    series.diff.push(a.ms - b.ms);
    series.cpuDiff.push(a.cpu === null ? NaN : a.cpu - b.cpu);
  }
  return Object.fromEntries(Object.entries(series).map(([k, xs]) => [k, stats(xs)]));
}
