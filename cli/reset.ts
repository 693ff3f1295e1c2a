import { resetIntent } from '../lib/guardrails/index.js';
import { emit } from './output.js';

/** `intent reset <id>`: a human closes an intent's circuit breaker. */
export function run(opts: { cwd: string; id: string; yes: boolean; json: boolean }): void {
  const r = resetIntent(opts.cwd, opts.id, { yes: opts.yes });
  emit(opts.json, r, () =>
    r.was_open
      ? `intent: closed the circuit breaker of ${r.intent} (it had opened: ${r.reason}); forgot ${r.cleared_rejections} recent refused commit${r.cleared_rejections === 1 ? '' : 's'}. Commits for ${r.intent} are allowed again.\n`
      : `intent: the circuit breaker of ${r.intent} was not open${r.cleared_rejections ? `; forgot ${r.cleared_rejections} recent refused commit${r.cleared_rejections === 1 ? '' : 's'}` : '; nothing to do'}.\n`);
}
