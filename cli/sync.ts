import { IntentError, NOTES_REF } from '../lib/core/index.js';
import { syncNotes } from '../lib/trace/index.js';
import { emit } from './output.js';

/** `intent sync [<remote>]`: fetch, merge and push refs/notes/intents. */
export function run(opts: { cwd: string; remote?: string; retries?: string; json: boolean }): void {
  let retries: number | undefined;
  if (opts.retries !== undefined) {
    if (!/^\d{1,3}$/.test(opts.retries)) {
      throw new IntentError('USAGE', `--retries takes a whole number from 0 to 999, got "${opts.retries}"`, { retries: opts.retries });
    }
    retries = Number(opts.retries);
  }
  const r = syncNotes(opts.cwd, { remote: opts.remote, retries });
  emit(opts.json, r, () => {
    const parts = [
      r.fetched ? `fetched its notes, merged ${r.merged} note${r.merged === 1 ? '' : 's'} in` : 'it has no notes yet',
      r.pushed ? `pushed ${NOTES_REF}` : 'nothing to push',
    ];
    if (r.attestations) parts.push('fetched its attestations (intent attest verify checks them)');
    if (r.attempts > 1) parts.push(`${r.attempts} attempts (the remote moved meanwhile)`);
    return `intent sync ${r.remote}: ${parts.join('; ')}.\n`;
  });
}
