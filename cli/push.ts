import { IntentError } from '../lib/core/index.js';
import { pushIntent, type NotesMode } from '../lib/trace/index.js';
import { emit } from './output.js';

/** `intent push [remote]`: the current branch (an intent's, or main) with its notes, in one atomic push, retried when the notes moved. */
export function run(opts: { cwd: string; remote?: string; notes?: string; retries?: string; json: boolean }): void {
  let retries: number | undefined;
  if (opts.retries !== undefined) {
    if (!/^\d{1,3}$/.test(opts.retries)) throw new IntentError('USAGE', `--retries takes a whole number from 0 to 999, got "${opts.retries}"`, { retries: opts.retries });
    retries = Number(opts.retries);
  }
  if (opts.notes !== undefined && opts.notes !== 'intent' && opts.notes !== 'shared') {
    throw new IntentError('USAGE', `--notes takes "intent" (a notes ref per intent, folded by the server) or "shared" (refs/notes/intents), got "${opts.notes}"`, { notes: opts.notes });
  }
  const r = pushIntent(opts.cwd, { remote: opts.remote, mode: opts.notes as NotesMode | undefined, retries });
  emit(opts.json, r, () =>
    `intent push ${r.remote}: ${r.branch} at ${r.commit.slice(0, 12)} with its notes on ${r.notesRef}` +
      `${r.attempts > 1 ? ` (${r.attempts} attempts: the notes ref moved meanwhile)` : ''}.\n`);
}
