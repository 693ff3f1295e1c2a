// The hooks of intent worktrees find the repository's own hooks folder from a cache (lib/hooks/
// chain-cache.ts) instead of one `git config` per hook: a commit asks git for no config, and the
// cache follows every change a team makes (a hook edited or added, core.hooksPath moved, an include).
import { appendFileSync, chmodSync, existsSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkoutIntent, git, governedRepo, run, tempDir, writeFiles } from '../helpers.js';

/** Commits a change to `src/a.ts` in `wt`; returns the argv of every git process it started (GIT_TRACE2_EVENT). */
function commit(wt: string, n: number): string[][] {
  writeFiles(wt, { 'src/a.ts': `export const a = ${n};\n` });
  git(wt, 'add', 'src/a.ts');
  const trace = join(tempDir('intent-trace2-'), 'events');
  const r = run('git', ['commit', '-q', '-m', `change ${n}`], wt, { GIT_TRACE2_EVENT: trace });
  expect(r.status, r.stderr).toBe(0);
  expect(r.stderr).not.toMatch(/NOT recorded|blocked/);
  return readFileSync(trace, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { event: string; argv?: string[] })
    .filter((e) => e.event === 'start').map((e) => e.argv ?? []);
}

const asksConfig = (argv: string[][]) => argv.some((a) => a.includes('--show-scope'));

/** A hook of the repository's own that appends its name to `marks`. */
function markingHook(file: string, marks: string, name: string): void {
  writeFileSync(file, `#!/bin/sh\necho ${name} >> '${marks}'\n`);
  chmodSync(file, 0o755);
}

/**
 * Sets the files' times `seconds` back: a setting made a while before the commit (the cache cannot
 * tell a file changed in the moment it read the config from one changed after: it asks git again).
 */
function age(seconds: number, ...files: string[]): void {
  const t = Date.now() / 1000 - seconds;
  for (const f of files) utimesSync(f, t, t);
}

const marksOf = (marks: string) => (existsSync(marks) ? readFileSync(marks, 'utf8').split('\n').filter(Boolean) : []);

describe('the chain cache of intent worktrees\' hooks', () => {
  it('a commit asks git for no config; an edited hook, a new hooks folder and a new hook are still run', () => {
    const repo = governedRepo([{ id: 'INT-001', scope: ['src/**'] }]);
    const wt = checkoutIntent(repo, 'INT-001');
    const cache = join(repo, '.git', 'intent', 'hooks-chain.sh');
    expect(existsSync(cache)).toBe(true);
    age(5, join(repo, '.git', 'config'), join(repo, '.git', 'hooks'));
    commit(wt, 1);
    expect(asksConfig(commit(wt, 2)), 'the hooks asked git for core.hooksPath').toBe(false);

    // The team adds its own line to the post-commit hook intent created (cached as intent's only).
    const marks = join(tempDir('intent-marks-'), 'marks');
    appendFileSync(join(repo, '.git', 'hooks', 'post-commit'), `echo edited-post-commit >> '${marks}'\n`);
    commit(wt, 3);
    expect(marksOf(marks)).toEqual(['edited-post-commit']);

    // A hook of a name the repository had none of: in the intent worktrees' folder from the first
    // hook run there after it was added (the commit's pre-commit), so run from the next index write.
    markingHook(join(repo, '.git', 'hooks', 'post-index-change'), marks, 'post-index-change');
    commit(wt, 4);
    writeFiles(wt, { 'src/a.ts': 'export const a = 44;\n' });
    git(wt, 'add', 'src/a.ts');
    expect(marksOf(marks)).toContain('post-index-change');

    // core.hooksPath moved to a committed folder (as husky or a `.githooks` setup does).
    mkdirSync(join(repo, '.githooks'));
    markingHook(join(repo, '.githooks', 'pre-commit'), marks, 'githooks-pre-commit');
    git(repo, 'config', 'core.hooksPath', '.githooks');
    age(1, join(repo, '.git', 'config'), join(repo, '.githooks'));
    age(2, cache);
    const before = marksOf(marks).length;
    commit(wt, 5);
    expect(marksOf(marks).slice(before)).toEqual(['githooks-pre-commit']);
    // And once refreshed, asked no more.
    expect(asksConfig(commit(wt, 6))).toBe(false);
    expect(marksOf(marks).filter((m) => m === 'githooks-pre-commit')).toHaveLength(2);
  });

  it('a cache of the line format from before is never sourced, and goes when the cache is written again', () => {
    const repo = governedRepo([{ id: 'INT-001', scope: ['src/**'] }]);
    const wt = checkoutIntent(repo, 'INT-001');
    const cache = join(repo, '.git', 'intent', 'hooks-chain.sh');
    const legacy = join(repo, '.git', 'intent', 'hooks-chain');
    // Its lines as commands would run this one.
    const ran = join(tempDir('intent-legacy-'), 'ran');
    writeFileSync(legacy, `intent-chain 1\ntouch '${ran}'\n`);
    age(5, join(repo, '.git', 'config'), join(repo, '.git', 'hooks'));
    commit(wt, 1);
    expect(existsSync(ran)).toBe(false);
    expect(readFileSync(cache, 'utf8')).toMatch(/^# intent-chain 2: /);
    // Stale (the config newer than the cache): pre-commit writes it again, and removes the old one.
    age(1, join(repo, '.git', 'config'));
    age(2, cache);
    commit(wt, 2);
    expect(existsSync(legacy)).toBe(false);
    expect(existsSync(ran)).toBe(false);
    expect(asksConfig(commit(wt, 3))).toBe(false);
  });

  it('a configuration with an include is not cached: every hook asks git, and the included core.hooksPath is followed', () => {
    const repo = governedRepo([{ id: 'INT-001', scope: ['src/**'] }]);
    const wt = checkoutIntent(repo, 'INT-001');
    const marks = join(tempDir('intent-marks-'), 'marks');
    const hooks = join(tempDir('intent-hooks-'), 'hooks');
    mkdirSync(hooks);
    markingHook(join(hooks, 'post-commit'), marks, 'included-post-commit');
    const extra = join(tempDir('intent-include-'), 'extra.cfg');
    writeFileSync(extra, `[core]\n\thooksPath = ${hooks}\n`);
    git(repo, 'config', 'include.path', extra);
    const argv = commit(wt, 1);
    expect(asksConfig(argv)).toBe(true);
    expect(existsSync(join(repo, '.git', 'intent', 'hooks-chain.sh'))).toBe(false);
    expect(marksOf(marks)).toEqual(['included-post-commit']);
  });
});
