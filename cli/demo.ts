import { dirname } from 'node:path';
import { keepReport, removeDemo, runDemo } from '../lib/demo/index.js';

/** `intent demo`: the whole governed flow in a throw-away repository; ends with the path of its report. */
export async function run(opts: { cwd: string; dir?: string; keep: boolean }): Promise<void> {
  const r = await runDemo({ dir: opts.dir, log: (l) => process.stdout.write(l + '\n') });
  const ok = r.chainIntact && r.hashesVerified > 0 && r.rejected.exitCode !== 0;
  process.stdout.write(`\n${ok ? 'Demo passed' : 'Demo FAILED'}: ${r.governedCommits.length} governed commits recorded, 1 out-of-scope commit rejected.\n`);
  let report = r.report;
  if (opts.dir || opts.keep) process.stdout.write(`Kept: ${r.repo}\n`);
  else {
    report = keepReport(r.report);
    removeDemo(dirname(r.repo));
  }
  process.stdout.write(`Report: ${report} (open it in a browser)\n`);
  if (!ok) process.exitCode = 1;
}
