import { repair } from '../lib/trace/index.js';
import { emit } from './output.js';

/** `intent repair [<range>...]`: restore missing notes and ledger lines, cut a torn ledger line. */
export function run(opts: { cwd: string; range: string[]; json: boolean }): void {
  const r = repair(opts.cwd, opts.range.length ? opts.range : ['--branches']);
  emit(opts.json, r, () => {
    const lines = [
      `intent repair: ${r.recorded.length} missing note${r.recorded.length === 1 ? '' : 's'} recorded, ${r.ledgerAppended} ledger line${r.ledgerAppended === 1 ? '' : 's'} appended` +
        (r.tornBytes ? `, a torn last ledger line (${r.tornBytes} bytes) cut off` : '') + '.',
      ...r.recorded.map((c) => `  recorded ${c}`),
      ...r.unknown.map((c) => `  left alone ${c}: no intent can be told for it (no trailer, not on an intent/* branch)`),
    ];
    return lines.join('\n') + '\n';
  });
  if (r.unknown.length) process.exitCode = 1;
}
