// Item 4: `intent checkout` against a bare `git worktree add` of the same repository.
import { existsSync, mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPS, check, git, intent, removeTree, stats } from './util.mjs';

/** The PENDING intents the checkout benchmark opens, one a repetition (registered up front). */
export function checkoutIntents(reps = REPS) {
  return Array.from({ length: reps + 2 }, (_, i) => ({ id: `CO-${String(i + 1).padStart(2, '0')}`, scope: [`src/co${i + 1}/**`] }));
}

/**
 * Each repetition opens a new intent with the CLI (`intent checkout CO-nn`: a new branch and
 * worktree from HEAD, hooks, active-intent record, registry set to IN_PROGRESS) and makes a
 * plain worktree with `git worktree add -b <branch> <path> HEAD` from the same main worktree;
 * the order alternates so neither always runs on a warmer cache. Each worktree goes into a folder
 * of its own made just before, directly in the temporary directory, kept until the item ends: on
 * ext4 a file's new inode is found by skipping recently deleted ones nearby, and worktrees written
 * beside the benchmark's removed files took several times longer in the kernel, more for one side
 * than the other (item 7 has the measurements; docs/decisions.md).
 */
export function checkoutOverhead(main, reps = REPS) {
  const ids = checkoutIntents(reps).map((i) => i.id);
  const series = { intent: [], plain: [], diff: [], cpuDiff: [] };
  const folders = [];
  const fresh = () => {
    const d = realpathSync(mkdtempSync(join(tmpdir(), 'intent-bench-wt-')));
    folders.push(d);
    return d;
  };
  for (let r = -1; r < reps; r++) {
    const id = ids[r + 1];
    const intentPath = join(fresh(), id);
    const path = join(fresh(), `w${r + 1}`);
    const doIntent = () => {
      const res = intent(main, ['checkout', id, '--path', intentPath]);
      check(res.stdout.trim() === intentPath && existsSync(intentPath), `intent checkout ${id} printed ${res.stdout}`);
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
  for (const d of folders) removeTree(d);
  git(main, ['worktree', 'prune']);
  return Object.fromEntries(Object.entries(series).map(([k, xs]) => [k, stats(xs)]));
}
