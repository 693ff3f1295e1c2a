import { listRequests } from '../lib/intents/index.js';
import { emit } from './output.js';

/** `intent requests`: lists scope-expansion requests, pending first. */
export function run(opts: { cwd: string; json: boolean }): void {
  const requests = listRequests(opts.cwd);
  emit(opts.json, { requests }, () => {
    if (!requests.length) return 'No scope-expansion requests.\n';
    const lines = requests.map((r) => {
      const head = `${r.id}  ${r.status.padEnd(8)}  ${r.intent}  ${r.globs.join(', ')}`;
      const why = r.status === 'PENDING'
        ? `    reason: ${r.reason}  (by ${r.requested_by}, ${r.requested_at})`
        : `    ${r.status.toLowerCase()} by ${r.decided_by ?? '?'} at ${r.decided_at ?? '?'}${r.decision_reason ? `: ${r.decision_reason}` : ''}`;
      return `${head}\n${why}`;
    });
    const pending = requests.filter((r) => r.status === 'PENDING').length;
    return `${lines.join('\n')}\n${pending} pending. Decide with: intent approve <id> | intent reject <id> --reason "…"\n`;
  });
}
