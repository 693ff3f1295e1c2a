#!/usr/bin/env node
// `node bench/same-tree.mjs [rounds]` (after `npm run build`): the same-tree shortcut's cost for a
// 3-file comment-only commit of ~5 KB TypeScript files (three of this repository's own lib files,
// each commit changing the comment on their first line), as the hook server's read-ahead calls it
// (`unchangedTrees`), in this process:
//   cold: the parse cache emptied first, so both sides of every file are parsed;
//   kept: the cache holding what the previous commit parsed (its new sides, this commit's old
//         sides), so only the new sides are parsed — the usual flow of an agent editing the same files;
//   both: both sides kept (the same commit again): no parse, the trees' walk alone.
// Rounds rotate which of the three goes first; the first tenth are a warm-up, not counted.
// Prints the medians (ms per call) and the spread, and the cost of the six parses alone.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';

const PKG = fileURLToPath(new URL('..', import.meta.url));
const { unchangedTrees, clearParseCache, parseCacheStats } = await import(pathToFileURL(join(PKG, 'dist/lib/mutation/syntax/same-tree.js')).href);
const ts = createRequire(join(PKG, 'package.json'))('typescript');

const ROUNDS = Number(process.argv[2]) || 300;
const SOURCES = ['lib/agents/codex.ts', 'lib/agents/hookless-git.ts', 'lib/git/snapshot.ts'].map((p) => readFileSync(join(PKG, p), 'utf8'));
const PATHS = ['src/a.ts', 'src/b.ts', 'src/c.ts'];
/** Version `r` of every file: its first line's comment says r. */
const version = (r) => SOURCES.map((t) => t.replace(/^[^\n]*/, (line) => `${line} r${r}`));
const commit = (r) => {
  const [a, b] = [version(r - 1), version(r)];
  return PATHS.map((path, i) => ({ path, oldText: a[i], newText: b[i] }));
};

const ms = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;
const timed = (files) => {
  const t0 = process.hrtime.bigint();
  const same = unchangedTrees(files);
  const t = ms(t0);
  if (!same) throw new Error('a comment-only commit was not found the same tree');
  return t;
};

const cold = [];
const kept = [];
const both = [];
const parses = [];
const warmup = Math.ceil(ROUNDS / 10);
for (let r = 2; r < ROUNDS + warmup + 2; r++) {
  const files = commit(r);
  const runs = [
    () => {
      clearParseCache();
      return timed(files);
    },
    () => {
      clearParseCache();
      unchangedTrees(commit(r - 1)); // the previous commit
      const t = timed(files);
      if (parseCacheStats().hits !== 3) throw new Error(`expected the three old sides from the cache, got ${parseCacheStats().hits} hits`);
      return t;
    },
    () => {
      clearParseCache();
      unchangedTrees(files);
      return timed(files);
    },
  ];
  const order = [[0, 1, 2], [1, 2, 0], [2, 0, 1]][r % 3];
  const t = [];
  for (const i of order) t[i] = runs[i]();
  const t0 = process.hrtime.bigint();
  for (const f of files) for (const text of [f.oldText, f.newText]) ts.createSourceFile('/x.ts', text, { languageVersion: ts.ScriptTarget.Latest, jsDocParsingMode: ts.JSDocParsingMode.ParseNone }, false, ts.ScriptKind.TS);
  const p = ms(t0);
  if (r - 2 < warmup) continue;
  cold.push(t[0]);
  kept.push(t[1]);
  both.push(t[2]);
  parses.push(p);
}

const q = (xs, f) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(f * s.length))];
};
const line = (name, xs) => `${name.padEnd(44)} median ${q(xs, 0.5).toFixed(3)} ms  (p25–p75 ${q(xs, 0.25).toFixed(3)}–${q(xs, 0.75).toFixed(3)}, n=${xs.length})`;
const size = SOURCES.map((t) => t.length).join(', ');
console.log(`3-file comment-only commit, files of ${size} characters; node ${process.version}, TypeScript ${ts.version}`);
console.log(line('unchangedTrees, cold (6 parses)', cold));
console.log(line('unchangedTrees, old sides kept (3 parses)', kept));
console.log(line('unchangedTrees, both sides kept (the walk)', both));
console.log(line('the 6 parses alone (createSourceFile)', parses));
console.log(`kept / cold: ${(q(kept, 0.5) / q(cold, 0.5)).toFixed(2)}`);
