// Item 3: `intent verify` over thousands of governed commits.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  REPS, check, data, fastImport, genContent, genPath, git, governRepo, intent, log, stats, syntheticRepo,
} from './util.mjs';

/**
 * A repository with `count` governed commits on intent/VER: the commits come from one
 * fast-import stream (1–3 files each), their trace records are built by the package's own code
 * (dist/lib/git/diff.js `diffCommits` with the hook's pinned diff options, dist/lib/git/blobs.js,
 * dist/lib/trace/record.js `buildRecord` / `noteText`: what post-commit writes), and all notes go into
 * refs/notes/intents with a second fast-import stream; the ledger gets one chained line each.
 */
export async function governedHistory(dir, count, pkgDir) {
  const lib = (m) => import(pathToFileURL(join(pkgDir, 'dist', 'lib', m)).href);
  const [{ diffCommits }, { readBlobs }, { buildRecord, noteText }, { loadRegistry, findIntent }, { sha256Hex }] = await Promise.all(
    ['git/diff.js', 'git/blobs.js', 'trace/record.js', 'intents/registry.js', 'trace/hashing.js'].map(lib),
  );
  const BASE_FILES = 200;
  await syntheticRepo(dir, BASE_FILES);
  governRepo(dir, [{ id: 'VER', scope: ['src/**'], status: 'IN_PROGRESS' }]);
  const main = git(dir, ['rev-parse', 'main']).stdout.trim();
  const t0 = Math.floor(Date.now() / 1000) + 1;
  const marks = join(dir, '..', 'verify-marks');
  await fastImport(dir, async (w) => {
    for (let k = 1; k <= count; k++) {
      await w(`commit refs/heads/intent/VER\nmark :${k}\ncommitter Bench <bench@bench.invalid> ${t0 + k} +0000\n${data(`governed commit ${k}`)}`);
      if (k === 1) await w(`from ${main}\n`);
      // A new or rewritten small module, and every other commit an edit of a tree file.
      await w(`M 100644 inline src/v/m${k % 97}.ts\n${data(`// module ${k % 97}, commit ${k}\n` + `export const a${k} = ${k};\nexport const b${k} = ${k * 2};\n`.repeat(1 + (k % 3)))}`);
      if (k % 2 === 0) {
        const j = (k * 7) % BASE_FILES;
        const lines = genContent(j).split('\n');
        lines[2 + (k % 4)] = `export const edited = ${k};`;
        await w(`M 100644 inline ${genPath(j)}\n${data(lines.join('\n'))}`);
      }
      if (k % 5 === 0) await w(`M 100644 inline src/v/log.txt\n${data(`${k}\n`)}`);
    }
  }, [`--export-marks=${marks}`]);
  const shas = new Map(readFileSync(marks, 'utf8').trim().split('\n').map((l) => {
    const [m, sha] = l.split(' ');
    return [Number(m.slice(1)), sha];
  }));
  check(shas.size === count, `fast-import made ${shas.size} commits, expected ${count}`);
  const commits = Array.from({ length: count }, (_, i) => ({ sha: shas.get(i + 1), parent: i === 0 ? main : shas.get(i) }));
  const diffs = diffCommits(dir, commits);
  const blobs = readBlobs(dir, [...diffs.values()].flat().flatMap((c) => [c.oldOid, c.newOid]));
  const registryFile = join(dir, '.orchestration', 'active_intents.yaml');
  const intentEntry = findIntent(loadRegistry(registryFile), 'VER');
  const registry = { path: '.orchestration/active_intents.yaml', sha256: sha256Hex(readFileSync(registryFile)) };
  let prev = null;
  const ledger = [];
  await fastImport(dir, async (w) => {
    await w(`commit refs/notes/intents\ncommitter Bench <bench@bench.invalid> ${t0 + count + 1} +0000\n${data(`notes of ${count} governed commits`)}`);
    for (const c of commits) {
      const record = buildRecord({ sha: c.sha, parents: [c.parent], changes: diffs.get(c.sha), blobs, intent: intentEntry, registry, scopeViolations: [] });
      await w(`N inline ${c.sha}\n${data(noteText(record))}`);
      const line = structuredClone(record);
      line.metadata['dev.intent'].prev_line_sha256 = prev;
      const text = JSON.stringify(line);
      ledger.push(text);
      prev = sha256Hex(text);
    }
  });
  writeFileSync(join(dir, '.orchestration', 'agent_trace.jsonl'), ledger.join('\n') + '\n');
  log(`  ${count} governed commits with notes and ledger lines written`);
  return { dir, range: ['intent/VER'], count };
}

/** Times `intent verify <range> --json` (warm-up + reps); every run must report 0 findings. */
export function verifyThroughput(h, reps = REPS) {
  const times = [];
  const cpu = [];
  let last;
  for (let r = -1; r < reps; r++) {
    const res = intent(h.dir, ['verify', ...h.range, '--json'], { allowFail: true });
    last = JSON.parse(res.stdout || '{}');
    check(res.status === 0 && last.findings?.length === 0, `verify of ${h.count} commits: exit ${res.status}, findings ${JSON.stringify(last.findings?.slice(0, 3))}${res.stderr}`);
    check(last.governed === h.count && last.ledger?.lines === h.count, `verify saw ${last.governed} governed commits and ${last.ledger?.lines} ledger lines, expected ${h.count}`);
    if (r >= 0) {
      times.push(res.ms);
      cpu.push(res.cpu ?? NaN);
    }
  }
  const s = stats(times);
  return { count: h.count, time: s, cpu: stats(cpu), perSecond: h.count / (s.median / 1000), governed: last.governed, findings: last.findings.length, ledgerLines: last.ledger.lines };
}
