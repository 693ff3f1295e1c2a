#!/usr/bin/env node
// The gate at scale (issue 39): `intent gate` (CI mode, the code pre-receive runs) on a push of N
// governed commits, accepting them with their notes and refusing them without (every commit
// NOTE_MISSING), one run each, wall clock and peak resident size (/usr/bin/time). Prints one JSON
// line. The history is bench/verify.mjs's: a module per commit and every other commit an edit of
// a file of a 200-file tree, fast-imported, with notes built by the product's own record code.
//
//   node bench/gate-scale.mjs [N]     (default 50000; needs `npm run build` and /usr/bin/time)
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { check, git, isolatedRun, removeTree, run } from './util.mjs';
import { governedHistory } from './verify.mjs';

const n = Number(process.argv[2] ?? 50000);
if (!(n > 0)) {
  process.stderr.write('usage: node bench/gate-scale.mjs [N]\n');
  process.exit(2);
}
const root = realpathSync(mkdtempSync(join(tmpdir(), 'intent-bench-gate-scale-')));
try {
  const { pkg, cli } = isolatedRun(root);
  const t0 = performance.now();
  const h = await governedHistory(join(root, 'repo'), n, pkg);
  const setup = (performance.now() - t0) / 1000;
  const gate = (notes) => {
    const r = run('/usr/bin/time', ['-f', '%M', process.execPath, cli, 'gate', '--base', 'main', '--ref', 'refs/heads/intent/VER', '--new', 'intent/VER', '--pusher', 'bench', '--notes', notes, '--json'], { cwd: h.dir, allowFail: true });
    const out = JSON.parse(r.stdout);
    return { exit: r.status, commits: out.commits, findings: out.findings.length, codes: [...new Set(out.findings.map((f) => f.code))], s: +(r.ms / 1000).toFixed(2), peak_rss_mib: Math.round(Number(r.stderr.trim().split('\n').pop()) / 1024) };
  };
  const accept = gate('refs/notes/intents');
  check(accept.exit === 0 && accept.commits === n, `accepting: ${JSON.stringify(accept)}`);
  git(h.dir, ['update-ref', 'refs/notes/none', git(h.dir, ['commit-tree', '4b825dc642cb6eb9a060e54bf8d69288fbee4904', '-m', 'no notes']).stdout.trim()]);
  const refuse = gate('refs/notes/none');
  check(refuse.exit === 1 && refuse.findings === n && refuse.codes.join() === 'NOTE_MISSING', `refusing: ${JSON.stringify(refuse)}`);
  process.stdout.write(JSON.stringify({ commits: n, setup_s: +setup.toFixed(1), accept, refuse, refuse_over_accept: +(refuse.s / accept.s).toFixed(2) }) + '\n');
} finally {
  removeTree(root);
}
