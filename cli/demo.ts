import { dirname } from 'node:path';
import { removeDemo, runDemo } from '../lib/demo/index.js';

/** `intent demo`: the whole governed flow in a throw-away repository. */
export function run(opts: { cwd: string; dir?: string; keep: boolean }): void {
  const r = runDemo({ dir: opts.dir, log: (l) => process.stdout.write(l + '\n') });
  const ok = r.chainIntact && r.hashesVerified > 0 && r.rejected.exitCode !== 0;
  process.stdout.write(`\n${ok ? 'Demo passed' : 'Demo FAILED'}: ${r.governedCommits.length} governed commits recorded, 1 out-of-scope commit rejected.\n`);
  if (opts.dir || opts.keep) process.stdout.write(`Kept: ${r.repo}\n`);
  else removeDemo(dirname(r.repo));
  if (!ok) process.exitCode = 1;
}
