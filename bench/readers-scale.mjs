#!/usr/bin/env node
// The readers on a long history of large files (issue 42): N governed commits on intent/VER, each
// changing one line of a 320 KB file, their notes built by the product's own record code, then
// `intent verify`, `intent report` and `intent gate` (CI mode) over the whole branch, each once
// under /usr/bin/time. Prints one JSON line: wall time and peak resident size of each. Before the
// gate and the content check read in bounded batches, 2,000 such commits held 2.29 GB and 3,000
// ended in `spawnSync git ENOBUFS`.
//
//   node bench/readers-scale.mjs [N]     (default 10000; needs `npm run build` and /usr/bin/time)
import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { check, data, fastImport, git, governRepo, isolatedRun, log, removeTree, run } from './util.mjs';

const n = Number(process.argv[2] ?? 10000);
if (!(n > 0)) {
  process.stderr.write('usage: node bench/readers-scale.mjs [N]\n');
  process.exit(2);
}
const LINES = 8000; // 8,000 lines of 40 bytes: 320 KB
const root = realpathSync(mkdtempSync(join(tmpdir(), 'intent-bench-readers-')));
try {
  const { pkg, cli } = isolatedRun(root);
  const lib = (m) => import(pathToFileURL(join(pkg, 'dist', 'lib', m)).href);
  const [{ diffCommits }, { readBlobs }, { buildRecord, noteText }, { loadRegistry, findIntent }, { sha256Hex }] = await Promise.all(
    ['git/diff.js', 'git/blobs.js', 'trace/record.js', 'intents/registry.js', 'trace/hashing.js'].map(lib),
  );
  const dir = join(root, 'repo');
  git(root, ['init', '-q', '-b', 'main', dir]);
  const lines = Array.from({ length: LINES }, (_, i) => `line ${String(i).padStart(6, '0')} of a large file ....\n`.slice(0, 40).padEnd(39, '.') + '\n');
  writeFileSync(join(dir, 'README.md'), '# readers\n');
  git(dir, ['add', '-A']);
  git(dir, ['commit', '-q', '-m', 'initial']);
  governRepo(dir, [{ id: 'VER', scope: ['src/**'], status: 'IN_PROGRESS' }]);
  const main = git(dir, ['rev-parse', 'main']).stdout.trim();
  const t0 = Math.floor(Date.now() / 1000) - n - 10;
  const marks = join(root, 'marks');
  await fastImport(dir, async (w) => {
    for (let k = 0; k <= n; k++) {
      if (k > 0) lines[(k * 7) % LINES] = `changed by commit ${k}`.padEnd(39, '.') + '\n';
      await w(`commit refs/heads/intent/VER\nmark :${k + 1}\ncommitter Bench <bench@bench.invalid> ${t0 + k} +0000\n${data(k ? `commit ${k}` : 'the large file')}`);
      if (k === 0) await w(`from ${main}\n`);
      await w(`M 100644 inline src/big.txt\n${data(lines.join(''))}`);
    }
  }, [`--export-marks=${marks}`]);
  const shas = new Map((await import('node:fs')).readFileSync(marks, 'utf8').trim().split('\n').map((l) => {
    const [m, sha] = l.split(' ');
    return [Number(m.slice(1)), sha];
  }));
  check(shas.size === n + 1, `fast-import made ${shas.size} commits, expected ${n + 1}`);
  const intentEntry = findIntent(loadRegistry(join(dir, '.orchestration', 'active_intents.yaml')), 'VER');
  const registry = { path: '.orchestration/active_intents.yaml', sha256: sha256Hex((await import('node:fs')).readFileSync(join(dir, '.orchestration', 'active_intents.yaml'))) };
  // Notes a few hundred commits at a time (what post-commit writes for each), in one stream.
  await fastImport(dir, async (w) => {
    await w(`commit refs/notes/intents\ncommitter Bench <bench@bench.invalid> ${t0 + n + 1} +0000\n${data(`notes of ${n + 1} commits`)}`);
    for (let i = 0; i <= n; i += 200) {
      const chunk = Array.from({ length: Math.min(200, n + 1 - i) }, (_, j) => ({ sha: shas.get(i + j + 1), parent: i + j === 0 ? main : shas.get(i + j) }));
      const diffs = diffCommits(dir, chunk);
      const blobs = readBlobs(dir, [...diffs.values()].flat().flatMap((c) => [c.oldOid, c.newOid]));
      for (const c of chunk) {
        const record = buildRecord({ sha: c.sha, parents: [c.parent], changes: diffs.get(c.sha), blobs, intent: intentEntry, registry, scopeViolations: [] });
        await w(`N inline ${c.sha}\n${data(noteText(record))}`);
      }
    }
  });
  log(`  ${n + 1} governed commits of a 320 KB file, with notes`);
  const timed = (args) => {
    const r = run('/usr/bin/time', ['-f', '%M', process.execPath, cli, ...args], { cwd: dir, allowFail: true });
    return { exit: r.status, s: +(r.ms / 1000).toFixed(1), peak_rss_mib: Math.round(Number(r.stderr.trim().split('\n').pop()) / 1024), out: r.stdout };
  };
  // Each must finish clean; a failure is reported with its first words, not thrown (the others still run).
  const verify = timed(['verify', 'main..intent/VER', '--no-ledger', '--json']);
  const report = timed(['report', 'main..intent/VER', '--out', join(root, 'report.html'), '--json']);
  const gate = timed(['gate', '--base', 'main', '--ref', 'refs/heads/intent/VER', '--new', 'intent/VER', '--pusher', 'bench', '--json']);
  const strip = ({ out, ...rest }) => (rest.exit === 0 ? rest : { ...rest, error: out.slice(0, 200) });
  process.stdout.write(JSON.stringify({ commits: n + 1, file_kb: 320, verify: strip(verify), report: strip(report), gate: strip(gate) }) + '\n');
} finally {
  removeTree(root);
}
