import { rejectRequest } from '../lib/intents/index.js';
import { emit } from './output.js';

/** `intent reject <request-id> [--reason "…"]`: a human turns a scope-expansion request down. */
export function run(opts: { cwd: string; id: string; reason?: string; json: boolean }): void {
  const r = rejectRequest(opts.cwd, opts.id, { reason: opts.reason });
  emit(opts.json, r, () =>
    `Rejected ${r.request.id}: ${r.intent} may not edit ${r.request.globs.join(', ')}.\n` +
      (r.lesson.appended ? `Lesson recorded for ${r.intent} in ${r.lesson.path}.\n` : `The lesson was already in ${r.lesson.path}.\n`));
}
