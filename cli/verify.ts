import { verify } from '../lib/trace/index.js';
import { emit } from './output.js';

/** `intent verify [<rev-range>...]`: exit 0 clean, 1 with findings. */
export function run(opts: { cwd: string; range: string[]; json: boolean; ledger: boolean; notes?: string; intent?: string }): void {
  const r = verify(opts.cwd, opts.range, { ledger: opts.ledger, notes: opts.notes, intent: opts.intent });
  emit(opts.json, { ok: r.findings.length === 0, ...r }, () => {
    const head = `intent verify ${r.range.join(' ')}: ${r.commits} commit${r.commits === 1 ? '' : 's'}, ${r.governed} governed` +
      (r.ledger ? `, ledger ${r.ledger.lines} line${r.ledger.lines === 1 ? '' : 's'}` : '');
    if (!r.findings.length) return `${head}: clean.\n`;
    const lines = r.findings.map((f) => `  ${f.code.padEnd(21)} ${f.intent ?? '-'}  ${f.message}`);
    return `${head}: ${r.findings.length} finding${r.findings.length === 1 ? '' : 's'}.\n${lines.join('\n')}\n`;
  });
  if (r.findings.length) process.exitCode = 1;
}
