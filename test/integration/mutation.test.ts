import { describe, expect, it } from 'vitest';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkoutIntent, git, governedRepo, noteOf, run, tempDir, writeFiles } from '../helpers.js';

const BASE = {
  'src/auth.ts': 'export function login(user: string) {\n  const ttl = 3600;\n  return `${user}:${ttl}`;\n}\n\nexport function logout(user: string) {\n  return user;\n}\n',
  'src/util.ts': 'export const one = 1;\n',
};

function setup(): string {
  const repo = governedRepo([{ id: 'INT-001', scope: ['src/**'] }], BASE);
  return checkoutIntent(repo, 'INT-001');
}

/** Commits everything with the claim trailer; returns git's result. */
function claim(wt: string, files: Record<string, string>, remove: string[] = []): { status: number; stderr: string } {
  writeFiles(wt, files);
  for (const f of remove) git(wt, 'rm', '-q', f);
  git(wt, 'add', '-A');
  return run('git', ['commit', '-q', '-m', 'refactor', '-m', 'Intent-Mutation: AST_REFACTOR'], wt);
}

const CASES: { name: string; files: Record<string, string>; remove?: string[]; ok: boolean; reason?: RegExp }[] = [
  {
    name: 'formatting only (layout, quotes, semicolons, a comment)',
    files: { 'src/auth.ts': '// auth\nexport function login(user: string)\n{\n    const ttl = 3600\n    return `${user}:${ttl}`\n}\n\nexport function logout(user: string) { return user }\n' },
    ok: true,
  },
  {
    name: 'a consistent rename',
    files: { 'src/auth.ts': BASE['src/auth.ts'].replace(/\bttl\b/g, 'lifetime').replace(/\buser\b/g, 'name') },
    ok: true,
  },
  {
    name: 'a function moved between files',
    files: {
      'src/auth.ts': 'export function login(user: string) {\n  const ttl = 3600;\n  return `${user}:${ttl}`;\n}\n',
      'src/util.ts': 'export const one = 1;\n\nexport function logout(user: string) {\n  return user;\n}\n',
    },
    ok: true,
  },
  { name: 'a literal changed', files: { 'src/auth.ts': BASE['src/auth.ts'].replace('3600', '7200') }, ok: false, reason: /login.*3600.*7200/ },
  {
    name: 'a branch added',
    files: { 'src/auth.ts': BASE['src/auth.ts'].replace('  const ttl', '  if (!user) throw new Error("no user");\n  const ttl') },
    ok: false, reason: /login/,
  },
  { name: 'a new function', files: { 'src/util.ts': 'export const one = 1;\nexport function two() {\n  return 2;\n}\n' }, ok: false, reason: /two/ },
];

describe('Intent-Mutation: AST_REFACTOR is a claim the hooks check by syntax', () => {
  it.each(CASES)('$name', ({ files, remove, ok, reason }) => {
    const wt = setup();
    const head = git(wt, 'rev-parse', 'HEAD');
    const r = claim(wt, files, remove);
    if (ok) {
      expect(r.status, r.stderr).toBe(0);
      const meta = noteOf(wt)!.record.metadata['dev.intent'];
      expect(meta.mutation_class).toBe('AST_REFACTOR');
    } else {
      expect(r.status).not.toBe(0);
      expect(r.stderr).toContain('Intent-Mutation: AST_REFACTOR is not true for this commit');
      expect(r.stderr).toMatch(reason!);
      expect(git(wt, 'rev-parse', 'HEAD')).toBe(head);
      // Without the claim the same change commits, classified as an evolution with the construct named.
      git(wt, 'commit', '-q', '-m', 'evolve');
      const meta = noteOf(wt)!.record.metadata['dev.intent'];
      expect(meta.mutation_class).toBe('INTENT_EVOLUTION');
    }
  });

  it('refuses a refactor claim for a commit that changes nothing (its note would say INTENT_EVOLUTION)', () => {
    const wt = setup();
    const r = run('git', ['commit', '-q', '--allow-empty', '-m', 'nothing', '-m', 'Intent-Mutation: AST_REFACTOR'], wt);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('Intent-Mutation: AST_REFACTOR is not true for this commit: the commit changes no file.');
  });

  it('checks a claim on the first commit of a repository against nothing (every file added: an evolution)', () => {
    const repo = governedRepo([{ id: 'INT-001', scope: ['src/**'] }], BASE);
    git(repo, 'checkout', '-q', '--orphan', 'fresh');
    const r = run('git', ['commit', '-q', '-m', 'first', '-m', 'Intent-Mutation: AST_REFACTOR'], repo);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('Intent-Mutation: AST_REFACTOR is not true for this commit');
    expect(r.stderr).not.toContain('fatal');
  });

  it('refuses an unknown claim and accepts INTENT_EVOLUTION', () => {
    const wt = setup();
    writeFiles(wt, { 'src/util.ts': 'export const one = 2;\n' });
    git(wt, 'add', '-A');
    const bad = run('git', ['commit', '-q', '-m', 'x', '-m', 'Intent-Mutation: MAYBE'], wt);
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toContain('is not a mutation class');
    expect(run('git', ['commit', '-q', '-m', 'x', '-m', 'Intent-Mutation: INTENT_EVOLUTION'], wt).status).toBe(0);
  });
});

describe('the commit-msg check and the trace note take one decision', () => {
  /** Claims a refactor; returns git's result and, when it committed, the note's per-file classes. */
  function claimed(base: Record<string, string>, after: Record<string, string>): { status: number; stderr: string; classes: Record<string, string> | null; commit: string | null } {
    const repo = governedRepo([{ id: 'INT-001', scope: ['src/**'] }], base);
    const wt = checkoutIntent(repo, 'INT-001');
    const head = git(wt, 'rev-parse', 'HEAD');
    const r = claim(wt, after);
    const now = git(wt, 'rev-parse', 'HEAD');
    if (now === head) return { ...r, classes: null, commit: null };
    const meta = noteOf(wt)!.record.metadata['dev.intent'];
    const classes = Object.fromEntries(Object.entries(meta.files as Record<string, { mutation_class: string }>).map(([p, f]) => [p, f.mutation_class]));
    return { ...r, classes: { ...classes, '*': meta.mutation_class }, commit: now.trim() };
  }

  it('a refactor the syntax comparison proves (numeric spelling, parentheses, escapes, quoted keys) is accepted and recorded as AST_REFACTOR', () => {
    const r = claimed(
      { 'src/a.ts': "export function f(x: number) {\n  const o = { 'k': .5 };\n  return (x + 0x10) * o.k + 'it\\'s'.length;\n}\n" },
      { 'src/a.ts': 'export function f(x: number) {\n  const o = { k: 0.5 };\n  return (x + 16) * o.k + "it\'s".length;\n}\n' },
    );
    expect(r.status, r.stderr).toBe(0);
    expect(r.classes).toEqual({ 'src/a.ts': 'AST_REFACTOR', '*': 'AST_REFACTOR' });
  });

  it('a refactor the token filter cannot see (shorthand properties renamed, imports split) is accepted and recorded as AST_REFACTOR', () => {
    const r = claimed(
      {
        'src/f.ts': "import { b, a } from './x';\nexport function f(o: { name: string }) {\n  const { name } = o;\n  return a(b({ name }));\n}\n",
        'src/x.ts': 'export const a = (v: unknown) => v;\nexport const b = (v: unknown) => v;\n',
      },
      { 'src/f.ts': "import { a } from './x';\nimport { b } from './x';\nexport function f(input: { name: string }) {\n  const { name: n } = input;\n  return a(b({ name: n }));\n}\n" },
    );
    expect(r.status, r.stderr).toBe(0);
    expect(r.classes).toEqual({ 'src/f.ts': 'AST_REFACTOR', '*': 'AST_REFACTOR' });
  });

  it('a claimed refactor too large for the syntax comparison is refused (its note would say INTENT_EVOLUTION)', () => {
    const line = 'total = price+tax*rate-discount/2\n';
    const big = line.repeat(Math.ceil((2.2 * 1024 * 1024) / line.length));
    const r = claimed({ 'src/big.md': big }, { 'src/big.md': big.replaceAll('+', ' + ') });
    expect(r.commit).toBeNull();
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('Intent-Mutation: AST_REFACTOR is not true for this commit');
    expect(r.stderr).toMatch(/too large for the syntax comparison \(1 files, 4\.\d MiB of changed text; the limits are 500 files and 4\.0 MiB\)/);
  });

  it('an amend is checked as the whole commit it makes: a false claim is refused, a true one recorded as AST_REFACTOR', () => {
    const wt = setup();
    writeFiles(wt, { 'src/util.ts': 'export const one = 1;\nexport function two() {\n  return 2;\n}\n' });
    git(wt, 'commit', '-q', '-am', 'two');
    const head = git(wt, 'rev-parse', 'HEAD');
    // Only formatting is staged now, but the amended commit, against its parent, adds a function.
    writeFiles(wt, { 'src/util.ts': 'export const one = 1\nexport function two() { return 2 }\n' });
    const r = run('git', ['commit', '-q', '-a', '--amend', '-m', 'two', '-m', 'Intent-Mutation: AST_REFACTOR'], wt);
    if (process.platform === 'linux') {
      // commit-msg reads git's command line (/proc) to know it is an amend.
      expect(r.status).not.toBe(0);
      expect(r.stderr).toContain('Intent-Mutation: AST_REFACTOR is not true for this commit');
      expect(r.stderr).toMatch(/two/);
      expect(git(wt, 'rev-parse', 'HEAD')).toBe(head);
    } else expect(r.stderr).toContain('claims Intent-Mutation: AST_REFACTOR, but against its parent it is not one');
    // A true claim on an amend: the amended commit is a refactor of its parent.
    const wt2 = setup();
    writeFiles(wt2, { 'src/util.ts': 'export const one = 1;  \n' });
    git(wt2, 'commit', '-q', '-am', 'spaces');
    writeFiles(wt2, { 'src/util.ts': 'export const one = 1\n' });
    const ok = run('git', ['commit', '-q', '-a', '--amend', '-m', 'layout', '-m', 'Intent-Mutation: AST_REFACTOR'], wt2);
    expect(ok.status, ok.stderr).toBe(0);
    expect(noteOf(wt2)!.record.metadata['dev.intent'].mutation_class).toBe('AST_REFACTOR');
  });

  it('--no-verify does not skip the check in an intent worktree: prepare-commit-msg refuses a false claim', () => {
    const wt = setup();
    writeFiles(wt, { 'src/util.ts': 'export const one = 2;\n' });
    const r = run('git', ['commit', '-q', '-a', '--no-verify', '-m', 'one', '-m', 'Intent-Mutation: AST_REFACTOR'], wt);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('Intent-Mutation: AST_REFACTOR is not true for this commit: const one: literal 1 became 2');
    expect(git(wt, 'log', '-1', '--format=%s')).not.toBe('one');
  });

  it('a claim written in the editor, after prepare-commit-msg checked the message, that the commit does not bear out: recorded as INTENT_EVOLUTION, and the committer is told', () => {
    const wt = setup();
    writeFiles(wt, { 'src/util.ts': 'export const one = 2;\n' });
    const editor = join(tempDir(), 'editor.sh');
    writeFileSync(editor, '#!/bin/sh\nprintf "one\\n\\nIntent-Mutation: AST_REFACTOR\\n" >"$1"\n');
    chmodSync(editor, 0o755);
    const r = run('git', ['commit', '-q', '-a'], wt, { GIT_EDITOR: editor });
    expect(r.status, r.stderr).toBe(0);
    expect(git(wt, 'log', '-1', '--format=%B')).toContain('Intent-Mutation: AST_REFACTOR');
    expect(noteOf(wt)!.record.metadata['dev.intent'].mutation_class).toBe('INTENT_EVOLUTION');
    expect(r.stderr).toContain(`intent: WARNING: commit ${git(wt, 'rev-parse', 'HEAD').slice(0, 12)} claims Intent-Mutation: AST_REFACTOR, but against its parent it is not one: `);
    expect(r.stderr).toContain('it is recorded as INTENT_EVOLUTION');
  });
});
