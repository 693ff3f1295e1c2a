import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { checkOutputPath, writeFileAtomic } from '../core/files.js';
import { openRepo, stateDir } from '../git/repo.js';
import { collectReport, type CollectOptions } from './collect.js';
import { renderPage } from './page.js';
import type { ReportData } from './types.js';

/**
 * The file `intent report` writes when no `--out` is given, in intent's state folder of the
 * repository (`<git-common-dir>/intent/`): never in the work tree, where an untracked page would
 * be one more file for `git add -A` and would stop `intent done --merge` (the main worktree must be clean).
 */
export const DEFAULT_REPORT_FILE = 'report.html';

/** What `writeReport` wrote. */
export interface WrittenReport {
  path: string;
  bytes: number;
  data: ReportData;
}

/** Gathers the report of the repository around `cwd` and writes the page to `out` (relative to `cwd`; default: `<git-common-dir>/intent/report.html`). */
export function writeReport(cwd: string, opts: CollectOptions & { out?: string } = {}): WrittenReport {
  const path = opts.out !== undefined ? resolve(cwd, opts.out) : join(stateDir(openRepo(cwd)), DEFAULT_REPORT_FILE);
  if (opts.out !== undefined) checkOutputPath(path);
  const data = collectReport(cwd, opts);
  const html = renderPage(data);
  // intent's folder of the git dir: absent in a clone where intent init never ran (a teammate's, CI's).
  if (opts.out === undefined) mkdirSync(dirname(path), { recursive: true });
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
