import { foldNotes } from '../lib/trace/index.js';
import { emit } from './output.js';

/** `intent notes fold [ref...]`: the per-intent notes refs folded into refs/notes/intents. */
export function run(opts: { cwd: string; refs: string[]; json: boolean }): void {
  const r = foldNotes(opts.cwd, { refs: opts.refs.length ? opts.refs : undefined });
  emit(opts.json, r, () => {
    const lines = [`intent notes fold: ${r.refs.length} ref${r.refs.length === 1 ? '' : 's'}, ${r.added} note${r.added === 1 ? '' : 's'} added, ${r.merged} merged${r.tip ? `; refs/notes/intents at ${r.tip.slice(0, 12)}` : ''}.`];
    for (const s of r.skipped) lines.push(`  left out: ${s.commit.slice(0, 12)} from ${s.ref}: ${s.why}`);
    return lines.join('\n') + '\n';
  });
}
