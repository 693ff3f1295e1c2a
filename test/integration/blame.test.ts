import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeFile } from '../../lib/agents/adapter.js';
import { checkoutIntent, git, governedRepo, intent, run, writeFiles } from '../helpers.js';

const MODEL = 'openai/gpt-5';
/** Commits what is staged a day later (so the move is the newer commit) and returns its sha. */
function commitNextDay(wt: string, message: string): string {
  const later = new Date(Date.now() + 86_400_000).toISOString();
  expect(run('git', ['commit', '-q', '-m', message], wt, { GIT_COMMITTER_DATE: later, GIT_AUTHOR_DATE: later }).status).toBe(0);
  return git(wt, 'rev-parse', 'HEAD').trim();
}

/**
 * `intent blame --json` of src/token.ts: its first line written by INT-002 in `c2` (a human), the
 * next four (BLOCK, moved there) credited to INT-001's model in `c1`; returns the six lines.
 */
function blameMovedBlock(wt: string, c1: string, c2: string, url: string): { line: number }[] {
  const r = intent(wt, ['blame', 'src/token.ts', '--json']);
  expect(r.status, r.stderr).toBe(0);
  const lines = JSON.parse(r.stdout).lines;
  expect(lines).toHaveLength(6);
  expect(lines[0]).toMatchObject({ line: 1, commit: c2, intent: 'INT-002', contributor: 'human' });
  for (const l of lines.slice(1, 5)) {
    expect(l).toMatchObject({ commit: c1, intent: 'INT-001', contributor: 'ai', model_id: MODEL, url, source: 'hash' });
  }
  return lines;
}

const BLOCK = 'export function verifyToken(t: string) {\n  if (!t) throw new Error("no token");\n  return t.split(".").length === 3;\n}\n';

describe('intent blame', () => {
  it('attributes a block moved to another file (by a later commit, another intent) to the commit, intent and model that wrote it', () => {
    const repo = governedRepo([{ id: 'INT-001', scope: ['src/**'] }, { id: 'INT-002', scope: ['src/**'] }], { 'src/a.ts': 'export const a = 1;\n' });
    const wt1 = checkoutIntent(repo, 'INT-001');
    writeFile({ worktree: wt1, path: 'src/a.ts', content: 'export const a = 1;\n' + BLOCK, tool: 'write_to_file', modelId: MODEL, conversationUrl: 'https://chat.example/c/1' });
    git(wt1, 'commit', '-q', '-m', 'add verifyToken');
    const c1 = git(wt1, 'rev-parse', 'HEAD').trim();
    git(repo, 'merge', '-q', '--ff-only', 'intent/INT-001');

    // INT-002 (a human) moves the block into its own file, with a header line, a day later.
    const wt2 = checkoutIntent(repo, 'INT-002');
    writeFiles(wt2, { 'src/a.ts': 'export const a = 1;\n', 'src/token.ts': '// token helpers\n' + BLOCK });
    git(wt2, 'add', '-A');
    const c2 = commitNextDay(wt2, 'move verifyToken');
    writeFileSync(join(wt2, 'src/token.ts'), '// token helpers\n' + BLOCK + 'export const draft = 1;\n');

    const lines = blameMovedBlock(wt2, c1, c2, 'https://chat.example/c/1');
    expect(lines[5]).toMatchObject({ line: 6, commit: null, source: 'uncommitted' });

    const human = intent(wt2, ['blame', 'src/token.ts']);
    expect(human.stdout.split('\n')[1]).toMatch(new RegExp(`^${c1.slice(0, 11)} INT-001 ai:openai/gpt-5 # 2\\| export function verifyToken`));
    expect(intent(wt2, ['blame', 'src/nope.ts']).status).toBe(2);
  });
});

describe('intent blame of a moved block whose boundaries differ from the recorded range', () => {
  it('credits the moved lines to the commit, intent and model that wrote them (part of a larger range, without its blank line)', () => {
    const repo = governedRepo([{ id: 'INT-001', scope: ['src/**'] }, { id: 'INT-002', scope: ['src/**'] }], { 'src/a.ts': 'export const a = 1;\n' });
    const wt1 = checkoutIntent(repo, 'INT-001');
    // The model writes two functions in one go: one recorded range (lines 2-12), a blank line between and after.
    const PARSE = 'export function parseHeader(h: string) {\n  const [kind, value] = h.split(" ");\n  return { kind, value };\n}\n';
    writeFile({ worktree: wt1, path: 'src/a.ts', content: 'export const a = 1;\n' + PARSE + '\n' + BLOCK + '\n', tool: 'write_to_file', modelId: MODEL, conversationUrl: 'https://chat.example/c/7' });
    git(wt1, 'commit', '-q', '-m', 'add parseHeader and verifyToken');
    const c1 = git(wt1, 'rev-parse', 'HEAD').trim();
    git(repo, 'merge', '-q', '--ff-only', 'intent/INT-001');

    // A human (INT-002) moves verifyToken alone, without the blank lines, between two lines of its own.
    const wt2 = checkoutIntent(repo, 'INT-002');
    writeFiles(wt2, {
      'src/a.ts': 'export const a = 1;\n' + PARSE,
      'src/token.ts': '// token helpers\n' + BLOCK + 'export const TOKEN_PARTS = 3;\n',
    });
    git(wt2, 'add', '-A');
    const c2 = commitNextDay(wt2, 'move verifyToken');

    const lines = blameMovedBlock(wt2, c1, c2, 'https://chat.example/c/7');
    expect(lines[5]).toMatchObject({ line: 6, commit: c2, intent: 'INT-002', contributor: 'human' });
    // What stayed keeps its credit too.
    const a = JSON.parse(intent(wt2, ['blame', 'src/a.ts', '--json']).stdout).lines;
    expect(a.slice(1).map((l: { commit: string; contributor: string }) => [l.commit, l.contributor])).toEqual(Array(4).fill([c1, 'ai']));
  });
});

describe('intent blame on what is not a text file', () => {
  it('a folder and a binary file: exit 1 with a clear error, no stack trace and no binary output', () => {
    const repo = governedRepo([{ id: 'INT-001', scope: ['src/**'] }], { 'src/a.ts': 'a\n', 'img.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0xff, 0xfe]) });
    const dir = intent(repo, ['blame', 'src']);
    expect(dir.status).toBe(1);
    expect(dir.stderr).toBe('intent: src is a folder: intent blame takes one file, e.g. intent blame src/<file>.\n');
    expect(JSON.parse(intent(repo, ['blame', 'src', '--json']).stdout).error.code).toBe('INVALID_INPUT');
    const png = intent(repo, ['blame', 'img.png']);
    expect(png.status).toBe(1);
    expect(png.stdout).toBe('');
    expect(png.stderr).toContain('img.png is a binary file: intent blame works on lines of text.');
    expect(png.stderr).not.toMatch(/internal error|\n\s+at /);
  });
});
