import { resolve } from 'node:path';
import { writeFileAtomic } from '../core/files.js';
import { collectReport, type CollectOptions } from './collect.js';
import { renderPage } from './page.js';
import type { ReportData } from './types.js';

/** The file `intent report` writes when no `--out` is given (in the current directory). */
export const DEFAULT_REPORT_FILE = 'intent-report.html';

/** What `writeReport` wrote. */
export interface WrittenReport {
  path: string;
  bytes: number;
  data: ReportData;
}

/** Gathers the report of the repository around `cwd` and writes the page to `out` (relative to `cwd`). */
export function writeReport(cwd: string, opts: CollectOptions & { out?: string } = {}): WrittenReport {
  const data = collectReport(cwd, opts);
  const html = renderPage(data);
  const path = resolve(cwd, opts.out ?? DEFAULT_REPORT_FILE);
  writeFileAtomic(path, html);
  return { path, bytes: Buffer.byteLength(html), data };
}

/** The one-line summary the command prints. */
export function summarize(r: WrittenReport): string {
  const d = r.data;
  const now = d.totals.lines_now;
  const share = now.total ? ` AI wrote ${((100 * now.ai) / now.total).toFixed(1)}% of the ${now.total} lines now in them;` : '';
  const found = d.findings.length ? `${d.findings.length} finding${d.findings.length === 1 ? '' : 's'}` : 'verify clean';
  return `intent report: ${d.intents.length} intent${d.intents.length === 1 ? '' : 's'}, ${d.commits.length} governed commit${d.commits.length === 1 ? '' : 's'}, ${d.files.length} file${d.files.length === 1 ? '' : 's'};${share} ${found}.`;
}
