#!/usr/bin/env node
// `node bench/same-tree.mjs [rounds] [name=dist dir …]` (after `npm run build`): the same-tree
// shortcut's cost for a 3-file comment-only commit of ~5 KB TypeScript files (three of this
// repository's own lib files, each commit changing the comment on their first line), as the hook
// server's read-ahead calls it (`unchangedTrees`), in this process:
//   cold: the parse cache emptied first, so both sides of every file are parsed;
//   kept: the cache holding what the previous commit parsed (its new sides, this commit's old
//         sides), so only the new sides are parsed: the usual flow of an agent editing the same files;
//   both: both sides kept (the same commit again): no parse, the trees' walk alone.
// Other builds given as name=dist dir (an earlier version's dist, with node_modules reachable from
// it) are measured in the same rounds; a build without the cache has only "cold".
// Each round runs every measure once, in an order that rotates; the first tenth of the rounds are a
// warm-up, not counted. Prints the medians (ms per call) and the spread, and the six parses alone.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const PKG = fileURLToPath(new URL('..', import.meta.url));
const ts = createRequire(join(PKG, 'package.json'))('typescript');
const ROUNDS = Number(process.argv[2]) || 300;
const builds = [['this', join(PKG, 'dist')], ...process.argv.slice(3).map((s) => s.split('='))];

const SOURCES = ['lib/agents/codex.ts', 'lib/agents/hookless-git.ts', 'lib/git/snapshot.ts'].map((p) => readFileSync(join(PKG, p), 'utf8'));
const PATHS = ['src/a.ts', 'src/b.ts', 'src/c.ts'];
/** Version `r` of every file: its first line's comment says r. */
const version = (r) => SOURCES.map((t) => t.replace(/^[^\n]*/, (line) => `${line} r${r}`));
const commit = (r) => {
  const [a, b] = [version(r - 1), version(r)];
  return PATHS.map((path, i) => ({ path, oldText: a[i], newText: b[i] }));
};

const ms = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;
/** The measures: name → (round's files, round) → ms. */
const measures = [];
for (const [name, dist] of builds) {
  const m = await import(pathToFileURL(join(dist, 'lib/mutation/syntax/same-tree.js')).href);
  const timed = (files) => {
    const t0 = process.hrtime.bigint();
    const same = m.unchangedTrees(files);
    const t = ms(t0);
    if (!same) throw new Error(`${name}: a comment-only commit was not found the same tree`);
    return t;
  };
  const clear = m.clearParseCache ?? (() => {});
  measures.push([`${name}: cold (6 parses)`, (files) => (clear(), timed(files))]);
  if (!m.parseCacheStats) continue;
  measures.push([`${name}: old sides kept (3 parses)`, (files, r) => {
    clear();
    m.unchangedTrees(commit(r - 1)); // the previous commit
    const t = timed(files);
    if (m.parseCacheStats().hits !== 3) throw new Error(`${name}: expected the three old sides from the cache, got ${m.parseCacheStats().hits} hits`);
    return t;
  }]);
  measures.push([`${name}: both sides kept (the walk)`, (files) => (clear(), m.unchangedTrees(files), timed(files))]);
}
measures.push(['the 6 parses alone (createSourceFile)', (files) => {
  const t0 = process.hrtime.bigint();
  for (const f of files) for (const text of [f.oldText, f.newText]) ts.createSourceFile('/x.ts', text, { languageVersion: ts.ScriptTarget.Latest, jsDocParsingMode: ts.JSDocParsingMode.ParseNone }, false, ts.ScriptKind.TS);
  return ms(t0);
}]);

const times = measures.map(() => []);
const warmup = Math.ceil(ROUNDS / 10);
for (let r = 2; r < ROUNDS + warmup + 2; r++) {
  const files = commit(r);
  for (let j = 0; j < measures.length; j++) {
    const i = (j + r) % measures.length;
    const t = measures[i][1](files, r);
    if (r - 2 >= warmup) times[i].push(t);
  }
}

const q = (xs, f) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(f * s.length))];
};
console.log(`3-file comment-only commit, files of ${SOURCES.map((t) => t.length).join(', ')} characters; node ${process.version}, TypeScript ${ts.version}`);
for (const [i, [name]] of measures.entries()) {
  const xs = times[i];
  console.log(`${name.padEnd(48)} median ${q(xs, 0.5).toFixed(3)} ms  (p25–p75 ${q(xs, 0.25).toFixed(3)}–${q(xs, 0.75).toFixed(3)}, n=${xs.length})`);
}
