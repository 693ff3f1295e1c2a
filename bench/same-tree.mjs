#!/usr/bin/env node
// `node bench/same-tree.mjs [rounds] [name=dist dir …]` (after `npm run build`): the same-tree
// shortcut's cost for a comment-only commit of ~5 KB TypeScript files (this repository's own lib
// files, each commit changing the comment on their first line), 3 files and 10 files, as the hook
// server's read-ahead calls it (`unchangedTrees`), in this process:
//   cold: the parse cache emptied first (a server's first commit of these files);
//   kept: the cache holding what the previous commit left (its new sides, this commit's old sides):
//         the usual flow of an agent editing the same files;
//   both: this commit's two sides kept (the same commit again).
// Before the trivia proof (lib/mutation/syntax/trivia.ts) cold parsed both sides and walked the
// trees, kept parsed the new sides, both walked; now cold parses the old sides and places their
// tokens, kept and both read the changed lines of the new sides only.
// Other builds given as name=dist dir (an earlier version's dist, with node_modules reachable from
// it) are measured in the same rounds; a build without the cache has only "cold".
// Each round runs every measure once, in an order that rotates; the first tenth of the rounds are a
// warm-up, not counted. Prints the medians (ms per call) and the spread, and the parses alone.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const PKG = fileURLToPath(new URL('..', import.meta.url));
const ts = createRequire(join(PKG, 'package.json'))('typescript');
const ROUNDS = Number(process.argv[2]) || 300;
const builds = [['this', join(PKG, 'dist')], ...process.argv.slice(3).map((s) => s.split('='))];

const FILES = ['lib/agents/codex.ts', 'lib/agents/hookless-git.ts', 'lib/git/snapshot.ts', 'lib/agents/cursor.ts', 'lib/agents/shell/packages.ts',
  'lib/mutation/syntax/fallback.ts', 'lib/hooks/ahead-start.ts', 'lib/trace/carry-match.ts', 'lib/trace/repair.ts', 'lib/report/hash-credit.ts'];
const SOURCES = FILES.map((p) => readFileSync(join(PKG, p), 'utf8'));
/** Version `r` of the first `n` files: each file's first line's comment says r. */
const version = (n, r) => SOURCES.slice(0, n).map((t) => t.replace(/^[^\n]*/, (line) => `${line} r${r}`));
const commit = (n, r) => {
  const [a, b] = [version(n, r - 1), version(n, r)];
  return a.map((oldText, i) => ({ path: `src/f${i}.ts`, oldText, newText: b[i] }));
};

const ms = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;
/** The measures: name → round → ms. */
const measures = [];
const mods = [];
for (const [name, dist] of builds) mods.push([name, await import(pathToFileURL(join(dist, 'lib/mutation/syntax/same-tree.js')).href)]);
for (const n of [3, 10]) {
  for (const [name, m] of mods) {
    const timed = (files) => {
      const t0 = process.hrtime.bigint();
      const same = m.unchangedTrees(files);
      const t = ms(t0);
      if (!same) throw new Error(`${name}: a comment-only commit was not found the same tree`);
      return t;
    };
    const clear = m.clearParseCache ?? (() => {});
    measures.push([`${n} files, ${name}: cold`, (r) => (clear(), timed(commit(n, r)))]);
    if (!m.parseCacheStats) continue;
    measures.push([`${n} files, ${name}: kept (previous commit's sides)`, (r) => {
      clear();
      m.unchangedTrees(commit(n, r - 1)); // the previous commit
      const t = timed(commit(n, r));
      if (m.parseCacheStats().hits !== n) throw new Error(`${name}: expected the ${n} old sides from the cache, got ${m.parseCacheStats().hits} hits`);
      return t;
    }]);
    measures.push([`${n} files, ${name}: both sides kept`, (r) => (clear(), m.unchangedTrees(commit(n, r)), timed(commit(n, r)))]);
  }
  measures.push([`${n} files: the ${2 * n} parses alone (createSourceFile)`, (r) => {
    const files = commit(n, r);
    const t0 = process.hrtime.bigint();
    for (const f of files) for (const text of [f.oldText, f.newText]) ts.createSourceFile('/x.ts', text, { languageVersion: ts.ScriptTarget.Latest, jsDocParsingMode: ts.JSDocParsingMode.ParseNone }, false, ts.ScriptKind.TS);
    return ms(t0);
  }]);
}

const times = measures.map(() => []);
const warmup = Math.ceil(ROUNDS / 10);
for (let r = 2; r < ROUNDS + warmup + 2; r++) {
  for (let j = 0; j < measures.length; j++) {
    const i = (j + r) % measures.length;
    const t = measures[i][1](r);
    if (r - 2 >= warmup) times[i].push(t);
  }
}

const q = (xs, f) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(f * s.length))];
};
console.log(`comment-only commits of 3 and 10 files of ${SOURCES.map((t) => t.length).join(', ')} characters; node ${process.version}, TypeScript ${ts.version}`);
for (const [i, [name]] of measures.entries()) {
  const xs = times[i];
  console.log(`${name.padEnd(52)} median ${q(xs, 0.5).toFixed(3)} ms  (p25–p75 ${q(xs, 0.25).toFixed(3)}–${q(xs, 0.75).toFixed(3)}, n=${xs.length})`);
}
