import { IntentError } from '../lib/core/index.js';
import { exportGitAi, importGitAi, type InteropResult } from '../lib/interop/index.js';
import { emit } from './output.js';

function format(value: string | undefined): 'git-ai' {
  if (value !== 'git-ai') throw new IntentError('USAGE', `--format takes git-ai (the Git AI Standard v3.0.0, refs/notes/ai), got ${JSON.stringify(value ?? '')}`, {});
  return value;
}

function said(verb: string, r: InteropResult): string {
  const lines = [`intent ${verb}: ${r.written.length} note${r.written.length === 1 ? '' : 's'} written on ${r.ref}` +
    (r.kept.length ? `; ${r.kept.length} kept (the commit had one there already: --force replaces it)` : '') +
    (r.skipped ? `; ${r.skipped} commit${r.skipped === 1 ? '' : 's'} of the range with nothing to convert` : '') + '.'];
  for (const w of r.warnings) lines.push(`intent ${verb}: ${w}`);
  return lines.join('\n') + '\n';
}

/** `intent export --format git-ai [range...]`. */
export function runExport(opts: { cwd: string; range: string[]; format?: string; force: boolean; json: boolean }): void {
  format(opts.format);
  const r = exportGitAi(opts.cwd, opts.range, { force: opts.force });
  emit(opts.json, r, () => said('export', r));
}

/** `intent import --format git-ai [range...]`. */
export function runImport(opts: { cwd: string; range: string[]; format?: string; intent?: string; force: boolean; json: boolean }): void {
  format(opts.format);
  const r = importGitAi(opts.cwd, opts.range, { force: opts.force, intent: opts.intent });
  emit(opts.json, r, () => said('import', r));
}
