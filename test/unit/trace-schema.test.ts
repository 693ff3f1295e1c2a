import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readBlobs } from '../../lib/git/blobs.js';
import { commitDiff } from '../../lib/git/diff.js';
import type { Intent } from '../../lib/intents/registry.js';
import type { TraceRecord } from '../../lib/trace/record.js';
import { buildRecord, noteText, summaryLine } from '../../lib/trace/record.js';
import { METADATA_KEY, TOOL_NAME, TOOL_VERSION } from '../../lib/core/version.js';
import { AGENT_TRACE, expectValid, validate } from '../trace-validator.js';
import { checkoutIntent, git, governedRepo, makeRepo, noteOf, writeFiles } from '../helpers.js';


const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const INTENT: Intent = {
  id: 'INT-001',
  name: 'JWT Authentication Migration',
  status: 'IN_PROGRESS',
  owned_scope: ['src/auth/**', 'src/middleware/jwt.ts', '!src/auth/legacy/**'],
  constraints: ['Must not use external auth providers'],
  acceptance_criteria: ['Unit tests in tests/auth/ pass'],
  related_specs: [{ type: 'specification', value: 'REQ-001' }],
};

/** sha256 of lines start..end (1-based, inclusive) of `content`, computed independently. */
function refHash(content: Buffer, start: number, end: number): string {
  const parts: Buffer[] = [];
  let line = 1;
  let from = 0;
  for (let i = 0; i <= content.length; i++) {
    if (i === content.length || content[i] === 0x0a) {
      const to = i === content.length ? i : i + 1;
      if (to > from && line >= start && line <= end) parts.push(content.subarray(from, to));
      line++;
      from = to;
    }
  }
  return 'sha256:' + createHash('sha256').update(Buffer.concat(parts)).digest('hex');
}

/** Every range of every file must hash exactly the committed lines. */
function expectHashesMatch(repo: string, record: TraceRecord): void {
  for (const f of record.files) {
    for (const conv of f.conversations) {
      for (const r of conv.ranges) {
        const blob = Buffer.from(git(repo, 'cat-file', 'blob', `${record.vcs.revision}:${f.path}`), 'utf8');
        expect(r.content_hash, `${f.path} ${r.start_line}..${r.end_line}`).toBe(refHash(blob, r.start_line, r.end_line));
      }
    }
  }
}

/** A repository with one commit touching two files in three added hunks; returns the built record. */
function twoFileCommit(now?: Date): { repo: string; record: TraceRecord } {
  const repo = makeRepo({ 'src/auth/a.ts': 'a1\na2\na3\na4\na5\n', 'src/middleware/jwt.ts': 'j1\n' });
  writeFiles(repo, {
    'src/auth/a.ts': 'a1\nNEW1\na2\na3\na4\nNEW2\nNEW3\na5\n',
    'src/middleware/jwt.ts': 'j1\nj2\n',
  });
  git(repo, 'commit', '-q', '-am', 'two files');
  const d = commitDiff(repo, 'HEAD');
  const blobs = readBlobs(repo, d.changes.flatMap((c) => [c.oldOid, c.newOid]));
  const record = buildRecord({
    sha: d.sha,
    parents: d.parents,
    changes: d.changes,
    blobs,
    intent: INTENT,
    registry: { path: '.orchestration/active_intents.yaml', sha256: 'a'.repeat(64) },
    scopeViolations: [],
    now,
  });
  return { repo, record };
}

describe('the validator itself', () => {
  const examples = readdirSync(join(AGENT_TRACE, 'examples')).filter((f) => f.endsWith('.json')).sort();

  it('finds both example records', () => {
    expect(examples).toEqual(['example-full-trace-record.json', 'example-minimal-valid-trace-record.json']);
  });

  it.each(examples)('accepts the spec example %s', (file) => {
    expectValid(JSON.parse(readFileSync(join(AGENT_TRACE, 'examples', file), 'utf8')));
  });

  it.each([
    ['a missing id', (r: any) => delete r.id],
    ['a non-uuid id', (r: any) => (r.id = 'not-a-uuid')],
    ['a bad timestamp', (r: any) => (r.timestamp = 'yesterday')],
    ['a bad version', (r: any) => (r.version = '0.1')],
    ['start_line 0', (r: any) => (r.files[0].conversations[0].ranges[0].start_line = 0)],
    ['an unknown contributor type', (r: any) => (r.files[0].conversations[0].contributor.type = 'robot')],
    ['a related item without url', (r: any) => (r.files[0].conversations[0].related = [{ type: 'intent' }])],
    ['a vcs without revision', (r: any) => (r.vcs = { type: 'git' })],
  ])('rejects the minimal example with %s', (_name, mutate) => {
    const r = JSON.parse(readFileSync(join(AGENT_TRACE, 'examples', 'example-minimal-valid-trace-record.json'), 'utf8'));
    mutate(r);
    expect(validate(r)).toBe(false);
  });
});

describe('buildRecord', () => {
  it('builds a record that conforms to the Agent Trace schema', () => {
    const { record } = twoFileCommit();
    expectValid(record);
    expectValid(JSON.parse(JSON.stringify(record)));
  });

  it('fills the fixed fields: version, uuid, timestamp, vcs, tool, metadata key', () => {
    const now = new Date('2026-02-16T12:00:00.000Z');
    const { repo, record } = twoFileCommit(now);
    expect(record.version).toBe('0.1.0');
    expect(record.id).toMatch(UUID);
    expect(record.timestamp).toBe('2026-02-16T12:00:00.000Z');
    expect(record.vcs).toEqual({ type: 'git', revision: git(repo, 'rev-parse', 'HEAD').trim() });
    expect(record.tool).toEqual({ name: TOOL_NAME, version: TOOL_VERSION });
    expect(Object.keys(record.metadata)).toEqual([METADATA_KEY]);
    expect(METADATA_KEY).toMatch(/^[a-z0-9-]+(\.[a-z0-9-]+)+$/);
    expect(record.metadata[METADATA_KEY]).toMatchObject({
      intent_id: 'INT-001',
      intent_name: 'JWT Authentication Migration',
      mutation_class: 'INTENT_EVOLUTION',
      parents: [git(repo, 'rev-parse', 'HEAD~1').trim()],
      scope: INTENT.owned_scope,
      scope_violations: [],
    });
  });

  it('has one file entry per changed path with hashed added ranges and the intent and specs as related', () => {
    const { repo, record } = twoFileCommit();
    expect(record.files.map((f) => f.path)).toEqual(['src/auth/a.ts', 'src/middleware/jwt.ts']);
    const [a, jwt] = record.files;
    expect(a.conversations).toHaveLength(1);
    expect(a.conversations[0].contributor).toEqual({ type: 'human' });
    expect(a.conversations[0].ranges.map((r) => [r.start_line, r.end_line])).toEqual([[2, 2], [6, 7]]);
    expect(jwt.conversations[0].ranges.map((r) => [r.start_line, r.end_line])).toEqual([[2, 2]]);
    expect(a.conversations[0].ranges[1].content_hash).toBe(`sha256:${createHash('sha256').update('NEW2\nNEW3\n').digest('hex')}`);
    expect(a.conversations[0].related).toEqual([
      { type: 'intent', url: 'intent:INT-001' },
      { type: 'specification', url: 'spec:REQ-001' },
    ]);
    expectHashesMatch(repo, record);
  });

  it('records deletions, renames, binaries and type changes and still conforms', () => {
    const repo = makeRepo({ 'src/gone.ts': 'g1\ng2\n', 'src/old.ts': 'o1\no2\no3\no4\n', 'src/bin.dat': Buffer.from([1, 0, 2]), 'src/l.ts': 'l\n' });
    rmSync(join(repo, 'src/gone.ts'));
    git(repo, 'mv', 'src/old.ts', 'src/new.ts');
    writeFiles(repo, { 'src/bin.dat': Buffer.from([1, 0, 3, 10, 4]), 'src/added.ts': 'x\n' });
    git(repo, 'rm', '-q', '--cached', 'src/gone.ts');
    rmSync(join(repo, 'src/l.ts'));
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'mixed');
    const d = commitDiff(repo, 'HEAD');
    const record = buildRecord({
      sha: d.sha, parents: d.parents, changes: d.changes,
      blobs: readBlobs(repo, d.changes.flatMap((c) => [c.oldOid, c.newOid])),
      intent: INTENT, registry: { path: '.orchestration/active_intents.yaml', sha256: 'b'.repeat(64) },
      scopeViolations: ['src/gone.ts'],
    });
    expectValid(record);
    const files = record.metadata[METADATA_KEY].files;
    expect(files['src/gone.ts']).toMatchObject({ status: 'D', deleted_lines: 2, added_lines: 0 });
    expect(files['src/new.ts']).toMatchObject({ status: 'R', old_path: 'src/old.ts', mutation_class: 'AST_REFACTOR' });
    expect(files['src/bin.dat']).toMatchObject({ status: 'M', binary: true, added_lines: 0 });
    const byPath = Object.fromEntries(record.files.map((f) => [f.path, f]));
    expect(byPath['src/gone.ts'].conversations[0].ranges).toEqual([]);
    expect(byPath['src/bin.dat'].conversations[0].ranges).toEqual([]);
    expect(byPath['src/added.ts'].conversations[0].ranges.map((r) => [r.start_line, r.end_line])).toEqual([[1, 1]]);
    expect(summaryLine(record)).toContain('· SCOPE VIOLATION: 1 path outside INT-001 (pre-commit bypassed)');
  });
});

describe('summaryLine and noteText', () => {
  it('formats `INT-001 Name · CLASS · N files, M ranges` and puts the record on line 2 as one JSON line', () => {
    const { record } = twoFileCommit();
    expect(summaryLine(record)).toBe('INT-001 JWT Authentication Migration · INTENT_EVOLUTION · 2 files, 3 ranges');
    const text = noteText(record);
    expect(text.endsWith('\n')).toBe(true);
    const lines = text.split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toBe(summaryLine(record));
    expect(lines[2]).toBe('');
    expect(JSON.parse(lines[1])).toEqual(record);
    expectValid(JSON.parse(lines[1]));
  });

  it('uses the singular for one file and one range, and never breaks the summary line', () => {
    const { record } = twoFileCommit();
    const one: TraceRecord = structuredClone(record);
    one.files = [{ ...one.files[1] }];
    one.metadata[METADATA_KEY].intent_name = 'Multi\nline\r\nname';
    expect(summaryLine(one)).toBe('INT-001 Multi line name · INTENT_EVOLUTION · 1 file, 1 range');
    const zero: TraceRecord = structuredClone(record);
    zero.files = [];
    expect(summaryLine(zero)).toBe('INT-001 JWT Authentication Migration · INTENT_EVOLUTION · 0 files, 0 ranges');
    expect(noteText(one).split('\n')).toHaveLength(3);
  });

  it('reports several scope violations in the plural', () => {
    const { record } = twoFileCommit();
    const r: TraceRecord = structuredClone(record);
    r.metadata[METADATA_KEY].scope_violations = ['a', 'b'];
    expect(summaryLine(r)).toBe(
      'INT-001 JWT Authentication Migration · INTENT_EVOLUTION · 2 files, 3 ranges · SCOPE VIOLATION: 2 paths outside INT-001 (pre-commit bypassed)',
    );
  });
});

describe('the note of a real governed commit', () => {
  it('conforms to the schema and hashes the committed lines', () => {
    const repo = governedRepo(
      [{ id: 'INT-001', name: 'JWT Authentication Migration', scope: ['src/auth/**', 'src/middleware/jwt.ts'] }],
      { 'src/auth/a.ts': 'a1\na2\na3\n', 'src/middleware/jwt.ts': 'j1\n', 'README.md': '# r\n' },
    );
    const wt = checkoutIntent(repo, 'INT-001');
    writeFiles(wt, { 'src/auth/a.ts': 'a1\nNEW\na2\na3\nEND1\nEND2', 'src/middleware/jwt.ts': 'j1\nj2\n' });
    git(wt, 'commit', '-q', '-am', 'governed change');
    const note = noteOf(wt);
    expect(note).not.toBeNull();
    const { summary, record, raw } = note!;
    expect(summary).toBe('INT-001 JWT Authentication Migration · INTENT_EVOLUTION · 2 files, 3 ranges');
    expect(raw.split('\n').filter((l) => l !== '')).toHaveLength(2);
    expectValid(record);
    expect(record.vcs).toEqual({ type: 'git', revision: git(wt, 'rev-parse', 'HEAD').trim() });
    expect(record.files.map((f: { path: string }) => f.path).sort()).toEqual(['src/auth/a.ts', 'src/middleware/jwt.ts']);
    for (const f of record.files) {
      for (const c of f.conversations) expect(c.related).toContainEqual({ type: 'intent', url: 'intent:INT-001' });
    }
    const a = record.files.find((f: { path: string }) => f.path === 'src/auth/a.ts');
    expect(a.conversations[0].ranges.map((r: { start_line: number; end_line: number }) => [r.start_line, r.end_line])).toEqual([[2, 2], [5, 6]]);
    // The last range has no trailing newline on its last line: hashed as committed.
    expect(a.conversations[0].ranges[1].content_hash).toBe(`sha256:${createHash('sha256').update('END1\nEND2').digest('hex')}`);
    expectHashesMatch(wt, record);
    expect(record.metadata[METADATA_KEY].intent_id).toBe('INT-001');
  });
});
