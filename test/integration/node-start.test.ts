import { appendFileSync, chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkoutIntent, forFile, git, governedRepo, noteOf, PKG_ROOT, run, tempDir, writeFiles } from '../helpers.js';

// Node builds its root certificate store at start-up whenever NODE_EXTRA_CA_CERTS is set (70 ms of
// a hook's 110 on this machine). The hook runner starts node without it and the entry puts it back
// for what the hook starts (lib/core/node-start.ts). A bundle that cannot be read makes node warn
// at start-up: that warning is how these tests see whether a node loaded it.

const WARNING = 'Ignoring extra certs from';
const BUNDLE = '/nonexistent/intent-test-ca.pem';

let repo: string;
let wt: string;
let seen: string;

beforeAll(() => forFile(() => {
  repo = governedRepo([{ id: 'INT-001', scope: ['src/**'] }], { 'src/a.ts': 'export const a = 1;\n', 'README.md': '# t\n' });
  seen = join(tempDir(), 'seen');
  // The repository's own lines after intent's block, which intent worktrees chain to.
  for (const h of ['pre-commit', 'post-commit']) {
    appendFileSync(join(repo, '.git', 'hooks', h), `echo "${h} \${NODE_EXTRA_CA_CERTS-unset} \${INTENT_NODE_EXTRA_CA_CERTS-unset}" >> '${seen}'\n`);
  }
  wt = checkoutIntent(repo, 'INT-001');
}));

describe('the hooks start node without NODE_EXTRA_CA_CERTS', () => {
  it('a bare node with the variable warns (the tests below could fail)', () => {
    const r = run(process.execPath, ['-e', '0'], wt, { NODE_EXTRA_CA_CERTS: BUNDLE });
    expect(r.stderr).toContain(WARNING);
  });

  it('a governed commit loads no certificates in its hooks; the repository\'s own hooks still see the variable', () => {
    writeFiles(wt, { 'src/a.ts': 'export const a = 2;\n' });
    git(wt, 'add', '-A');
    const r = run('git', ['commit', '-q', '-m', 'change a'], wt, { NODE_EXTRA_CA_CERTS: BUNDLE });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).not.toContain(WARNING);
    expect(noteOf(wt)?.record.files.map((f: { path: string }) => f.path)).toEqual(['src/a.ts']);
    expect(readFileSync(seen, 'utf8')).toBe(`pre-commit ${BUNDLE} unset\npost-commit ${BUNDLE} unset\n`);
  });

  it('an out-of-scope commit is still refused, without the warning', () => {
    writeFiles(wt, { 'README.md': '# changed\n' });
    git(wt, 'add', '-A');
    const r = run('git', ['commit', '-q', '-m', 'out of scope'], wt, { NODE_EXTRA_CA_CERTS: BUNDLE });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('README.md');
    expect(r.stderr).not.toContain(WARNING);
    git(wt, 'reset', '-q', '--hard');
  });

  it('the agents\' hook runner starts node without it too', () => {
    const payload = JSON.stringify({ session_id: 's', hook_event_name: 'PreToolUse', tool_name: 'Read', tool_input: { file_path: join(wt, 'src/a.ts') }, cwd: wt });
    const r = run(join(repo, '.git', 'intent', 'bin', 'agent'), ['claude-code', 'pre-tool-use'], wt, { NODE_EXTRA_CA_CERTS: BUNDLE }, payload);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).not.toContain(WARNING);
  });
});

describe('the runner parks it and the entry puts it back', () => {
  const SHOW = 'echo "${NODE_EXTRA_CA_CERTS-unset}|${INTENT_NODE_EXTRA_CA_CERTS-unset}"';
  const SHELLS = ['sh', 'dash', 'bash'].filter((sh) => ['/bin', '/usr/bin'].some((d) => existsSync(`${d}/${sh}`)));

  it(`the runner, under ${SHELLS.join(', ')}: set (even empty) is parked, unset clears a stale parked value`, () => {
    const dir = tempDir();
    const show = join(dir, 'show');
    writeFileSync(show, `#!/bin/sh\n${SHOW}\n`);
    chmodSync(show, 0o755);
    // The runner with /usr/bin/env as its "node": it runs the entry, a script that shows what it got.
    const runner = join(dir, 'runner');
    writeFileSync(runner, readFileSync(join(PKG_ROOT, 'git-hooks', 'runner.sh'), 'utf8').replace('@NODE@', "'/usr/bin/env'").replace('@ENTRY@', `'${show}'`));
    for (const sh of SHELLS) {
      const seen = (env: Record<string, string | undefined>) => run(sh, [runner], dir, env).stdout;
      expect(seen({ NODE_EXTRA_CA_CERTS: '/ca.pem', INTENT_NODE_EXTRA_CA_CERTS: undefined }), sh).toBe('unset|/ca.pem\n');
      expect(seen({ NODE_EXTRA_CA_CERTS: '', INTENT_NODE_EXTRA_CA_CERTS: undefined }), sh).toBe('unset|\n');
      expect(seen({ NODE_EXTRA_CA_CERTS: undefined, INTENT_NODE_EXTRA_CA_CERTS: '/stale.pem' }), sh).toBe('unset|unset\n');
    }
  });

  it('the hook entry puts it back for what the hook starts, passes the exit code, and loses no output', () => {
    // The real entry (dist/bin/hook.cjs) with a bundle of our own in place of dist/bin/hooks.cjs.
    const bin = join(tempDir(), 'dist', 'bin');
    mkdirSync(bin, { recursive: true });
    copyFileSync(join(PKG_ROOT, 'dist', 'bin', 'hook.cjs'), join(bin, 'hook.cjs'));
    writeFileSync(join(bin, 'hooks.cjs'), `exports.runHook = async (hook) => {
  const seen = require('node:child_process').execFileSync('sh', ['-c', ${JSON.stringify(SHOW)}], { encoding: 'utf8' });
  if (hook === 'loud') { process.stderr.write('a'.repeat(300000) + '\\n'); return { code: 0, stderr: '' }; }
  return { code: 3, stderr: seen };
};\n`);
    const entry = (hook: string, env: Record<string, string | undefined>) => run(process.execPath, [join(bin, 'hook.cjs'), hook], bin, env);
    let r = entry('pre-commit', { NODE_EXTRA_CA_CERTS: undefined, INTENT_NODE_EXTRA_CA_CERTS: '/ca.pem' });
    expect([r.status, r.stderr]).toEqual([3, '/ca.pem|unset\n']);
    r = entry('pre-commit', { NODE_EXTRA_CA_CERTS: undefined, INTENT_NODE_EXTRA_CA_CERTS: undefined });
    expect([r.status, r.stderr]).toEqual([3, 'unset|unset\n']);
    // Written straight to stderr by the hook, not returned: all of it arrives before the exit.
    r = entry('loud', {});
    expect([r.status, r.stderr.length]).toEqual([0, 300001]);
  });
});
