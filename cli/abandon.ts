import { abandonIntent } from '../lib/lifecycle/index.js';
import { cleanupLines } from './done.js';
import { emit } from './output.js';

/** `intent abandon <id>`: marks the intent ABANDONED; removes its worktree only if clean; keeps the branch. */
export function run(opts: { cwd: string; id: string; json: boolean }): void {
  const r = abandonIntent(opts.cwd, opts.id);
  emit(opts.json, r, () =>
    [
      r.changed ? `${r.intent} is ABANDONED.` : `${r.intent} was already ABANDONED.`,
      ...cleanupLines(r),
      ...(r.changed ? [r.note] : []),
    ].join('\n') + '\n');
}
