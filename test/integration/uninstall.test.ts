// What `intent init` may and may not do to the hooks it finds, and `intent uninstall` putting them
// back byte for byte: a binary hook, a symlinked hook, modes 644/700, a file without a final
// newline, a disabled (non-executable) hook, a chained hook a manager regenerated, the pre-commit
// framework's legacy mode; `intent init` after `intent uninstall` gives the same state again;
// `intent doctor` and the one-line warning when the main worktree's hooks are gone.
import { chmodSync, existsSync, lstatSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { git, intent, makeRepo, noteOf, registryYaml, run, writeFiles } from '../helpers.js';

const FILES = {
  'README.md': '# test\n',
  'src/auth/a.ts': 'export const a = 1;\n',
  'src/other.ts': 'export const other = 1;\n',
  '.orchestration/active_intents.yaml': registryYaml([{ id: 'INT-001', scope: ['src/auth/**'] }]),
};

/** Every entry of a hooks folder (samples aside): kind, mode, bytes or link target. */
function snapshot(dir: string): Record<string, string> {
  if (!existsSync(dir)) return {};
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir).sort()) {
    if (name.endsWith('.sample')) continue;
    const p = join(dir, name);
    const st = lstatSync(p);
    out[name] = st.isSymbolicLink() ? `link -> ${readlinkSync(p)}` : `${(st.mode & 0o7777).toString(8)} ${readFileSync(p).toString('base64')}`;
  }
  return out;
}

function ok(cwd: string, args: string[], env: Record<string, string> = {}): string {
  const r = intent(cwd, args, env);
  expect(r.status, `intent ${args.join(' ')}:\n${r.stderr}${r.stdout}`).toBe(0);
  return r.stdout;
}

/** The local config as a sorted list (stable across section order). */
function config(repo: string): string[] {
  return git(repo, 'config', '--list', '--local').split('\n').filter(Boolean).sort();
}

/** An ELF-like binary: bytes that are not UTF-8, NUL bytes, no `#!`. */
const BINARY = Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x01, 0x00, 0xff, 0xfe, 0x80, 0x81, 0x00, 0x0a, 0xc3, 0x28, 0x0a]);

describe('intent init never edits what is not a text shell script; uninstall restores every hook', () => {
  it('chains a binary, a symlink and a disabled hook (bytes, modes, links kept), edits shell hooks keeping their mode, and uninstall gives back every byte', () => {
    const repo = makeRepo(FILES);
    const hooks = join(repo, '.git', 'hooks');
    const scripts = join(repo, 'scripts');
    writeFiles(repo, { 'scripts/real-commit-msg': '#!/bin/sh\necho linked-hook-ran >&2\n' });
    chmodSync(join(scripts, 'real-commit-msg'), 0o755);
    writeFileSync(join(hooks, 'pre-commit'), BINARY);
    chmodSync(join(hooks, 'pre-commit'), 0o755);
    symlinkSync('../../scripts/real-commit-msg', join(hooks, 'commit-msg'));
    // A disabled hook: git does not run it; it must stay off.
    writeFileSync(join(hooks, 'post-commit'), '#!/bin/sh\necho disabled-hook-ran >&2\nexit 1\n');
    chmodSync(join(hooks, 'post-commit'), 0o644);
    // A shell hook, mode 700, without a final newline.
    writeFileSync(join(hooks, 'post-merge'), '#!/bin/sh\necho post-merge-ran >&2');
    chmodSync(join(hooks, 'post-merge'), 0o700);
    // A shell hook without a shebang (git runs it with sh).
    writeFileSync(join(hooks, 'pre-push'), 'echo pre-push-ran >&2\n');
    chmodSync(join(hooks, 'pre-push'), 0o755);
    const before = snapshot(hooks);
    const configBefore = config(repo);

    const out = JSON.parse(ok(repo, ['init', '--json']));
    const action = Object.fromEntries(out.hooks.map((h: { hook: string; action: string }) => [h.hook, h.action]));
    expect(action).toMatchObject({ 'pre-commit': 'chained', 'commit-msg': 'chained', 'post-commit': 'chained', 'post-merge': 'inserted', 'pre-push': 'inserted', 'post-rewrite': 'created' });
    // The binary was moved, not rewritten; the symlink is still a symlink; the disabled hook still off.
    expect(readFileSync(join(hooks, 'pre-commit.intent-chained')).equals(BINARY)).toBe(true);
    expect(readlinkSync(join(hooks, 'commit-msg.intent-chained'))).toBe('../../scripts/real-commit-msg');
    expect(lstatSync(join(hooks, 'post-commit.intent-chained')).mode & 0o777).toBe(0o644);
    expect(lstatSync(join(hooks, 'post-merge')).mode & 0o777).toBe(0o700);
    expect(readFileSync(join(hooks, 'post-merge'), 'utf8').endsWith('echo post-merge-ran >&2')).toBe(true);
    expect(JSON.parse(ok(repo, ['init', '--json'])).changed).toBe(false);

    // The chained binary runs after ours (it cannot run: exec format error), so commits fail as they
    // did before intent; drop it to see the rest: the symlinked hook runs, the disabled one does not.
    rmSync(join(hooks, 'pre-commit.intent-chained'));
    git(repo, 'add', '-A');
    const c = run('git', ['commit', '-q', '-m', 'scripts', '--no-verify'], repo);
    expect(c.status).toBe(0);
    writeFiles(repo, { 'README.md': '# changed\n' });
    const r = run('git', ['commit', '-q', '-am', 'human commit'], repo);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toContain('linked-hook-ran');
    expect(r.stderr).not.toContain('disabled-hook-ran');
    writeFileSync(join(hooks, 'pre-commit.intent-chained'), BINARY);
    chmodSync(join(hooks, 'pre-commit.intent-chained'), 0o755);

    const un = JSON.parse(ok(repo, ['uninstall', '--json']));
    expect(un.hooks.map((h: { action: string }) => h.action).sort()).toEqual(['removed', 'removed', 'restored', 'restored', 'unchained', 'unchained', 'unchained']);
    expect(snapshot(hooks)).toEqual(before);
    expect(config(repo)).toEqual(configBefore);
    expect(existsSync(join(repo, '.git', 'intent', 'bin'))).toBe(false);
    expect(un.yours).toContain('.orchestration/AGENT.md');
    expect(un.data.removed).toEqual([]);
  });

  it('intent init after uninstall gives the same state: hook files, runner, config', () => {
    const repo = makeRepo(FILES);
    writeFileSync(join(repo, '.git', 'hooks', 'pre-commit'), '#!/bin/bash\necho mine\n');
    chmodSync(join(repo, '.git', 'hooks', 'pre-commit'), 0o750);
    ok(repo, ['init']);
    const wt = JSON.parse(ok(repo, ['checkout', 'INT-001', '--json'])).path;
    const state = () => ({ hooks: snapshot(join(repo, '.git', 'hooks')), runner: snapshot(join(repo, '.git', 'intent', 'bin')), wt: snapshot(join(repo, '.git', 'intent', 'hooks')), config: config(repo) });
    const installed = state();
    ok(repo, ['uninstall']);
    expect(run('git', ['config', 'core.hooksPath'], wt).stdout).toBe('');
    expect(existsSync(join(repo, '.git', 'worktrees', 'INT-001', 'config.worktree'))).toBe(false);
    expect(existsSync(join(repo, '.git', 'intent', 'hooks'))).toBe(false);
    ok(repo, ['init']);
    // checkout of an existing worktree gives it intent's hooks again
    ok(repo, ['checkout', 'INT-001']);
    expect(state()).toEqual(installed);
    writeFiles(wt, { 'src/other.ts': 'export const other = 2;\n' });
    const refused = run('git', ['commit', '-q', '-am', 'out of scope'], wt);
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain('Scope Violation');
  });

  it('re-chains a chained hook that a manager regenerated (no crash), keeping the earlier copy; no double run under the pre-commit framework', () => {
    const repo = makeRepo(FILES);
    const hooks = join(repo, '.git', 'hooks');
    const node = '#!/usr/bin/env node\nconsole.error("node-hook v1");\n';
    writeFileSync(join(hooks, 'pre-commit'), node);
    chmodSync(join(hooks, 'pre-commit'), 0o755);
    ok(repo, ['init']);
    // The manager writes its hook again over our wrapper.
    writeFileSync(join(hooks, 'pre-commit'), node.replace('v1', 'v2'));
    const again = JSON.parse(ok(repo, ['init', '--json']));
    expect(again.hooks[0]).toMatchObject({ action: 'chained' });
    expect(readFileSync(join(hooks, 'pre-commit.intent-chained'), 'utf8')).toContain('v2');
    expect(readFileSync(again.hooks[0].supersededTo, 'utf8')).toContain('v1');

    // The pre-commit framework's legacy mode: its hook runs <hook>.legacy, which is intent's hook.
    const other = makeRepo(FILES);
    const oh = join(other, '.git', 'hooks');
    ok(other, ['init']);
    const ours = readFileSync(join(oh, 'post-commit'), 'utf8');
    writeFileSync(join(oh, 'post-commit.legacy'), ours);
    chmodSync(join(oh, 'post-commit.legacy'), 0o755);
    writeFileSync(join(oh, 'post-commit'), '#!/usr/bin/env bash\n# File generated by pre-commit: https://pre-commit.com\nHERE="$(cd "$(dirname "$0")" && pwd)"\n"$HERE/post-commit.legacy" "$@"\n');
    chmodSync(join(oh, 'post-commit'), 0o755);
    const pc = JSON.parse(ok(other, ['init', '--json'])).hooks.find((h: { hook: string }) => h.hook === 'post-commit');
    expect(pc).toMatchObject({ action: 'unchanged', via: 'legacy', file: join(oh, 'post-commit.legacy') });
    expect(readFileSync(join(oh, 'post-commit'), 'utf8')).not.toContain('# >>> intent >>>');
    // A governed commit is recorded once.
    const wt = JSON.parse(ok(other, ['checkout', 'INT-001', '--json'])).path;
    writeFiles(wt, { 'src/auth/a.ts': 'export const a = 2;\n' });
    const r = run('git', ['commit', '-q', '-am', 'in scope'], wt);
    expect(r.status, r.stderr).toBe(0);
    expect(noteOf(wt)!.summary.startsWith('INT-001 ')).toBe(true);
    expect(readFileSync(join(other, '.orchestration', 'agent_trace.jsonl'), 'utf8').trim().split('\n')).toHaveLength(1);
  });
});

describe('intent doctor and the warning when the main worktree loses its hooks', () => {
  it('every command warns in one line, status shows it, doctor names it, doctor --fix repairs it', () => {
    const repo = makeRepo(FILES);
    ok(repo, ['init']);
    let d = intent(repo, ['doctor', '--json']);
    expect(d.status, d.stdout).toBe(0);
    expect(JSON.parse(d.stdout).ok).toBe(true);
    const quiet = intent(repo, ['verify']);
    expect(quiet.stderr).not.toContain('WARNING');

    rmSync(join(repo, '.git', 'hooks', 'post-commit'));
    writeFileSync(join(repo, '.git', 'hooks', 'pre-commit'), '#!/bin/sh\n# LEFTHOOK\nexit 0\n');
    const v = intent(repo, ['verify']);
    const warnings = v.stderr.split('\n').filter((l) => l.includes('WARNING'));
    expect(warnings).toEqual(["intent: WARNING: the main worktree's hooks lost intent (pre-commit replaced by lefthook, post-commit missing): its commits are not checked or recorded. Run `intent doctor --fix`."]);
    expect(intent(repo, ['status']).stdout).toContain("the main worktree's hooks lost intent");
    expect(JSON.parse(intent(repo, ['status', '--json']).stdout).hooks.map((p: { hook: string; kind: string }) => `${p.hook} ${p.kind}`)).toEqual(['pre-commit replaced', 'post-commit missing']);
    // An intent worktree's hooks say it on every commit too.
    const wt = JSON.parse(ok(repo, ['checkout', 'INT-001', '--json'])).path;
    writeFiles(wt, { 'src/auth/a.ts': 'export const a = 3;\n' });
    const c = run('git', ['commit', '-q', '-am', 'in scope'], wt);
    expect(c.status).toBe(0);
    expect(c.stderr).toContain("the main worktree's hooks lost intent");

    d = intent(repo, ['doctor', '--json']);
    expect(d.status).toBe(1);
    const failed = JSON.parse(d.stdout).checks.filter((x: { ok: boolean }) => !x.ok).map((x: { subject: string }) => x.subject);
    expect(failed).toEqual(['hook pre-commit', 'hook post-commit']);
    const fix = intent(repo, ['doctor', '--fix']);
    expect(fix.status, fix.stdout).toBe(0);
    expect(fix.stdout).toContain('everything in place');
    expect(intent(repo, ['verify']).stderr).not.toContain('WARNING');
    expect(readFileSync(join(repo, '.git', 'hooks', 'pre-commit'), 'utf8')).toContain('# LEFTHOOK');

    // core.hooksPath moved (husky's installer does that): one line too.
    git(repo, 'config', 'core.hooksPath', '.husky/_');
    expect(intent(repo, ['verify']).stderr).toContain(`core.hooksPath now points at ${join(repo, '.husky', '_')}`);
  });

  it('doctor checks that agent hook configs are committed and present in every intent worktree; uninstall --remove-data deletes the notes, ledger and state', () => {
    const repo = makeRepo(FILES);
    ok(repo, ['init', '--agent', 'claude-code']);
    let checks = JSON.parse(intent(repo, ['doctor', '--json']).stdout).checks;
    const agent = () => checks.find((c: { subject: string }) => c.subject === 'agent .claude/settings.json');
    expect(agent()).toMatchObject({ ok: false });
    expect(agent().message).toContain('not committed');
    git(repo, 'add', '.claude');
    git(repo, 'commit', '-q', '-m', 'agent config');
    const wt = JSON.parse(ok(repo, ['checkout', 'INT-001', '--json'])).path;
    checks = JSON.parse(intent(repo, ['doctor', '--json']).stdout).checks;
    expect(agent()).toMatchObject({ ok: true });
    rmSync(join(wt, '.claude', 'settings.json'));
    checks = JSON.parse(intent(repo, ['doctor', '--json']).stdout).checks;
    expect(agent().ok).toBe(false);
    expect(agent().message).toContain(wt);
    git(wt, 'checkout', '--', '.claude');

    writeFiles(wt, { 'src/auth/a.ts': 'export const a = 5;\n' });
    expect(run('git', ['commit', '-q', '-am', 'in scope'], wt).status).toBe(0);
    const kept = JSON.parse(ok(repo, ['uninstall', '--json']));
    expect(kept.data.kept).toEqual(expect.arrayContaining(['refs/notes/intents', '.orchestration/agent_trace.jsonl']));
    expect(kept.yours).toEqual(expect.arrayContaining(['.claude/settings.json', '.orchestration/AGENT.md']));
    expect(noteOf(wt)).not.toBeNull();
    ok(repo, ['init']);
    const removed = JSON.parse(ok(repo, ['uninstall', '--remove-data', '--json']));
    expect(removed.data.removed).toEqual(expect.arrayContaining(['refs/notes/intents', '.orchestration/agent_trace.jsonl', join(repo, '.git', 'intent')]));
    expect(noteOf(wt)).toBeNull();
    expect(existsSync(join(repo, '.git', 'intent'))).toBe(false);
    expect(existsSync(join(repo, '.orchestration', 'agent_trace.jsonl'))).toBe(false);
  });
});

describe('intent uninstall leaves nothing behind but what it lists', () => {
  it('removes the marks older versions\' pre-commit left and the empty worktrees folder, and lists what stays', () => {
    const repo = makeRepo(FILES);
    ok(repo, ['init']);
    const wt = JSON.parse(ok(repo, ['checkout', 'INT-001', '--json'])).path as string;
    writeFiles(wt, { 'src/auth/a.ts': 'export const a = 5;\n' });
    expect(run('git', ['commit', '-q', '-am', 'in scope'], wt).status).toBe(0);
    writeFiles(repo, { 'README.md': '# changed\n' });
    expect(run('git', ['commit', '-q', '-am', 'main'], repo).status).toBe(0);
    // This version writes none; an older one left one beside the index of each worktree it committed in.
    expect(existsSync(join(repo, '.git', 'intent-pre-commit-ran'))).toBe(false);
    const marks = [join(repo, '.git', 'intent-pre-commit-ran')];
    writeFileSync(marks[0], '123\n');
    const parent = join(wt, '..');
    expect(existsSync(parent)).toBe(true);
    git(repo, 'worktree', 'remove', wt);
    expect(readdirSync(parent)).toEqual([]);
    const before = readdirSync(join(repo, '.git')).sort();
    const r = JSON.parse(ok(repo, ['uninstall', '--json']));
    expect(r.removed).toEqual(expect.arrayContaining([...marks, parent]));
    expect(marks.some((m) => existsSync(m))).toBe(false);
    expect(existsSync(parent)).toBe(false);
    // What is left in the git folder: git's own, and the state folder uninstall lists as kept.
    const left = readdirSync(join(repo, '.git')).sort();
    expect(before.filter((f) => !left.includes(f))).toEqual(['intent-pre-commit-ran']);
    expect(left.filter((f) => f.startsWith('intent'))).toEqual(['intent']);
    expect(r.data.kept).toContain(join(repo, '.git', 'intent'));
    expect(readdirSync(join(repo, '.git', 'intent')).filter((f) => !['registry.json', 'ledger.lock', 'notes.lock'].includes(f))).toEqual([]);
  });

  it('names what would install intent again: a package.json script that runs intent init (the README\'s prepare)', () => {
    const repo = makeRepo({ ...FILES, 'package.json': JSON.stringify({ name: 'p', scripts: { prepare: 'lefthook install && intent init', test: 'vitest' } }) + '\n' });
    ok(repo, ['init']);
    const r = JSON.parse(ok(repo, ['uninstall', '--json']));
    expect(r.reinstalls).toEqual(['package.json: scripts.prepare']);
    ok(repo, ['init']);
    expect(ok(repo, ['uninstall'])).toContain('note     package.json: scripts.prepare runs intent init: the next npm install installs intent again; remove it there');
    const plain = makeRepo(FILES);
    ok(plain, ['init']);
    expect(JSON.parse(ok(plain, ['uninstall', '--json'])).reinstalls).toEqual([]);
  });
});
