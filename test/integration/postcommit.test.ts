import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync, chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  bypassCommit, checkoutIntent, fixture, git, governedRepo, intent, ledgerLines, noteOf, run, tempDir, writeFiles,
} from '../helpers.js';
import { expectValid } from '../trace-validator.js';

// The post-commit hook, driven by real `git commit` in real worktrees: every range and hash in a
// note is re-derived here from git's own `-U0` hunks and the committed blob bytes.

const KEY = 'dev.intent';
const NAME = 'JWT Authentication Migration';

const REGISTRY = `# Registry for the post-commit tests.
active_intents:
  - id: "INT-001"
    name: "${NAME}"
    status: "PENDING"
    owned_scope: ["src/**"]
    constraints: ["Must not use external auth providers"]
    related_specs: [{ type: "specification", value: "REQ-001" }, { type: "specification", value: "REQ-002" }]
  - id: "INT-002"
    name: "Invoice rounding fix"
    status: "PENDING"
    owned_scope: ["billing/**"]
`;

interface Range { start_line: number; end_line: number; content_hash: string }
interface GitHunk { oldStart: number; oldCount: number; newStart: number; newCount: number }

/**
 * A repository with `intent init` run and REGISTRY committed on main (built once per file and
 * copied), then `files` committed on main as a human would, without an intent: a commit that no hook
 * records (the ledger test below shows it), so it is made past the hooks.
 */
function setupRepo(files: Record<string, string | Buffer> = { 'README.md': '# test\n' }): string {
  const repo = fixture('registry with specs', () => {
    const r = governedRepo([{ id: 'INT-001', scope: ['src/**'] }]);
    writeFiles(r, { '.orchestration/active_intents.yaml': REGISTRY });
    git(r, 'add', '.orchestration');
    git(r, 'commit', '-q', '-m', 'registry with specs');
    return r;
  });
  writeFiles(repo, files);
  git(repo, 'add', '-A');
  git(repo, '-c', 'core.hooksPath=/dev/null', 'commit', '-q', '--allow-empty', '-m', 'the files of the test');
  return repo;
}

function gitBuf(cwd: string, ...args: string[]): Buffer {
  const r = spawnSync('git', args, { cwd });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${r.stderr.toString()}`);
  return r.stdout;
}

function head(cwd: string): string {
  return git(cwd, 'rev-parse', 'HEAD').trim();
}

function noteCount(cwd: string): number {
  return git(cwd, 'notes', '--ref=intents', 'list').split('\n').filter(Boolean).length;
}

function sha256(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}

/** The lines of `buf`, each with its `\n` where it has one. */
function lineSlices(buf: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let s = 0;
  for (let i = 0; i < buf.length; i++) {
    if (buf[i] === 0x0a) {
      out.push(buf.subarray(s, i + 1));
      s = i + 1;
    }
  }
  if (s < buf.length) out.push(buf.subarray(s));
  return out;
}

/** Git's own hunks of `sha` for the given paths (both sides of a rename), from `git show -U0`. */
function gitHunks(cwd: string, sha: string, paths: string[]): GitHunk[] {
  const out = git(cwd, 'show', '-U0', '-M', '--format=', '--no-color', '--no-ext-diff', sha, '--', ...paths);
  const hunks: GitHunk[] = [];
  for (const line of out.split('\n')) {
    const m = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(line);
    if (!m) continue;
    hunks.push({
      oldStart: Number(m[1]), oldCount: m[2] === undefined ? 1 : Number(m[2]),
      newStart: Number(m[3]), newCount: m[4] === undefined ? 1 : Number(m[4]),
    });
  }
  return hunks;
}

/** The ranges a record must hold for `path` in `sha`: git's hunks that add lines, hashed from the blob. */
function expectedRanges(cwd: string, sha: string, path: string, oldPath?: string): Range[] {
  const hunks = gitHunks(cwd, sha, oldPath ? [oldPath, path] : [path]).filter((h) => h.newCount > 0);
  if (!hunks.length) return [];
  const lines = lineSlices(gitBuf(cwd, 'cat-file', 'blob', `${sha}:${path}`));
  return hunks.map((h) => ({
    start_line: h.newStart,
    end_line: h.newStart + h.newCount - 1,
    content_hash: 'sha256:' + sha256(Buffer.concat(lines.slice(h.newStart - 1, h.newStart - 1 + h.newCount))),
  }));
}

/** Paths changed by `sha` per git (`R` entries give the new path), with their status letters. */
function changedPaths(cwd: string, sha: string): Map<string, { status: string; oldPath?: string }> {
  const tokens = git(cwd, 'show', '--format=', '--name-status', '-M', '-z', sha).split('\0').filter((t) => t !== '');
  const out = new Map<string, { status: string; oldPath?: string }>();
  for (let i = 0; i < tokens.length;) {
    const status = tokens[i++].trim();
    if (status[0] === 'R' || status[0] === 'C') {
      const oldPath = tokens[i++];
      out.set(tokens[i++], { status: status[0], oldPath });
    } else out.set(tokens[i++], { status: status[0] });
  }
  return out;
}

function allRanges(file: any): Range[] {
  return file.conversations.flatMap((c: any) => c.ranges);
}

/** Checks a record against the commit: revision, paths, and every range and hash re-derived from git. */
function verifyAgainstGit(cwd: string, sha: string, record: any): void {
  expect(record.vcs).toEqual({ type: 'git', revision: sha });
  const changed = changedPaths(cwd, sha);
  expect(record.files.map((f: any) => f.path).sort()).toEqual([...changed.keys()].sort());
  for (const f of record.files) {
    const meta = record.metadata[KEY].files[f.path];
    expect(meta, `metadata for ${f.path}`).toBeDefined();
    const g = changed.get(f.path)!;
    expect(meta.status).toBe(g.status);
    if (g.oldPath) expect(meta.old_path).toBe(g.oldPath);
    const paths = g.oldPath ? [g.oldPath, f.path] : [f.path];
    const hunks = gitHunks(cwd, sha, paths);
    // git's own binary verdict: numstat prints "-\t-" for a binary change.
    const binary = git(cwd, 'show', '--numstat', '--format=', '-M', sha, '--', ...paths).startsWith('-\t-\t');
    expect(meta.binary === true, `binary flag of ${f.path}`).toBe(binary);
    const expected = binary ? [] : expectedRanges(cwd, sha, f.path, g.oldPath);
    expect(allRanges(f), `ranges of ${f.path}`).toEqual(expected);
    if (!binary) {
      expect(meta.added_lines).toBe(hunks.reduce((n, h) => n + h.newCount, 0));
      expect(meta.deleted_lines).toBe(hunks.reduce((n, h) => n + h.oldCount, 0));
    }
  }
}

/** A repository with `base` committed, INT-001's worktree, `edit` applied there and committed. */
function commitInWorktree(
  base: Record<string, string | Buffer>,
  edit: (wt: string) => void,
): { repo: string; wt: string; sha: string; note: NonNullable<ReturnType<typeof noteOf>> } {
  const repo = setupRepo({ 'README.md': '# test\n', ...base });
  const wt = checkoutIntent(repo, 'INT-001');
  edit(wt);
  git(wt, 'add', '-A');
  const r = run('git', ['commit', '-q', '-m', 'governed change'], wt);
  expect(r.status, r.stderr).toBe(0);
  expect(r.stderr).not.toContain('NOT recorded');
  const sha = head(wt);
  const note = noteOf(wt, sha);
  expect(note, 'the commit has a note').not.toBeNull();
  return { repo, wt, sha, note: note! };
}

const numbered = (n: number, prefix = 'line') => Array.from({ length: n }, (_, i) => `${prefix} ${i + 1}\n`).join('');

describe('post-commit: the note', () => {
  it('attaches exactly one note: a summary line, then the record as one line of JSON, shown by git log', () => {
    const repo = setupRepo({ 'src/auth/session.ts': 'a\nb\nc\nd\ne\n', 'README.md': '# r\n' });
    const wt = checkoutIntent(repo, 'INT-001');
    expect(noteCount(repo)).toBe(0);
    writeFiles(wt, {
      'src/auth/session.ts': 'A\nb\nc\nD\ne\n',
      'src/auth/jwt.ts': 'export const x = 1;\nexport const y = 2;\n',
    });
    git(wt, 'add', '-A');
    git(wt, 'commit', '-q', '-m', 'in scope');
    const sha = head(wt);

    expect(noteCount(repo)).toBe(1);
    const note = noteOf(repo, sha)!;
    expect(note).not.toBeNull();
    const lines = note.raw.split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[2]).toBe('');
    expect(note.summary).toBe(`INT-001 ${NAME} · INTENT_EVOLUTION · 2 files, 3 ranges`);
    expect(() => JSON.parse(lines[1])).not.toThrow();
    expect(note.record.vcs.revision).toBe(sha);

    const log = git(repo, 'log', '--notes=intents', '-1', sha);
    expect(log).toContain(note.summary);
    expect(log).toContain(lines[1]);
  });

  it('validates against the Agent Trace schema and names the intent and its specs in every conversation', () => {
    const { wt, sha, note } = commitInWorktree({ 'src/a.ts': '1\n2\n3\n' }, (w) =>
      writeFiles(w, { 'src/a.ts': '1\ntwo\n3\n', 'src/b.ts': 'new\n', 'src/c.bin': Buffer.from([0, 1, 2, 0, 10]) }),
    );
    expectValid(note.record);

    expect(note.record.version).toBe('0.1.0');
    expect(note.record.vcs).toEqual({ type: 'git', revision: sha });
    expect(note.record.tool.name).toBe('intent');
    expect(note.record.files).toHaveLength(3);
    for (const f of note.record.files) {
      expect(f.conversations.length).toBeGreaterThan(0);
      for (const c of f.conversations) {
        expect(c.related).toContainEqual({ type: 'intent', url: 'intent:INT-001' });
        expect(c.related).toContainEqual({ type: 'specification', url: 'spec:REQ-001' });
        expect(c.related).toContainEqual({ type: 'specification', url: 'spec:REQ-002' });
      }
    }
    const meta = note.record.metadata[KEY];
    expect(meta.intent_id).toBe('INT-001');
    expect(meta.parents).toEqual([git(wt, 'rev-parse', `${sha}^`).trim()]);
    verifyAgainstGit(wt, sha, note.record);
  });
});

describe('post-commit: ranges and hashes agree with git', () => {
  it('a new file', () => {
    const { wt, sha, note } = commitInWorktree({}, (w) => writeFiles(w, { 'src/new.ts': 'one\ntwo\nthree\n' }));
    verifyAgainstGit(wt, sha, note.record);
    expect(allRanges(note.record.files[0])).toEqual([
      { start_line: 1, end_line: 3, content_hash: 'sha256:' + sha256('one\ntwo\nthree\n') },
    ]);
    expect(note.record.metadata[KEY].files['src/new.ts']).toMatchObject({ status: 'A', added_lines: 3, deleted_lines: 0 });
  });

  it('a modification with several hunks', () => {
    const { wt, sha, note } = commitInWorktree({ 'src/big.ts': numbered(30) }, (w) => {
      const l = numbered(30).split('\n').slice(0, 30);
      l[2] = 'changed 3';
      l.splice(9, 2, 'new 10', 'new 10b', 'new 11');
      l.splice(l.indexOf('line 20'), 1);
      l.push('tail 1', 'tail 2');
      writeFiles(w, { 'src/big.ts': l.join('\n') + '\n' });
    });
    verifyAgainstGit(wt, sha, note.record);
    const ranges = allRanges(note.record.files[0]);
    expect(ranges.length).toBe(3);
    expect(ranges[0]).toMatchObject({ start_line: 3, end_line: 3, content_hash: 'sha256:' + sha256('changed 3\n') });
    expect(note.record.metadata[KEY].files['src/big.ts']).toMatchObject({ status: 'M', deleted_lines: 4, added_lines: 6 });
  });

  it('hunks do not depend on .gitattributes, also one only in the index (tree diffs read no index)', () => {
    const attrs = 'src/*.dat -diff binary diff=nope\n';
    const repo = setupRepo({ 'README.md': '# test\n', '.gitattributes': attrs, 'src/x.dat': numbered(5) });
    const wt = checkoutIntent(repo, 'INT-001');
    writeFiles(wt, { 'src/x.dat': numbered(5).replace('line 3', 'line three') });
    git(wt, 'add', 'src/x.dat');
    // The attributes file is gone from the work tree, still in the index (and in HEAD).
    rmSync(join(wt, '.gitattributes'));
    const r = run('git', ['commit', '-q', '-m', 'data'], wt);
    expect(r.status, r.stderr).toBe(0);
    const sha = head(wt);
    const note = noteOf(wt, sha)!;
    verifyAgainstGit(wt, sha, note.record);
    expect(allRanges(note.record.files[0])).toEqual([{ start_line: 3, end_line: 3, content_hash: 'sha256:' + sha256('line three\n') }]);
    git(wt, 'checkout', '--', '.gitattributes');
    expect(readFileSync(join(wt, '.gitattributes'), 'utf8')).toBe(attrs);
  });

  it('files without a trailing newline', () => {
    const { wt, sha, note } = commitInWorktree({ 'src/nonl.ts': 'a\nb\nc\n' }, (w) =>
      writeFiles(w, { 'src/nonl.ts': 'a\nb\nC', 'src/fresh.ts': 'x\ny' }),
    );
    verifyAgainstGit(wt, sha, note.record);
    const byPath = Object.fromEntries(note.record.files.map((f: any) => [f.path, allRanges(f)]));
    expect(byPath['src/nonl.ts']).toEqual([{ start_line: 3, end_line: 3, content_hash: 'sha256:' + sha256('C') }]);
    expect(byPath['src/fresh.ts']).toEqual([{ start_line: 1, end_line: 2, content_hash: 'sha256:' + sha256('x\ny') }]);
  });

  it('CRLF lines hash with their \\r\\n', () => {
    const { wt, sha, note } = commitInWorktree({ 'src/win.txt': 'one\r\ntwo\r\nthree\r\n' }, (w) =>
      writeFiles(w, { 'src/win.txt': 'one\r\nTWO\r\nthree\r\nfour\r\n' }),
    );
    verifyAgainstGit(wt, sha, note.record);
    expect(allRanges(note.record.files[0])).toEqual([
      { start_line: 2, end_line: 2, content_hash: 'sha256:' + sha256('TWO\r\n') },
      { start_line: 4, end_line: 4, content_hash: 'sha256:' + sha256('four\r\n') },
    ]);
  });

  it('a pure deletion: an entry without ranges, status D and the deleted line count', () => {
    const { wt, sha, note } = commitInWorktree({ 'src/gone.ts': 'a\nb\nc\nd\n', 'src/keep.ts': 'k\n' }, (w) =>
      rmSync(join(w, 'src/gone.ts')),
    );
    verifyAgainstGit(wt, sha, note.record);
    expect(note.record.files.map((f: any) => f.path)).toEqual(['src/gone.ts']);
    expect(allRanges(note.record.files[0])).toEqual([]);
    expect(note.record.metadata[KEY].files['src/gone.ts']).toMatchObject({ status: 'D', deleted_lines: 4, added_lines: 0 });
    expect(note.summary).toBe(`INT-001 ${NAME} · INTENT_EVOLUTION · 1 file, 0 ranges`);
  });

  it('a binary file: no ranges, metadata binary: true', () => {
    const bin = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x0a, 0x00, 0x01, 0x0a, 0xff, 0x00]);
    const { wt, sha, note } = commitInWorktree({ 'src/old.bin': Buffer.from([0, 1, 2, 10, 3]) }, (w) =>
      writeFiles(w, { 'src/logo.png': bin, 'src/old.bin': Buffer.from([0, 9, 9, 10, 3, 10]) }),
    );
    verifyAgainstGit(wt, sha, note.record);
    for (const p of ['src/logo.png', 'src/old.bin']) {
      const f = note.record.files.find((x: any) => x.path === p);
      expect(f, p).toBeDefined();
      expect(allRanges(f)).toEqual([]);
      expect(note.record.metadata[KEY].files[p].binary).toBe(true);
    }
    expect(note.record.metadata[KEY].files['src/logo.png'].status).toBe('A');
    expect(note.record.metadata[KEY].files['src/old.bin'].status).toBe('M');
  });

  it('a rename with edits: ranges only for the changed lines, old_path in metadata', () => {
    const { wt, sha, note } = commitInWorktree({ 'src/old/name.ts': numbered(20) }, (w) => {
      mkdirSync(join(w, 'src/new'));
      git(w, 'mv', 'src/old/name.ts', 'src/new/name.ts');
      writeFiles(w, { 'src/new/name.ts': numbered(20).replace('line 7\n', 'line seven\n') });
    });
    verifyAgainstGit(wt, sha, note.record);
    expect(note.record.files.map((f: any) => f.path)).toEqual(['src/new/name.ts']);
    expect(allRanges(note.record.files[0])).toEqual([
      { start_line: 7, end_line: 7, content_hash: 'sha256:' + sha256('line seven\n') },
    ]);
    expect(note.record.metadata[KEY].files['src/new/name.ts']).toMatchObject({
      status: 'R', old_path: 'src/old/name.ts', added_lines: 1, deleted_lines: 1,
    });
  });

  it('a mode-only change: an entry without ranges', () => {
    const { wt, sha, note } = commitInWorktree({ 'src/run.sh': '#!/bin/sh\necho hi\n' }, (w) =>
      chmodSync(join(w, 'src/run.sh'), 0o755),
    );
    expect(git(wt, 'show', '--format=', '--summary', sha)).toContain('mode change 100644 => 100755');
    verifyAgainstGit(wt, sha, note.record);
    expect(note.record.files.map((f: any) => f.path)).toEqual(['src/run.sh']);
    expect(allRanges(note.record.files[0])).toEqual([]);
    expect(note.record.metadata[KEY].files['src/run.sh']).toMatchObject({ status: 'M', added_lines: 0, deleted_lines: 0 });
  });

  it('unicode, space and quote characters in paths', () => {
    const paths = ['src/dir with space/naïve ü.ts', 'src/日本語/ファイル.ts', 'src/q"uote\'s.ts'];
    const { wt, sha, note } = commitInWorktree({}, (w) =>
      writeFiles(w, Object.fromEntries(paths.map((p, i) => [p, `export const v${i} = ${i};\n`]))),
    );
    verifyAgainstGit(wt, sha, note.record);
    expect(note.record.files.map((f: any) => f.path).sort()).toEqual([...paths].sort());
    for (const p of paths) expect(note.record.metadata[KEY].files[p]).toMatchObject({ status: 'A', added_lines: 1 });
  });

  it('a root commit in a fresh repository, governed by INTENT_ID in the main worktree with requireIntent', () => {
    const repo = join(tempDir(), 'fresh');
    mkdirSync(repo);
    git(repo, 'init', '-q', '-b', 'main');
    const init = intent(repo, ['init']);
    expect(init.status, init.stderr).toBe(0);
    writeFiles(repo, {
      '.orchestration/active_intents.yaml': REGISTRY.replace('status: "PENDING"', 'status: "IN_PROGRESS"'),
      '.intentrc.json': '{ "requireIntent": true }\n',
      'src/a.ts': 'alpha\nbeta\n',
      'src/b.ts': 'no newline at end',
    });
    git(repo, 'add', 'src');

    const refused = run('git', ['commit', '-q', '-m', 'root without intent'], repo);
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain('You must cite a valid active Intent ID.');
    expect(run('git', ['rev-parse', '--verify', '-q', 'HEAD'], repo).status).not.toBe(0);

    const ok = run('git', ['commit', '-q', '-m', 'root'], repo, { INTENT_ID: 'INT-001' });
    expect(ok.status, ok.stderr).toBe(0);
    const sha = head(repo);
    expect(git(repo, 'rev-list', '--parents', '-n', '1', sha).trim()).toBe(sha);
    const note = noteOf(repo, sha)!;
    expect(note).not.toBeNull();
    expect(note.summary).toBe(`INT-001 ${NAME} · INTENT_EVOLUTION · 2 files, 2 ranges`);
    expect(note.record.metadata[KEY].parents).toEqual([]);
    verifyAgainstGit(repo, sha, note.record);
    const ledger = ledgerLines(repo);
    expect(ledger).toHaveLength(1);
    expect(JSON.parse(ledger[0]).metadata[KEY].prev_line_sha256).toBeNull();
  });
});

describe('post-commit: robustness', () => {
  it("the user's diff configuration does not leak into the hunks", () => {
    const repo = setupRepo({ 'src/a.ts': numbered(12), 'src/old.ts': numbered(10, 'old') });
    const wt = checkoutIntent(repo, 'INT-001');
    const weird: [string, string][] = [
      ['diff.noprefix', 'true'], ['diff.mnemonicPrefix', 'true'], ['core.quotePath', 'false'],
      ['diff.algorithm', 'patience'], ['diff.external', 'false'], ['color.ui', 'always'],
      ['diff.renames', 'false'], ['diff.relative', 'true'], ['diff.context', '7'],
      ['diff.interHunkContext', '9'], ['diff.up.textconv', 'tr a-z A-Z'], ['diff.suppressBlankEmpty', 'true'],
    ];
    for (const [k, v] of weird) git(repo, 'config', k, v);
    const attributes = join(git(repo, 'rev-parse', '--path-format=absolute', '--git-common-dir').trim(), 'info', 'attributes');
    mkdirSync(join(attributes, '..'), { recursive: true });
    appendFileSync(attributes, '*.ts diff=up\n');

    const l = numbered(12).split('\n').slice(0, 12);
    l[1] = 'second';
    l[8] = 'ninth';
    mkdirSync(join(wt, 'src', 'sub dir'));
    writeFiles(wt, { 'src/a.ts': l.join('\n') + '\n', 'src/sub dir/ü.ts': 'u\n' });
    git(wt, 'mv', 'src/old.ts', 'src/renamed.ts');
    git(wt, 'add', '-A');
    const r = run('git', ['commit', '-q', '-m', 'under odd config'], join(wt, 'src'));
    expect(r.status, r.stderr).toBe(0);
    const sha = head(wt);
    const note = noteOf(wt, sha)!;
    expect(note).not.toBeNull();

    // Verify with git's defaults again.
    for (const [k] of weird) git(repo, 'config', '--unset', k);
    rmSync(attributes);
    verifyAgainstGit(wt, sha, note.record);
    expect(note.record.files.map((f: any) => f.path).sort()).toEqual(['src/a.ts', 'src/renamed.ts', 'src/sub dir/ü.ts']);
    expect(allRanges(note.record.files.find((f: any) => f.path === 'src/a.ts'))).toEqual([
      { start_line: 2, end_line: 2, content_hash: 'sha256:' + sha256('second\n') },
      { start_line: 9, end_line: 9, content_hash: 'sha256:' + sha256('ninth\n') },
    ]);
    expect(note.record.metadata[KEY].files['src/renamed.ts']).toMatchObject({ status: 'R', old_path: 'src/old.ts' });
  });

  it('a commit that got past every hook is recorded (by intent repair) naming the paths outside the scope', () => {
    const repo = setupRepo({ 'src/a.ts': 'a\n', 'billing/b.ts': 'b\n' });
    const wt = checkoutIntent(repo, 'INT-001');
    writeFiles(wt, { 'src/a.ts': 'a\n2\n', 'billing/b.ts': 'b\n2\n' });
    const sha = bypassCommit(wt, ['-q', '-am', 'bypass']);
    const note = noteOf(wt, sha)!;
    expect(note).not.toBeNull();
    expect(note.record.metadata[KEY].scope_violations).toEqual(['billing/b.ts']);
    expect(note.summary).toContain('SCOPE VIOLATION');
    expect(note.summary.startsWith(`INT-001 ${NAME} · INTENT_EVOLUTION · 2 files, 2 ranges`)).toBe(true);
    verifyAgainstGit(wt, sha, note.record);
    expect(ledgerLines(repo)).toHaveLength(1);
  });

  it('a partial commit (git commit -- <path>) records exactly the committed paths', () => {
    const repo = setupRepo({ 'src/a.ts': 'a\n', 'src/b.ts': 'b\n' });
    const wt = checkoutIntent(repo, 'INT-001');
    writeFiles(wt, { 'src/a.ts': 'a\nA\n', 'src/b.ts': 'b\nB\n' });
    git(wt, 'add', '-A');
    const r = run('git', ['commit', '-q', '-m', 'only a', '--', 'src/a.ts'], wt);
    expect(r.status, r.stderr).toBe(0);
    const sha = head(wt);
    const note = noteOf(wt, sha)!;
    verifyAgainstGit(wt, sha, note.record);
    expect(note.record.files.map((f: any) => f.path)).toEqual(['src/a.ts']);
  });
});

describe('post-commit: the ledger', () => {
  it('gets one chained line per governed commit from any worktree, equal to the note', () => {
    const repo = setupRepo({ 'src/a.ts': 'a\n', 'billing/inv.ts': 'i\n' });
    const wt1 = checkoutIntent(repo, 'INT-001');
    const wt2 = checkoutIntent(repo, 'INT-002');
    const shas: string[] = [];
    const commit = (cwd: string, files: Record<string, string>, env: Record<string, string> = {}) => {
      writeFiles(cwd, files);
      git(cwd, 'add', '--', ...Object.keys(files));
      const r = run('git', ['commit', '-q', '-m', 'c'], cwd, env);
      expect(r.status, r.stderr).toBe(0);
      shas.push(head(cwd));
    };
    commit(wt1, { 'src/a.ts': 'a\nb\n' });
    commit(wt2, { 'billing/inv.ts': 'i\nj\n' });
    commit(wt1, { 'src/c.ts': 'c\n' });
    commit(repo, { 'billing/main.ts': 'm\n' }, { INTENT_ID: 'INT-002' });

    expect(existsSync(join(wt1, '.orchestration', 'agent_trace.jsonl'))).toBe(false);
    expect(existsSync(join(wt2, '.orchestration', 'agent_trace.jsonl'))).toBe(false);
    const raw = readFileSync(join(repo, '.orchestration', 'agent_trace.jsonl'));
    expect(raw[raw.length - 1]).toBe(0x0a);
    const lines = ledgerLines(repo);
    expect(lines).toHaveLength(4);
    let prev: string | null = null;
    lines.forEach((line, i) => {
      const rec = JSON.parse(line);
      expect(rec.vcs.revision).toBe(shas[i]);
      expect(rec.metadata[KEY].prev_line_sha256).toBe(prev);
      prev = sha256(Buffer.from(line, 'utf8'));
      const note = noteOf(repo, shas[i])!;
      expect(note).not.toBeNull();
      expect(KEY in note.record.metadata).toBe(true);
      expect('prev_line_sha256' in note.record.metadata[KEY]).toBe(false);
      delete rec.metadata[KEY].prev_line_sha256;
      expect(rec).toStrictEqual(note.record);
    });
    expect(JSON.parse(lines[1]).metadata[KEY].intent_id).toBe('INT-002');
    expect(JSON.parse(lines[3]).metadata[KEY].intent_id).toBe('INT-002');
  });

  it('a commit in the main worktree without an intent gets no note and no ledger line', () => {
    const repo = setupRepo({ 'src/a.ts': 'a\n' });
    const wt = checkoutIntent(repo, 'INT-001');
    writeFiles(wt, { 'src/a.ts': 'a\nb\n' });
    git(wt, 'commit', '-q', '-am', 'governed');
    expect(ledgerLines(repo)).toHaveLength(1);
    const before = readFileSync(join(repo, '.orchestration', 'agent_trace.jsonl'));

    writeFiles(repo, { 'src/a.ts': 'a\nhuman\n' });
    git(repo, 'add', 'src/a.ts');
    const r = run('git', ['commit', '-q', '-m', 'human change'], repo);
    expect(r.status, r.stderr).toBe(0);
    const sha = head(repo);
    expect(noteOf(repo, sha)).toBeNull();
    expect(noteCount(repo)).toBe(1);
    expect(readFileSync(join(repo, '.orchestration', 'agent_trace.jsonl'))).toEqual(before);
  });

  it('amend: the amended commit gets one fresh note describing the new commit', () => {
    const repo = setupRepo({ 'src/a.ts': 'a\nb\nc\n' });
    const wt = checkoutIntent(repo, 'INT-001');
    writeFiles(wt, { 'src/a.ts': 'a\nB\nc\n' });
    git(wt, 'commit', '-q', '-am', 'first');
    const first = head(wt);
    writeFiles(wt, { 'src/a.ts': 'a\nB\nc\nd\n', 'src/extra.ts': 'e\n' });
    git(wt, 'add', '-A');
    const r = run('git', ['commit', '-q', '--amend', '-m', 'amended'], wt);
    expect(r.status, r.stderr).toBe(0);
    const amended = head(wt);
    expect(amended).not.toBe(first);

    const note = noteOf(wt, amended)!;
    expect(note).not.toBeNull();
    expect(note.raw.split('\n')).toHaveLength(3);
    expect(note.raw.endsWith('\n')).toBe(true);
    expect(note.record.vcs.revision).toBe(amended);
    expect(note.summary).toBe(`INT-001 ${NAME} · INTENT_EVOLUTION · 2 files, 3 ranges`);
    verifyAgainstGit(wt, amended, note.record);

    const lines = ledgerLines(repo);
    expect(lines.map((l) => JSON.parse(l).vcs.revision)).toEqual([first, amended]);
    expect(JSON.parse(lines[1]).metadata[KEY].prev_line_sha256).toBe(sha256(lines[0]));
  });

  it('amend keeps one record per note even when the repository already had notes.rewriteMode=concatenate', () => {
    const repo = join(tempDir(), 'repo');
    mkdirSync(repo);
    git(repo, 'init', '-q', '-b', 'main');
    writeFiles(repo, { 'src/a.ts': 'a\n' });
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'initial');
    git(repo, 'config', 'notes.rewriteMode', 'concatenate'); // set before intent init, for other notes refs
    expect(intent(repo, ['init']).status).toBe(0);
    writeFiles(repo, { '.orchestration/active_intents.yaml': REGISTRY });
    git(repo, 'add', '.orchestration');
    git(repo, 'commit', '-q', '-m', 'registry');
    const wt = checkoutIntent(repo, 'INT-001');
    writeFiles(wt, { 'src/a.ts': 'a\nb\n' });
    git(wt, 'commit', '-q', '-am', 'first');
    writeFiles(wt, { 'src/a.ts': 'a\nb\nc\n' });
    const r = run('git', ['commit', '-q', '--amend', '-am', 'amended'], wt);
    expect(r.status, r.stderr).toBe(0);
    const amended = head(wt);
    const note = noteOf(wt, amended)!;
    expect(note).not.toBeNull();
    expect(note.raw.split('\n'), 'the note holds one summary and one record').toHaveLength(3);
    expect(note.record.vcs.revision).toBe(amended);
    verifyAgainstGit(wt, amended, note.record);
  });

  it('a torn last line is closed off, never rewritten', () => {
    const repo = setupRepo({ 'src/a.ts': 'a\n' });
    const wt = checkoutIntent(repo, 'INT-001');
    writeFiles(wt, { 'src/a.ts': 'a\nb\n' });
    git(wt, 'commit', '-q', '-am', 'one');
    const file = join(repo, '.orchestration', 'agent_trace.jsonl');
    const torn = '{"version":"0.1.0","id":"torn-by-a-cr';
    appendFileSync(file, torn);
    const before = readFileSync(file);

    writeFiles(wt, { 'src/a.ts': 'a\nb\nc\n' });
    git(wt, 'commit', '-q', '-am', 'two');
    const sha = head(wt);
    const after = readFileSync(file);
    expect(after.subarray(0, before.length)).toEqual(before);
    expect(after[before.length]).toBe(0x0a);
    const rest = after.subarray(before.length + 1).toString('utf8');
    expect(rest.endsWith('\n')).toBe(true);
    expect(rest.slice(0, -1)).not.toContain('\n');
    const rec = JSON.parse(rest.slice(0, -1));
    expect(rec.vcs.revision).toBe(sha);
    expect(rec.metadata[KEY].prev_line_sha256).toBe(sha256(torn));
    expect(ledgerLines(repo)).toHaveLength(3);
  });
});

describe('file names that are not UTF-8', () => {
  it('are recorded in git\'s quoted form, so two such names stay two files; the scope check still sees the folder; verify is clean', () => {
    const repo = governedRepo([{ id: 'INT-001', scope: ['src/**'] }], { 'src/a.ts': 'a\n' });
    const wt = checkoutIntent(repo, 'INT-001');
    const name = (bytes: number[]) => Buffer.concat([Buffer.from(`${wt}/src/caf`), Buffer.from(bytes), Buffer.from('.txt')]);
    writeFileSync(name([0xe9]), 'one\n');
    writeFileSync(name([0xe8]), 'two\nlines\n');
    git(wt, 'add', '-A');
    git(wt, 'commit', '-q', '-m', 'latin-1 names');
    const rec = noteOf(wt)!.record;
    const files = Object.fromEntries(rec.files.map((f: any) => [f.path, f.conversations.flatMap((c: any) => c.ranges)]));
    expect(Object.keys(files).sort()).toEqual(['"src/caf\\350.txt"', '"src/caf\\351.txt"']);
    expect(files['"src/caf\\350.txt"'].map((r: any) => [r.start_line, r.end_line])).toEqual([[1, 2]]);
    expect(files['"src/caf\\351.txt"'].map((r: any) => [r.start_line, r.end_line])).toEqual([[1, 1]]);
    expect(JSON.parse(intent(wt, ['verify', '--json']).stdout).findings).toEqual([]);

    writeFileSync(Buffer.concat([Buffer.from(`${wt}/`), Buffer.from([0xff]), Buffer.from('-outside.txt')]), 'x\n');
    git(wt, 'add', '-A');
    const r = run('git', ['commit', '-q', '-m', 'outside'], wt);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('Scope Violation: INT-001 is not authorized to edit "\\377-outside.txt"');
  });
});
