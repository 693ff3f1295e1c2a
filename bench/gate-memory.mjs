#!/usr/bin/env node
// The gate's memory on a push whose pack is small and whose blob is not (issue 39): a commit on an
// intent branch changing one text file of <MiB> MiB of repeated lines (the pack compresses it to a
// few hundred KiB), with a well-formed record. `intent gate` (CI mode, the same code as pre-receive)
// is run under /usr/bin/time; prints one JSON line: the verdict's codes, wall time and the peak
// resident size of the gate process. Before the bound, 500 MiB made the gate hold 3.5 GB.
//
//   node bench/gate-memory.mjs [MiB]     (default 500; needs `npm run build` and /usr/bin/time)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { snapshotPackage } from './util.mjs';

const mib = Number(process.argv[2] ?? 500);
if (!(mib > 0)) {
  process.stderr.write('usage: node bench/gate-memory.mjs [MiB]\n');
  process.exit(2);
}
const root = realpathSync(mkdtempSync(join(tmpdir(), 'intent-bench-mem-')));
const CLI = join(snapshotPackage(join(root, 'pkg')), 'dist', 'bin', 'intent.js');
const env = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@example.com', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@example.com' };
const sh = (cmd, args, cwd, opts = {}) => {
  const r = spawnSync(cmd, args, { cwd, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...opts });
  if (r.status !== 0 && !opts.allowFail) throw new Error(`${cmd} ${args.join(' ')}: ${r.stderr}`);
  return r;
};
const git = (cwd, ...args) => sh('git', args, cwd).stdout.trim();

try {
  const repo = join(root, 'repo');
  git(root, 'init', '-q', '-b', 'main', repo);
  writeFileSync(join(repo, 'README.md'), '# mem\n');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'initial');
  sh(process.execPath, [CLI, 'init'], repo);
  writeFileSync(join(repo, '.orchestration', 'active_intents.yaml'), 'active_intents:\n  - id: "INT-001"\n    name: "Mem"\n    status: "IN_PROGRESS"\n    owned_scope: ["src/**"]\n');
  writeFileSync(join(repo, '.orchestration', 'authority.yaml'), 'agents:\n  agent-1: ["INT-001"]\n');
  git(repo, 'add', '.orchestration');
  git(repo, 'commit', '-q', '-m', 'register');
  const wt = JSON.parse(sh(process.execPath, [CLI, 'checkout', 'INT-001', '--json'], repo).stdout).path;
  // A governed one-line commit: its record is the template of the big one's.
  sh('mkdir', ['-p', 'src'], wt);
  writeFileSync(join(wt, 'src', 'big.txt'), 'a line of text\n');
  git(wt, 'add', 'src/big.txt');
  git(wt, 'commit', '-q', '-m', 'small');
  const small = git(wt, 'rev-parse', 'HEAD');
  const note = git(wt, 'notes', '--ref=intents', 'show', small);
  // The big blob, streamed into git (never in this process), and a commit of it beside the small one.
  const blob = sh('sh', ['-c', `yes 'a line of text' | head -c ${mib * 1024 * 1024} | git hash-object -w --stdin`], wt).stdout.trim();
  const index = join(root, 'index');
  sh('git', ['read-tree', `${small}^{tree}`], wt, { env: { ...env, GIT_INDEX_FILE: index } });
  sh('git', ['update-index', '--cacheinfo', `100644,${blob},src/big.txt`], wt, { env: { ...env, GIT_INDEX_FILE: index } });
  const tree = sh('git', ['write-tree'], wt, { env: { ...env, GIT_INDEX_FILE: index } }).stdout.trim();
  const big = git(wt, 'commit-tree', tree, '-p', `${small}^`, '-m', 'big');
  sh('git', ['notes', '--ref=refs/notes/bench', 'add', '-f', '-F', '-', big], wt, { input: note.split(small).join(big) + '\n' });
  const base = git(repo, 'rev-parse', 'main');
  const t0 = performance.now();
  const r = sh('/usr/bin/time', ['-f', '%M', process.execPath, CLI, 'gate', '--base', base, '--ref', 'refs/heads/intent/INT-001', '--new', big, '--pusher', 'agent-1', '--notes', 'refs/notes/bench', '--json'], wt, { allowFail: true });
  const wall = performance.now() - t0;
  const rssKb = Number(r.stderr.trim().split('\n').pop());
  const verdict = JSON.parse(r.stdout);
  process.stdout.write(JSON.stringify({
    blob_mib: mib, exit: r.status, codes: [...new Set(verdict.findings.map((f) => f.code))],
    peak_rss_mib: Math.round(rssKb / 1024), wall_s: +(wall / 1000).toFixed(2),
  }) + '\n');
} finally {
  rmSync(root, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
}
