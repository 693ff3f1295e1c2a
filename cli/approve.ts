import { approveRequest } from '../lib/intents/index.js';
import { emit } from './output.js';

/** `intent approve <request-id>`: a human widens the intent's scope as requested. */
export function run(opts: { cwd: string; id: string; json: boolean }): void {
  const r = approveRequest(opts.cwd, opts.id);
  emit(opts.json, r, () => {
    const back = new Set(r.taken_back.map((t) => t.glob));
    const free = r.request.globs.filter((g) => !back.has(g));
    const lines = [`Approved ${r.request.id}${free.length ? `: ${r.intent} may now also edit ${free.join(', ')}` : ''}.`];
    for (const t of r.taken_back) {
      lines.push(`But ${t.glob} is taken back by ${t.by.join(', ')} in ${r.intent}'s scope: ${r.intent} still may not edit it. Remove that "!" glob from the registry to allow it.`);
    }
    if (r.added.length) lines.push(`Added to owned_scope in ${r.registry}: ${r.added.join(', ')}.`);
    if (r.already.length) lines.push(`Already in the scope: ${r.already.join(', ')}.`);
    if (r.added.length) lines.push('The registry change is not committed: commit .orchestration/active_intents.yaml to record it.');
    return lines.join('\n') + '\n';
  });
}
