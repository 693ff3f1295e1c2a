// Property tests of the hunks (lib/git/diff.ts + lib/git/hunks.ts) and the hashed ranges (lib/trace/record.ts)
// against git's own `git diff -U0` on random edits of random files: lines from a small alphabet
// (so repeats happen, some looking like diff syntax), with or without a trailing newline,
// sometimes CRLF or mixed line endings, sometimes empty. For every case:
//   (a) the hunks commitDiff parses equal the hunk headers of `git diff -U0`, re-parsed here;
//   (b) applying the hunks to the old file (delete the old lines, insert the new file's lines
//       newStart..newStart+newCount-1) reproduces the new file byte for byte;
//   (c) every range of buildRecord's record hashes exactly those committed lines, computed here,
//       and the ranges cover exactly the added lines.
// Seeded (HUNKS_SEED=<n> to replay another seed); every failure message names the seed and case.
import { createHash } from 'node:crypto';
import { describe, expect, it, onTestFailed } from 'vitest';
import { readBlobs } from '../../lib/git/blobs.js';
import { commitDiff } from '../../lib/git/diff.js';
import type { Hunk } from '../../lib/git/hunks.js';
import type { Intent } from '../../lib/intents/registry.js';
import type { TraceRecord } from '../../lib/trace/record.js';
import { buildRecord } from '../../lib/trace/record.js';
import { git, makeRepo, writeFiles, prng } from '../helpers.js';

const SEED = Number(process.env.HUNKS_SEED ?? 0x5eed_2026);
const BATCHES = 4;
const PER_BATCH = 60;

/** Few distinct lines, so repeats (and ambiguous diffs) are common; some look like diff syntax. */
const ALPHABET = ['a', 'b', 'c', 'a', 'b', '', ' ', '}', '{', '\t', 'x y', '--- a/f', '+++ b/f', '@@ -1 +1 @@', '\\ No newline at end of file', 'ü', 'diff --git a/x b/x', ' -', '+'];

/** A file as lines, each with its own line ending; the last may have none. */
interface Text {
  lines: string[];
  eols: string[];
}

function render(t: Text): Buffer {
  return Buffer.from(t.lines.map((l, i) => l + t.eols[i]).join(''), 'utf8');
}

class Gen {
  constructor(private readonly rand: () => number) {}
  int(n: number): number {
    return Math.floor(this.rand() * n);
  }
  chance(p: number): boolean {
    return this.rand() < p;
  }
  line(): string {
    return ALPHABET[this.int(ALPHABET.length)];
  }
  lines(n: number): string[] {
    return Array.from({ length: n }, () => this.line());
  }
  /** The line-ending style of a file: LF mostly, sometimes CRLF, sometimes mixed. */
  eolStyle(): () => string {
    const r = this.rand();
    if (r < 0.7) return () => '\n';
    if (r < 0.85) return () => '\r\n';
    return () => (this.chance(0.5) ? '\r\n' : '\n');
  }
  file(): Text {
    if (this.chance(0.06)) return { lines: [], eols: [] };
    const n = this.chance(0.1) ? 30 + this.int(40) : 1 + this.int(15);
    const eol = this.eolStyle();
    const lines = this.lines(n);
    const eols = lines.map(() => eol());
    if (this.chance(0.3)) eols[eols.length - 1] = '';
    return { lines, eols };
  }
  /** One to four random edits: insert, delete, replace, move a block, toggle the final newline, change line endings, empty it. */
  edit(old: Text): Text {
    const lines = [...old.lines];
    const eols = [...old.eols];
    const eol = this.eolStyle();
    const ops = 1 + this.int(4);
    for (let k = 0; k < ops; k++) {
      const op = this.int(9);
      const at = this.int(lines.length + 1);
      if (op === 0 || op === 1) { // insert a block
        const n = 1 + this.int(5);
        lines.splice(at, 0, ...this.lines(n));
        eols.splice(at, 0, ...Array.from({ length: n }, () => eol()));
      } else if (op === 2) { // delete a block
        const n = 1 + this.int(4);
        lines.splice(at, n);
        eols.splice(at, n);
      } else if (op === 3 || op === 4) { // replace a block
        const n = 1 + this.int(3);
        const m = 1 + this.int(3);
        lines.splice(at, n, ...this.lines(m));
        eols.splice(at, n, ...Array.from({ length: m }, () => eol()));
      } else if (op === 5 && lines.length > 3) { // move a block
        const from = this.int(lines.length - 1);
        const n = 1 + this.int(3);
        const bl = lines.splice(from, n);
        const be = eols.splice(from, n);
        const to = this.int(lines.length + 1);
        lines.splice(to, 0, ...bl);
        eols.splice(to, 0, ...be);
      } else if (op === 6 && lines.length) { // toggle the final newline
        eols[eols.length - 1] = eols[eols.length - 1] === '' ? eol() : '';
      } else if (op === 7 && lines.length) { // change some line endings
        for (let i = this.int(lines.length); i < lines.length; i += 1 + this.int(3)) eols[i] = eols[i] === '\n' ? '\r\n' : '\n';
      } else if (op === 8 && this.chance(0.25)) { // empty the file
        lines.length = 0;
        eols.length = 0;
      }
      // Only the last line may lack a line ending.
      for (let i = 0; i < eols.length - 1; i++) if (eols[i] === '') eols[i] = eol();
    }
    const out = { lines, eols };
    if (render(out).equals(render(old))) {
      out.lines.push(`forced change ${this.int(1000)}`);
      if (out.eols.length && out.eols[out.eols.length - 1] === '') out.eols[out.eols.length - 1] = '\n';
      out.eols.push('\n');
    }
    return out;
  }
}

/** Lines of `content`, each with its trailing "\n" where it has one. */
function splitLines(content: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let from = 0;
  while (from < content.length) {
    const nl = content.indexOf(0x0a, from);
    const to = nl === -1 ? content.length : nl + 1;
    out.push(content.subarray(from, to));
    from = to;
  }
  return out;
}

function sha256Of(parts: Buffer[]): string {
  return 'sha256:' + createHash('sha256').update(Buffer.concat(parts)).digest('hex');
}

/** An independent parser of `git diff -U0` output: path → hunk headers, in order. */
function parseGitDiff(out: string): Map<string, Hunk[]> {
  const res = new Map<string, Hunk[]>();
  let current: Hunk[] | null = null;
  for (const line of out.split('\n')) {
    const file = /^diff --git a\/(\S+) b\/(\S+)$/.exec(line);
    if (file) {
      current = [];
      res.set(file[2], current);
      continue;
    }
    const h = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(line);
    if (h && current) {
      current.push({
        oldStart: Number(h[1]),
        oldCount: h[2] === undefined ? 1 : Number(h[2]),
        newStart: Number(h[3]),
        newCount: h[4] === undefined ? 1 : Number(h[4]),
      });
    }
  }
  return res;
}

/** Applies the hunks to the old lines; checks the new-side positions on the way. */
function applyHunks(oldLines: Buffer[], newLines: Buffer[], hunks: Hunk[], where: string): Buffer {
  const out: Buffer[] = [];
  let cursor = 0;
  for (const [k, h] of hunks.entries()) {
    const from = h.oldCount === 0 ? h.oldStart : h.oldStart - 1;
    expect(from, `${where} hunk ${k}: old lines in order`).toBeGreaterThanOrEqual(cursor);
    out.push(...oldLines.slice(cursor, from));
    expect(out.length, `${where} hunk ${k}: the new side starts where the unchanged lines end`).toBe(h.newCount === 0 ? h.newStart : h.newStart - 1);
    out.push(...newLines.slice(h.newStart - 1, h.newStart - 1 + h.newCount));
    cursor = from + h.oldCount;
  }
  expect(cursor, `${where}: hunks stay inside the old file`).toBeLessThanOrEqual(oldLines.length);
  out.push(...oldLines.slice(cursor));
  return Buffer.concat(out);
}

const INTENT: Intent = {
  id: 'INT-001',
  name: 'Property',
  status: 'IN_PROGRESS',
  owned_scope: ['**'],
  constraints: [],
  acceptance_criteria: [],
  related_specs: [],
};

describe(`hunks and hashed ranges agree with git on random edits (seed ${SEED})`, () => {
  it(`${BATCHES * PER_BATCH} random cases in ${BATCHES} batches`, () => {
    onTestFailed(() => {
      console.error(`hunks-property failed with seed ${SEED}; replay with HUNKS_SEED=${SEED}`);
    });
    const gen = new Gen(prng(SEED));
    const repo = makeRepo({ 'README.md': 'property\n' });
    let cases = 0;
    let hunksSeen = 0;
    let crlfCases = 0;
    let emptyCases = 0;
    let noEolCases = 0;
    for (let b = 0; b < BATCHES; b++) {
      const olds = new Map<string, Text>();
      const news = new Map<string, Text>();
      for (let i = 0; i < PER_BATCH; i++) {
        const path = `b${b}/f${String(i).padStart(3, '0')}.txt`;
        const old = gen.file();
        olds.set(path, old);
        news.set(path, gen.edit(old));
      }
      writeFiles(repo, Object.fromEntries([...olds].map(([p, t]) => [p, render(t)])));
      git(repo, 'add', '-A');
      git(repo, 'commit', '-q', '-m', `batch ${b}: old`);
      const before = git(repo, 'rev-parse', 'HEAD').trim();
      writeFiles(repo, Object.fromEntries([...news].map(([p, t]) => [p, render(t)])));
      git(repo, 'add', '-A');
      git(repo, 'commit', '-q', '-m', `batch ${b}: new`);

      const d = commitDiff(repo, 'HEAD');
      const theirs = parseGitDiff(git(repo, 'diff', '-U0', '--no-color', before, 'HEAD'));
      const blobs = readBlobs(repo, d.changes.flatMap((c) => [c.oldOid, c.newOid]));
      const record: TraceRecord = buildRecord({
        sha: d.sha,
        parents: d.parents,
        changes: d.changes,
        blobs,
        intent: INTENT,
        registry: { path: '.orchestration/active_intents.yaml', sha256: '0'.repeat(64) },
        scopeViolations: [],
      });
      expect(d.changes.map((c) => c.path).sort(), `seed ${SEED} batch ${b}: every file changed`).toEqual([...news.keys()].sort());

      for (const c of d.changes) {
        const where = `seed ${SEED} batch ${b} ${c.path} (old ${JSON.stringify(render(olds.get(c.path)!).toString())}, new ${JSON.stringify(render(news.get(c.path)!).toString())})`;
        const oldBuf = render(olds.get(c.path)!);
        const newBuf = render(news.get(c.path)!);
        expect(c.status, where).toBe('M');
        // (a) Our hunks are git's hunk headers.
        expect(c.hunks, `${where}: hunks`).toEqual(theirs.get(c.path) ?? []);
        // (b) Applying them to the old file gives the new file.
        const oldLines = splitLines(oldBuf);
        const newLines = splitLines(newBuf);
        expect(applyHunks(oldLines, newLines, c.hunks, where).equals(newBuf), `${where}: applying the hunks reproduces the new file`).toBe(true);
        // (c) Every range hashes exactly its committed lines; the ranges are exactly the added lines.
        expect(blobs.get(c.newOid)?.equals(newBuf), `${where}: the committed blob is the file written`).toBe(true);
        const file = record.files.find((f) => f.path === c.path);
        expect(file, where).toBeDefined();
        const ranges = file!.conversations.flatMap((conv) => conv.ranges);
        const covered: number[] = [];
        for (const r of ranges) {
          expect(r.content_hash, `${where}: range ${r.start_line}-${r.end_line}`).toBe(sha256Of(newLines.slice(r.start_line - 1, r.end_line)));
          for (let l = r.start_line; l <= r.end_line; l++) covered.push(l);
        }
        const added = c.hunks.flatMap((h) => Array.from({ length: h.newCount }, (_, k) => h.newStart + k));
        expect(covered.sort((x, y) => x - y), `${where}: ranges cover the added lines`).toEqual(added);
        expect(record.metadata['dev.intent'].files[c.path], where).toMatchObject({
          added_lines: added.length,
          deleted_lines: c.hunks.reduce((n, h) => n + h.oldCount, 0),
        });
        cases++;
        hunksSeen += c.hunks.length;
        if (oldBuf.includes('\r\n') || newBuf.includes('\r\n')) crlfCases++;
        if (!oldBuf.length || !newBuf.length) emptyCases++;
        if ((oldBuf.length && oldBuf[oldBuf.length - 1] !== 0x0a) || (newBuf.length && newBuf[newBuf.length - 1] !== 0x0a)) noEolCases++;
      }
    }
    // The generator really produced the interesting shapes.
    expect(cases).toBe(BATCHES * PER_BATCH);
    expect(hunksSeen).toBeGreaterThan(cases);
    expect(crlfCases, 'cases with CRLF').toBeGreaterThan(20);
    expect(emptyCases, 'cases with an empty side').toBeGreaterThan(5);
    expect(noEolCases, 'cases without a final newline').toBeGreaterThan(20);
  });
});
