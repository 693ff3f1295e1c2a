// Attacks on the staged paths the hook server reads in-process (lib/git/index-file.ts readIndex,
// stagedPathsFrom, headFromIndex; lib/hooks/prefetch.ts): an agent that writes its worktree's index
// itself, as `git update-index` and a few bytes let it. The in-process list must never hold fewer
// paths than git finds staged in the same index, or an out-of-scope path would pass pre-commit.
// Real git, real hooks through the server.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkoutIntent, git, governedRepo, run, tempDir, until, writeFiles } from '../helpers.js';

const servers = new Set<number>();
afterEach(() => {
  for (const pid of servers) {
    try {
      process.kill(pid, 'SIGTERM');
    } catch { /* gone */ }
  }
  servers.clear();
});

function traced(trace: string, hook: string): { server: number; stagedInProcess?: boolean }[] {
  if (!existsSync(trace)) return [];
  const lines = readFileSync(trace, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  for (const l of lines) servers.add(l.server);
  return lines.filter((l) => l.hook === hook);
}

describe('an index whose cache tree lies, committed through the hook server', () => {
  it('does not leave the server a HEAD that is not the commit\'s: the path staged next is still refused', async () => {
    const repo = governedRepo([{ id: 'INT-001', scope: ['src/**'] }], {
      'src/a.ts': 'export const a = 1;\n', 'other/o.txt': 'o\n', 'other/p.txt': 'p\n', 'README.md': '# t\n',
    });
    const wt = checkoutIntent(repo, 'INT-001');
    const trace = join(tempDir('intent-index-attack-'), 'trace.jsonl');
    const env = { INTENT_HOOK_SERVER: '1', INTENT_HOOK_SERVER_MS: '60000', INTENT_HOOK_SERVER_TRACE: trace };
    for (const v of [2, 3, 4]) {
      writeFiles(wt, { 'src/a.ts': `export const a = ${v};\n` });
      git(wt, 'add', '-A');
      const c = run('git', ['commit', '-q', '-m', `in scope ${v}`], wt, env);
      expect(c.status, c.stderr).toBe(0);
      if (v === 2) await until(() => existsSync(join(repo, '.git', 'intent', 'server', 'pid')), 'the server runs');
    }
    await until(() => traced(trace, 'pre-commit').length > 0, 'a served pre-commit');
    expect(traced(trace, 'pre-commit').at(-1)!.stagedInProcess).toBe(true);

    // An honest in-scope change, and other/o.txt's entry pointed at new content in place: the cache
    // tree still says other/ is HEAD's tree, so git (diff --cached, commit) does not see it.
    const indexFile = git(wt, 'rev-parse', '--path-format=absolute', '--git-path', 'index').trim();
    writeFiles(wt, { 'src/a.ts': 'export const a = 5;\n' });
    git(wt, 'add', 'src/a.ts');
    const blob = run('git', ['hash-object', '-w', '--stdin'], wt, {}, 'out of scope\n').stdout.trim();
    const bytes = readFileSync(indexFile);
    const at = bytes.indexOf('other/o.txt\0') - 62 + 40;
    Buffer.from(blob, 'hex').copy(bytes, at);
    writeFileSync(indexFile, bytes);
    expect(git(wt, 'ls-files', '-s', 'other/o.txt')).toContain(blob);
    expect(git(wt, 'diff', '--cached', '--name-only').trim()).toBe('src/a.ts'); // git trusts the cache tree
    const lie = run('git', ['commit', '-q', '-m', 'in scope 5'], wt, env);
    expect(lie.status, lie.stderr).toBe(0);
    expect(git(wt, 'show', '--name-only', '--format=', 'HEAD').trim()).toBe('src/a.ts'); // what git committed
    expect(git(wt, 'rev-parse', 'HEAD:other/o.txt').trim()).not.toBe(blob);

    // The cache tree of other/ invalidated (the same entry staged again): git now sees other/o.txt.
    git(wt, 'update-index', '--cacheinfo', `100644,${blob},other/o.txt`);
    expect(git(wt, 'diff', '--cached', '--name-only').trim()).toBe('other/o.txt');
    const head = git(wt, 'rev-parse', 'HEAD').trim();
    const out = run('git', ['commit', '-q', '-m', 'out of scope'], wt, env);
    expect(out.stderr).toMatch(/other\/o\.txt/);
    expect(out.status).not.toBe(0);
    expect(git(wt, 'rev-parse', 'HEAD').trim()).toBe(head);
  }, 60_000);
});
