import { repair } from '../lib/trace/index.js';
import { emit } from './output.js';

const n = (k: number, one: string, many = `${one}s`): string => `${k} ${k === 1 ? one : many}`;

/** `intent repair [<range>...]`: restore missing notes and ledger lines, heal a damaged ledger. */
export function run(opts: { cwd: string; range: string[]; json: boolean }): void {
  const r = repair(opts.cwd, opts.range.length ? opts.range : ['--branches']);
  emit(opts.json, r, () => {
    const did = [
      r.recorded.length ? `recorded ${n(r.recorded.length, 'missing note')}` : '',
      r.tornBytes ? `cut off a torn last ledger line (${n(r.tornBytes, 'byte')})` : '',
      r.rechained || (r.quarantined && !r.tornBytes)
        ? `healed the ledger from line ${r.brokeAt}: ${n(r.quarantined, 'damaged line')}${r.duplicates ? ` (${n(r.duplicates, 'record')} written twice)` : ''} set aside, ${n(r.rechained, 'record')} re-chained behind a repair entry`
        : '',
      r.ledgerAppended ? `appended ${n(r.ledgerAppended, 'missing ledger line')}` : '',
    ].filter(Boolean);
    const lines = [
      `intent repair: ${did.length ? did.join('; ') : 'nothing to repair'}.`,
      ...r.recorded.map((c) => `  recorded ${c}`),
      ...r.unknown.map((c) => `  left alone ${c}: no intent can be told for it (no trailer, not on an intent/* branch)`),
      ...(r.quarantineFile ? [`  the lines taken out of the ledger are kept in ${r.quarantineFile}`] : []),
    ];
    return lines.join('\n') + '\n';
  });
  if (r.unknown.length) process.exitCode = 1;
}
