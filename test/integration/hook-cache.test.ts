import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkoutIntent, forFile, git, governedRepo, PKG_ROOT, run, tempDir, writeFiles } from '../helpers.js';

// The installed hooks run dist/bin/hook.cjs, which loads every hook (dist/bin/hooks.cjs) through a
// V8 code cache in dist/bin/.v8-cache/ (cli/hook-entry.cjs). A copy of the package, so that this
// file's caches are its own.

let pkg: string;
let wt: string;
let env: Record<string, string>;

beforeAll(() => forFile(() => {
  pkg = join(tempDir('intent-pkg-'), 'intent');
  mkdirSync(join(pkg, 'dist', 'bin'), { recursive: true });
  cpSync(join(PKG_ROOT, 'package.json'), join(pkg, 'package.json'));
  for (const f of ['hook.cjs', 'hooks.cjs', 'yaml.cjs']) cpSync(join(PKG_ROOT, 'dist', 'bin', f), join(pkg, 'dist', 'bin', f));
  cpSync(join(PKG_ROOT, 'git-hooks'), join(pkg, 'git-hooks'), { recursive: true });
  symlinkSync(join(PKG_ROOT, 'node_modules'), join(pkg, 'node_modules'));
  const repo = governedRepo([{ id: 'INT-001', scope: ['src/**'] }], { 'src/a.ts': 'export const a = 1;\n', 'README.md': '# t\n' });
  wt = checkoutIntent(repo, 'INT-001');
  const gitDir = git(wt, 'rev-parse', '--path-format=absolute', '--git-dir').trim();
  env = { GIT_DIR: gitDir, GIT_INDEX_FILE: join(gitDir, 'index') };
}));

const cacheDir = () => join(pkg, 'dist', 'bin', '.v8-cache');
const caches = (hook: string) => readdirSync(cacheDir()).filter((f) => f.startsWith(`${hook}-`));
/** pre-commit of the copy, as git runs it in the worktree (staged: a change in scope, and only that). */
function preCommit(n: number) {
  writeFiles(wt, { 'src/a.ts': `export const a = ${n};\n` });
  git(wt, 'add', 'src/a.ts');
  return run(process.execPath, [join(pkg, 'dist', 'bin', 'hook.cjs'), 'pre-commit'], wt, env);
}

describe('the hooks load through a V8 code cache', () => {
  it('a first run writes the cache, later runs use it unchanged', () => {
    rmSync(cacheDir(), { recursive: true, force: true });
    let r = preCommit(2);
    expect(r.status, r.stderr).toBe(0);
    const [file] = caches('pre-commit');
    expect(file).toMatch(/^pre-commit-[0-9a-f]{16}-v\d+\.\d+\.\d+-\w+\.bin$/);
    const written = statSync(join(cacheDir(), file));
    expect(written.size).toBeGreaterThan(1000);
    r = preCommit(3);
    expect(r.status, r.stderr).toBe(0);
    // accepted: not written again
    expect(statSync(join(cacheDir(), file)).mtimeMs).toBe(written.mtimeMs);
    expect(caches('pre-commit')).toEqual([file]);
  });

  it('a cache V8 rejects (garbled, or from another build) is compiled around and replaced; an old one is removed', () => {
    expect(preCommit(5).status).toBe(0); // the cache, written if no earlier run wrote it
    const [file] = caches('pre-commit');
    const garbage = Buffer.alloc(4096, 7);
    writeFileSync(join(cacheDir(), file), garbage);
    writeFileSync(join(cacheDir(), 'pre-commit-0000000000000000-v0.0.0-x64.bin'), 'old');
    const r = preCommit(4);
    expect(r.status, r.stderr).toBe(0);
    expect(readFileSync(join(cacheDir(), file)).equals(garbage)).toBe(false);
    expect(caches('pre-commit')).toEqual([file]);
  });

  it('a refusal still comes through the cached hook, with its message and exit code', () => {
    writeFiles(wt, { 'outside.txt': 'x\n' });
    git(wt, 'add', 'outside.txt');
    try {
      const r = run(process.execPath, [join(pkg, 'dist', 'bin', 'hook.cjs'), 'pre-commit'], wt, env);
      expect(r.status).toBe(1);
      expect(r.stderr).toContain('Scope Violation: INT-001 is not authorized to edit outside.txt');
    } finally {
      git(wt, 'rm', '-q', '-f', 'outside.txt');
    }
  });
});
