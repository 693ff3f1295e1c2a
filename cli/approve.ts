import { approveRequest } from '../lib/intents/index.js';
import { emit } from './output.js';

/** `intent approve <request-id>`: a human widens the intent's scope as requested. */
export function run(opts: { cwd: string; id: string; json: boolean }): void {
  const r = approveRequest(opts.cwd, opts.id);
  emit(opts.json, r, () => {
    const lines = [`Approved ${r.request.id}: ${r.intent} may now also edit ${r.request.globs.join(', ')}.`];
    if (r.added.length) lines.push(`Added to owned_scope in ${r.registry}: ${r.added.join(', ')}.`);
    if (r.already.length) lines.push(`Already in the scope: ${r.already.join(', ')}.`);
    if (r.added.length) lines.push('The registry change is not committed: commit .orchestration/active_intents.yaml to record it.');
    return lines.join('\n') + '\n';
  });
}
