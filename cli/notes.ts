import { IntentError } from '../lib/core/index.js';
import { foldNotes } from '../lib/trace/index.js';
import { emit } from './output.js';

/** `intent notes fold [ref...]`: the per-intent notes refs folded into refs/notes/intents. */
export function run(opts: { cwd: string; refs: string[]; tip?: string; json: boolean }): void {
  if (opts.tip !== undefined && opts.refs.length !== 1) throw new IntentError('USAGE', `--tip folds one ref (refs/notes/intent/<ID>): name it, e.g. intent notes fold refs/notes/intent/INT-001 --tip ${opts.tip}`, {});
  const r = foldNotes(opts.cwd, { refs: opts.refs.length ? opts.refs : undefined, tip: opts.tip });
  emit(opts.json, r, () => {
    const lines = [`intent notes fold: ${r.refs.length} ref${r.refs.length === 1 ? '' : 's'}, ${r.added} note${r.added === 1 ? '' : 's'} added${r.tip ? `; refs/notes/intents at ${r.tip.slice(0, 12)}` : ''}.`];
    for (const s of r.skipped) lines.push(`  left out: ${s.commit.slice(0, 12)} from ${s.ref}: ${s.why}`);
    return lines.join('\n') + '\n';
  });
}
