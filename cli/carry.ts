import { carry } from '../lib/trace/index.js';
import { emit } from './output.js';

/** `intent carry <commit>... --from <rev>...`: records for a host's squash, rebase or merge commits. */
export function run(opts: { cwd: string; targets: string[]; from: string[]; prHead?: string; sourceNotes?: string[]; dryRun: boolean; json: boolean }): void {
  const r = carry(opts.cwd, { targets: opts.targets, from: opts.from, prHead: opts.prHead, sourceNotes: opts.sourceNotes, dryRun: opts.dryRun });
  emit(opts.json, r, () => {
    const governed = r.sources.filter((s) => s.governed).length;
    const lines = [`intent carry: ${r.sources.length} source commit${r.sources.length === 1 ? '' : 's'} (${governed} with a record${governed < r.sources.length ? `, ${r.sources.length - governed} ungoverned` : ''}).`];
    for (const c of r.commits) {
      const what = {
        carried: `carried (${c.shape}) for ${c.intent}`,
        planned: `would carry (${c.shape}) for ${c.intent}`,
        noted: `has a note already${c.intent ? ` (${c.intent})` : ''}: left as it is`,
        ungoverned: 'no source has a record: no note (ungoverned work)',
      }[c.status];
      const counts = c.status === 'carried' || c.status === 'planned'
        ? `: ${c.lines.added} added line${c.lines.added === 1 ? '' : 's'}, ${c.lines.ai} by a model, ${c.lines.added - c.lines.ai} human (${c.lines.unexplained} not in any source)` : '';
      lines.push(`  ${c.commit.slice(0, 12)} ${what}${counts}`);
    }
    return lines.join('\n') + '\n';
  });
}
