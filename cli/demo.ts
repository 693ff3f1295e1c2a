import { dirname } from 'node:path';
import { keepReport, removeDemo, runDemo } from '../lib/demo/index.js';

/** `intent demo`: the whole governed flow in a throw-away repository; ends with the path of its report. */
export async function run(opts: { cwd: string; dir?: string; keep: boolean; json?: boolean }): Promise<void> {
  // With --json the narration goes to stderr and stdout holds one JSON object.
  const out = opts.json ? process.stderr : process.stdout;
  const r = await runDemo({ dir: opts.dir, log: (l) => out.write(l + '\n') });
  const ok = r.chainIntact && r.hashesVerified > 0 && r.rejected.exitCode !== 0;
  out.write(`\n${ok ? 'Demo passed' : 'Demo FAILED'}: ${r.governedCommits.length} governed commits recorded, 1 out-of-scope commit rejected.\n`);
  let report = r.report;
  const kept = !!(opts.dir || opts.keep);
  if (kept) out.write(`Kept: ${r.repo}\n`);
  else {
    report = keepReport(r.report);
    removeDemo(dirname(r.repo));
  }
  out.write(`Report: ${report} (open it in a browser)\n`);
  if (opts.json) {
    process.stdout.write(JSON.stringify({ ok, repo: kept ? r.repo : null, report, governedCommits: r.governedCommits, rejected: r.rejected,
      hashesVerified: r.hashesVerified, ledgerLines: r.ledgerLines, chainIntact: r.chainIntact }, null, 2) + '\n');
  }
  if (!ok) process.exitCode = 1;
}
