#!/usr/bin/env node
// `node bench/tokens.mjs [reps]` (after `npm run build`; not part of `npm run bench`): the cheap
// classification of an ordinary three-file commit (lib/mutation/classify.ts `cheapClasses`: the
// byte rules and the token filter), in-process, as the hook server runs it before post-commit.
// The files: the first three of the repository's own lib/**/*.ts of 4.5-5.5 KB; the change: a line
// of code inserted at line 4 of each (bench/util.mjs stageEdit's ordinary change), round after
// round. Timed: the old cheapClasses (sorted token lists, texts squashed for the layout rule;
// test/token-reference.mjs, the code as it was) against the new one (token digests), with a cold cache (emptied before each call), a warm one (the
// old side is the previous round's new side, as from one commit to the next in the server) and a
// hot one (both sides seen: post-commit after the read-ahead); the byte rules alone (a claim skips
// the token filter), old and new; and one file's signature. Medians in ms after a warm-up (warm JIT);
// prints a Markdown table.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { cheapClasses } from '../dist/lib/mutation/classify.js';
import { clearTokenCache } from '../dist/lib/mutation/token-cache.js';
import { tokenSignature } from '../dist/lib/mutation/tokens.js';
import { oldCheapClasses, oldTokenSignature } from '../test/token-reference.mjs';
import { PKG, median } from './util.mjs';

const reps = Number(process.argv[2] ?? 301);

function libFiles(dir, out = []) {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) libFiles(p, out);
    else if (name.endsWith('.ts') && statSync(p).size >= 4500 && statSync(p).size <= 5500) out.push(p);
  }
  return out;
}
const files = libFiles(join(PKG, 'lib')).slice(0, 3);
const base = files.map((p) => readFileSync(p, 'utf8'));

const blobId = (text) => createHash('sha1').update(`blob ${Buffer.byteLength(text)}\0`).update(text).digest('hex');

/** Round `seq`'s commit: each file with `export const edit<k> = <k>;` at line 4 for k ≤ seq (the old side: k < seq). */
function round(seq) {
  const text = (t, n) => {
    const lines = t.split('\n');
    for (let k = 1; k <= n; k++) lines.splice(3, 0, `export const edit${k} = ${k};`);
    return lines.join('\n');
  };
  const blobs = new Map();
  const changes = base.map((t, i) => {
    const [a, b] = [text(t, seq - 1), text(t, seq)];
    const [oldOid, newOid] = [blobId(a), blobId(b)];
    blobs.set(oldOid, Buffer.from(a));
    blobs.set(newOid, Buffer.from(b));
    return { status: 'M', path: `src/f${i}.ts`, oldPath: null, oldMode: '100644', newMode: '100644', oldOid, newOid, similarity: null, hunks: [] };
  });
  return { changes, blobs };
}

const ROUNDS = 64;
const commits = Array.from({ length: ROUNDS }, (_, i) => round(i + 1));

/** Median ms of `fn(commit)` over `reps` calls, round after round; `before` runs untimed before each. */
function time(fn, before = () => {}) {
  const xs = [];
  for (let i = 0; i < reps + 50; i++) {
    const c = commits[i % ROUNDS];
    before(c, i);
    const t0 = process.hrtime.bigint();
    fn(c);
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    if (i >= 50) xs.push(ms);
  }
  return median(xs);
}

// The decisions agree (an ordinary change: every file an evolution, no survivor).
for (const c of commits.slice(0, 3)) {
  const [o, n] = [oldCheapClasses(c.changes, c.blobs), cheapClasses(c.changes, c.blobs)];
  if (JSON.stringify([...o.out]) !== JSON.stringify([...n.out]) || o.survivors.length !== n.survivors.length) throw new Error('old and new decide differently');
}

const rows = [
  ['old: sorted token lists, texts squashed', time((c) => oldCheapClasses(c.changes, c.blobs))],
  ['new: digests, cold cache', time((c) => cheapClasses(c.changes, c.blobs), () => clearTokenCache())],
  ['new: digests, warm cache (old side cached)', time((c) => cheapClasses(c.changes, c.blobs), (c, i) => {
    // Only the previous round's commit was seen: its new side is this one's old side.
    clearTokenCache();
    cheapClasses(commits[(i + ROUNDS - 1) % ROUNDS].changes, commits[(i + ROUNDS - 1) % ROUNDS].blobs);
  })],
  ['new: digests, hot cache (both sides cached)', time((c) => cheapClasses(c.changes, c.blobs), (c) => cheapClasses(c.changes, c.blobs))],
  ['old byte rules alone (claimed: no token filter)', time((c) => oldCheapClasses(c.changes, c.blobs, true))],
  ['new byte rules alone (claimed: no token filter)', time((c) => cheapClasses(c.changes, c.blobs, true))],
];
const text = base[0];
const one = [
  ['one file: old tokenSignature (sort + join)', time(() => oldTokenSignature(text))],
  ['one file: new tokenSignature (digest)', time(() => tokenSignature(text))],
];

console.log(`cheapClasses, an ordinary change of 3 files (${base.map((t) => `${(t.length / 1024).toFixed(1)} KB`).join(', ')}; ${files.map((p) => p.slice(PKG.length)).join(', ')}), median of ${reps} calls, warm JIT, node ${process.version}\n`);
console.log('| measure | ms per call |\n| --- | --- |');
for (const [name, ms] of [...rows, ...one]) console.log(`| ${name} | ${ms.toFixed(3)} |`);
