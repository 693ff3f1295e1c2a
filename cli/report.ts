import { summarize, writeReport } from '../lib/report/index.js';

/** `intent report [<range>...]`: writes the page; prints its path on stdout (the summary on stderr), or the data with --json. */
export function run(opts: { cwd: string; range: string[]; out?: string; at?: string; json: boolean }): void {
  const r = writeReport(opts.cwd, { range: opts.range, out: opts.out, at: opts.at });
  if (opts.json) {
    process.stdout.write(JSON.stringify({ path: r.path, bytes: r.bytes, ...r.data }, null, 2) + '\n');
    return;
  }
  for (const w of r.data.warnings) process.stderr.write(`intent report: ${w}\n`);
  process.stderr.write(summarize(r) + '\n');
  process.stdout.write(r.path + '\n');
}
