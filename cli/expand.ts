import { requestExpansion } from '../lib/intents/index.js';
import { emit } from './output.js';

/**
 * `intent expand <id> <glob...> --reason "…"`: files a scope-expansion request for a human to
 * decide. Prints the request id alone on stdout (so `req=$(intent expand …)` works).
 */
export function run(opts: { cwd: string; id: string; globs: string[]; reason: string; json: boolean }): void {
  const r = requestExpansion(opts.cwd, { intentId: opts.id, globs: opts.globs, reason: opts.reason, requestedBy: 'cli' });
  if (!opts.json) {
    process.stderr.write(
      `intent: filed scope-expansion request ${r.id} for ${r.intent}: ${r.globs.join(', ')}\n` +
        (r.taken_back ?? []).map((t) => `intent: note: ${t.glob} is taken back by ${t.by.join(', ')} in ${r.intent}'s scope: approving adds it, but the "!" glob still excludes it until a human removes that glob from the registry\n`).join('') +
        `a human approves with: intent approve ${r.id}\n`,
    );
  }
  emit(opts.json, r, () => r.id + '\n');
}
