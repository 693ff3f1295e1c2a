import { describe, expect, it } from 'vitest';
import { checkoutIntent, git, governedRepo, noteOf, run, writeFiles } from '../helpers.js';

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
