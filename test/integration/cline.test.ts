import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { CLI, checkoutIntent, forFile, git, governedRepo, intent, noteOf, run, tempDir, writeFiles, type Run } from '../helpers.js';

// Cline's hook payloads, copied from Cline's source (test/fixtures/cline/README.md names the
// commits), fed to the hook files `intent init --agent cline` writes, run as Cline runs them: in
// the workspace root, payload on stdin, JSON on stdout.

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'cline');

/** A fixture with the worktree path filled in; `edit` changes it before it is sent. */
function fixture(name: string, wt: string, edit: (p: any) => void = () => {}): any {
  const p = JSON.parse(readFileSync(join(FIXTURES, `${name}.json`), 'utf8').replaceAll('__WORKSPACE__', wt));
  edit(p);
  return p;
}

/** Runs `.cline/hooks/<event>` of the worktree with the payload on stdin, in `cwd` (the workspace root). */
function hook(wt: string, event: 'PreToolUse' | 'PostToolUse', payload: unknown, cwd = wt, env: Record<string, string> = {}): Run {
  return run('sh', [join(wt, '.cline', 'hooks', event)], cwd, env, typeof payload === 'string' ? payload : JSON.stringify(payload));
}

function answer(r: Run): any {
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

/** Gives every payload of one test its own Cline task, so the handshake state of one test does not leak into another. */
function task(id: string): (p: any) => void {
  return (p) => {
    p.taskId = id;
    if (p.sessionContext) p.sessionContext.rootSessionId = id;
  };
}

let repo: string;
let wt: string;

beforeAll(() => forFile(() => {
  repo = governedRepo(
    [{ id: 'INT-001', name: 'JWT auth', scope: ['src/auth/**'] }, { id: 'INT-002', name: 'Docs', scope: ['docs/**'] }],
    { 'README.md': '# r\n', 'src/auth/a.ts': 'export const a = 1;\n', 'docs/x.md': '# x\n' },
  );
  // A hook file of the old location that is intent's is moved; someone else's stays.
  writeFiles(repo, { '.clinerules/hooks/TaskStart': '#!/bin/sh\necho theirs\n' });
  const r = intent(repo, ['init', '--agent', 'cline', '--json']);
  expect(r.status, r.stderr).toBe(0);
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'cline hooks');
  wt = checkoutIntent(repo, 'INT-001');
}));

describe('Cline hook registration', () => {
  it('writes executable hooks to .cline/hooks/, keeps others\' files in .clinerules/hooks/, and is idempotent', () => {
    for (const name of ['PreToolUse', 'PostToolUse']) {
      const file = join(repo, '.cline', 'hooks', name);
      expect(statSync(file).mode & 0o111).not.toBe(0);
      expect(readFileSync(file, 'utf8')).toContain('intent/bin/agent');
      expect(existsSync(join(repo, '.clinerules', 'hooks', name))).toBe(false);
    }
    expect(readFileSync(join(repo, '.clinerules', 'hooks', 'TaskStart'), 'utf8')).toContain('theirs');
    expect(JSON.parse(intent(repo, ['init', '--agent', 'cline', '--json']).stdout).agents[0].changed).toBe(false);
  });

  it('moves intent\'s own hooks out of the deprecated .clinerules/hooks/ (Cline would run both)', () => {
    const other = governedRepo([{ id: 'INT-001', name: 'x', scope: ['src/**'] }]);
    const legacy = '#!/bin/sh\na="$(git rev-parse --path-format=absolute --git-common-dir)/intent/bin/agent"; exec "$a" cline pre-tool-use\n';
    writeFiles(other, { '.clinerules/hooks/PreToolUse': legacy });
    expect(intent(other, ['init', '--agent', 'cline']).status).toBe(0);
    expect(existsSync(join(other, '.clinerules', 'hooks', 'PreToolUse'))).toBe(false);
    expect(existsSync(join(other, '.cline', 'hooks', 'PreToolUse'))).toBe(true);
  });
});

describe('Cline SDK payloads (run_commands, editor, read_files, apply_patch)', () => {
  it('refuses writes until the task selected the intent, then lets the model correct itself instead of cancelling the run', () => {
    const t = task('conv-handshake');
    const before = answer(hook(wt, 'PreToolUse', fixture('sdk-pre-editor-replace', wt, t)));
    expect(before.cancel).toBe(false);
    expect(before.overrideInput).toEqual({ path: '/dev/null', old_text: 'intent refused this edit', new_text: '' });
    expect(before.contextModification).toContain('You must cite a valid active Intent ID.');
    expect(before.contextModification).toContain('select_active_intent');

    // Calling select_active_intent is no selection until it ran; another intent's id selects nothing here.
    expect(answer(hook(wt, 'PreToolUse', fixture('sdk-pre-select-intent', wt, t)))).toEqual({ cancel: false });
    const other = answer(hook(wt, 'PostToolUse', fixture('sdk-post-select-intent', wt, (p) => {
      t(p);
      p.tool_result.input.intent_id = 'INT-002';
      p.postToolUse.parameters.intent_id = 'INT-002';
    })));
    expect(other.cancel).toBe(false);
    expect(other.contextModification).toContain('INT-002 is not this worktree\'s intent');
    expect(answer(hook(wt, 'PreToolUse', fixture('sdk-pre-editor-replace', wt, t))).contextModification).toContain('has not selected an intent');

    const selected = answer(hook(wt, 'PostToolUse', fixture('sdk-post-select-intent', wt, t)));
    expect(selected).toMatchObject({ cancel: false, contextModification: expect.stringContaining('works on INT-001 now') });
    // Allowed, and the hook itself wrote nothing (whatever an earlier test left in the file).
    const untouched = readFileSync(join(wt, 'src/auth/a.ts'), 'utf8');
    expect(answer(hook(wt, 'PreToolUse', fixture('sdk-pre-editor-replace', wt, t)))).toEqual({ cancel: false });
    expect(readFileSync(join(wt, 'src/auth/a.ts'), 'utf8')).toBe(untouched);
  });

  it('`intent context <ID>` through run_commands is a selection too', () => {
    const t = task('conv-context');
    const ctx = (command: string) => fixture('sdk-pre-run-commands', wt, (p) => {
      t(p);
      p.tool_call.input = { commands: [command] };
      p.preToolUse.parameters = { commands: JSON.stringify([command]) };
    });
    expect(answer(hook(wt, 'PreToolUse', ctx('echo x > src/auth/a.ts'))).contextModification).toContain('You must cite a valid active Intent ID.');
    expect(answer(hook(wt, 'PreToolUse', ctx('intent context INT-001')))).toEqual({ cancel: false });
    const ran = fixture('sdk-post-run-commands', wt, (p) => {
      t(p);
      p.tool_result.input = { commands: ['intent context INT-001'] };
      p.postToolUse.parameters = { commands: JSON.stringify(['intent context INT-001']) };
      p.tool_result.output = [{ query: 'intent context INT-001', result: '<intent_context id="INT-001">…</intent_context>', success: true }];
      p.postToolUse.result = JSON.stringify(p.tool_result.output);
    });
    expect(answer(hook(wt, 'PostToolUse', ran)).contextModification).toContain('works on INT-001 now');
    expect(answer(hook(wt, 'PreToolUse', ctx('echo x > src/auth/a.ts')))).toEqual({ cancel: false });
  });

  it('governs run_commands: each command classified, a refusal runs a command that only reports it', () => {
    const t = task('conv-shell');
    hook(wt, 'PostToolUse', fixture('sdk-post-select-intent', wt, t));
    expect(answer(hook(wt, 'PreToolUse', fixture('sdk-pre-run-commands', wt, t)))).toEqual({ cancel: false });
    const refused = answer(hook(wt, 'PreToolUse', fixture('sdk-pre-run-commands-deny', wt, t)));
    expect(refused.cancel).toBe(false);
    expect(refused.contextModification).toContain('git commit --no-verify skips the governance hooks');
    expect(refused.overrideInput.commands).toHaveLength(1);
    // What the SDK then runs in place of the commands: it prints the refusal and fails.
    const ran = run('sh', ['-c', refused.overrideInput.commands[0]], wt);
    expect(ran.status).toBe(1);
    expect(ran.stderr).toContain('--no-verify');
    expect(git(wt, 'log', '-1', '--format=%s')).not.toBe('x');
  });

  it('stages and credits the files run_commands changed in the scope (one worktree snapshot per call)', () => {
    const t = task('conv-shell-write');
    hook(wt, 'PostToolUse', fixture('sdk-post-select-intent', wt, t));
    const command = "printf 'export const z = 1;\\n' > src/auth/z.ts";
    const calls = (name: string) => fixture(name, wt, (p) => {
      t(p);
      const key = p.tool_call ? 'tool_call' : 'tool_result';
      p[key].id = 'toolu_shell_1';
      p[key].input = { commands: [command, 'git status --short'] };
      (p.preToolUse ?? p.postToolUse).parameters = { commands: JSON.stringify([command, 'git status --short']) };
    });
    expect(answer(hook(wt, 'PreToolUse', calls('sdk-pre-run-commands')))).toEqual({ cancel: false });
    expect(run('sh', ['-c', command], wt).status).toBe(0); // Cline's run_commands runs here
    const post = answer(hook(wt, 'PostToolUse', calls('sdk-post-run-commands')));
    expect(post.cancel).toBe(false);
    expect(post.contextModification).toContain('the command changed src/auth/z.ts (1 line credited to cline/unknown): staged');
    expect(git(wt, 'diff', '--cached', '--name-only')).toContain('src/auth/z.ts');
    git(wt, 'commit', '-q', '-m', 'shell write');
  });

  it('credits an editor write to the model without cancelling (the SDK sends no model), and a failed tool is not recorded', () => {
    const t = task('conv-editor');
    hook(wt, 'PostToolUse', fixture('sdk-post-select-intent', wt, t));
    expect(answer(hook(wt, 'PreToolUse', fixture('sdk-pre-editor-create', wt, t)))).toEqual({ cancel: false });
    writeFiles(wt, { 'src/auth/new.ts': 'export const n = 1;\n' }); // Cline's editor runs here
    const post = answer(hook(wt, 'PostToolUse', fixture('sdk-pre-editor-create', wt, (p) => {
      t(p);
      p.hookName = 'tool_result';
      p.tool_result = { ...p.tool_call, output: `File created successfully at: ${wt}/src/auth/new.ts`, durationMs: 4 };
      delete p.tool_call;
      p.postToolUse = { ...p.preToolUse, result: p.tool_result.output, success: true, executionTimeMs: 4 };
      delete p.preToolUse;
    })));
    expect(post.cancel).toBe(false);
    expect(post.contextModification).toContain('staged src/auth/new.ts under INT-001 (1 line credited to cline/unknown)');
    expect(git(wt, 'diff', '--cached', '--name-only')).toContain('src/auth/new.ts');

    const failed = answer(hook(wt, 'PostToolUse', fixture('sdk-post-editor-failed', wt, t)));
    expect(failed).toEqual({ cancel: false });

    git(wt, 'commit', '-q', '-m', 'cline sdk');
    const file = noteOf(wt)!.record.files.find((f: any) => f.path === 'src/auth/new.ts');
    expect(file.conversations[0]).toMatchObject({ contributor: { type: 'ai', model_id: 'cline/unknown' }, url: 'cline://task/conv-editor' });
  });

  it('refuses an out-of-scope editor call softly and leaves the file alone', () => {
    const t = task('conv-scope');
    hook(wt, 'PostToolUse', fixture('sdk-post-select-intent', wt, t));
    const out = answer(hook(wt, 'PreToolUse', fixture('sdk-pre-editor-out-of-scope', wt, t)));
    expect(out).toMatchObject({ cancel: false, overrideInput: { path: '/dev/null', old_text: 'intent refused this edit', new_text: '' } });
    expect(out.contextModification).toContain('Scope Violation: INT-001 is not authorized to edit docs/x.md');
    expect(readFileSync(join(wt, 'docs/x.md'), 'utf8')).toBe('# x\n');
  });

  it('reads apply_patch paths from the patch: all in scope passes, one outside refuses the patch; after it, every file is staged', () => {
    const t = task('conv-patch');
    hook(wt, 'PostToolUse', fixture('sdk-post-select-intent', wt, t));
    const out = answer(hook(wt, 'PreToolUse', fixture('sdk-pre-apply-patch-out-of-scope', wt, t)));
    expect(out).toMatchObject({ cancel: false, overrideInput: { input: 'intent refused this patch' } });
    expect(out.contextModification).toContain('docs/b.md');
    expect(answer(hook(wt, 'PreToolUse', fixture('sdk-pre-apply-patch', wt, t)))).toEqual({ cancel: false });
    writeFiles(wt, { 'src/auth/a.ts': 'export const a = 2;\n', 'src/auth/b.ts': 'export const b = 1;\n' });
    const post = answer(hook(wt, 'PostToolUse', fixture('sdk-post-apply-patch', wt, t)));
    expect(post.cancel).toBe(false);
    expect(post.contextModification).toContain('staged src/auth/a.ts');
    expect(post.contextModification).toContain('staged src/auth/b.ts');
    expect(git(wt, 'diff', '--cached', '--name-only').split('\n')).toEqual(expect.arrayContaining(['src/auth/a.ts', 'src/auth/b.ts']));
    expect(answer(hook(wt, 'PreToolUse', fixture('sdk-pre-apply-patch', wt, (p) => {
      t(p);
      p.tool_call.input.input = p.preToolUse.parameters.input = 'not a patch';
    }))).contextModification).toContain('names no file');
    git(wt, 'commit', '-q', '-m', 'patch');
  });

  it('records read_files for the stale check', () => {
    const t = task('conv-read');
    hook(wt, 'PostToolUse', fixture('sdk-post-select-intent', wt, t));
    expect(answer(hook(wt, 'PostToolUse', fixture('sdk-post-read-files', wt, t)))).toEqual({ cancel: false });
    writeFileSync(join(wt, 'src/auth/a.ts'), 'export const a = 2;\nexport const human = 1;\n');
    const stale = answer(hook(wt, 'PreToolUse', fixture('sdk-pre-editor-replace', wt, t)));
    expect(stale.contextModification).toMatch(/Stale File: src\/auth\/a\.ts changed since it was read/);
    git(wt, 'checkout', '--', 'src/auth/a.ts');
  });

  it('takes the repository from the hook\'s working directory, not workspaceRoots[0], which another window can repoint', () => {
    const t = task('conv-roots');
    const elsewhere = governedRepo([{ id: 'INT-009', name: 'other', scope: ['lib/**'] }]);
    const repoint = (p: any) => { t(p); p.workspaceRoots = [elsewhere]; p.workspaceInfo.rootPath = elsewhere; };
    hook(wt, 'PostToolUse', fixture('sdk-post-select-intent', wt, repoint));
    // A relative path: resolved in the hook's working directory, the worktree of INT-001.
    expect(answer(hook(wt, 'PreToolUse', fixture('sdk-pre-editor-insert', wt, repoint)))).toEqual({ cancel: false });
    // Started outside any repository, the absolute path names the repository.
    const payload = JSON.stringify(fixture('sdk-pre-editor-out-of-scope', wt, repoint));
    const outside = answer(run(process.execPath, [CLI, 'agent', 'cline', 'pre-tool-use'], '/', {}, payload));
    expect(outside.contextModification).toContain('Scope Violation: INT-001 is not authorized to edit docs/x.md');
  });

  it('fails closed on a payload it cannot read, and never cancels after the tool ran', () => {
    const pre = answer(hook(wt, 'PreToolUse', 'nope'));
    expect(pre).toMatchObject({ cancel: true, errorMessage: expect.stringContaining('not JSON') });
    const post = answer(hook(wt, 'PostToolUse', '{"hookName":"tool_result"}'));
    expect(post.cancel).toBe(false);
    expect(post.contextModification).toContain('no "postToolUse" object');
  });
});

const CAPTURED = join(FIXTURES, 'cli-3.0.65');
const CAPTURED_ROOT = readdirSync(join(CAPTURED, 'sessions'))[0];

/**
 * A payload the Cline CLI 3.0.65 sent (scripts/cline-capture.mjs), given its own root session
 * `root` (the subagent and the lead keep their own, different, taskIds).
 */
function captured(name: string, wt: string, root: string, edit: (p: any) => void = () => {}): any {
  const text = readFileSync(join(CAPTURED, `${name}.json`), 'utf8').replaceAll('__WORKSPACE__', wt).replaceAll(CAPTURED_ROOT, root);
  const p = JSON.parse(text);
  edit(p);
  return p;
}

/** A Cline home (CLINE_DIR) holding the captured session files under the root session `root`. */
function clineHome(root: string): string {
  const home = tempDir();
  const dir = join(home, 'data', 'sessions', root);
  mkdirSync(dir, { recursive: true });
  for (const f of readdirSync(join(CAPTURED, 'sessions', CAPTURED_ROOT))) {
    const text = readFileSync(join(CAPTURED, 'sessions', CAPTURED_ROOT, f), 'utf8').replaceAll(CAPTURED_ROOT, root).replaceAll('__CLINE_DIR__', home);
    writeFileSync(join(dir, f.replace(CAPTURED_ROOT, root)), text);
  }
  return home;
}

/** The captured `intent context INT-001` alone, run by the session `root`: its handshake. */
function select(root: string, env: Record<string, string>): void {
  const r = answer(hook(wt, 'PostToolUse', captured('post-run-commands', wt, root, (p) => {
    p.tool_result.id = `select-${root}`;
    p.tool_result.input.commands = ['intent context INT-001'];
    p.tool_result.output = [p.tool_result.output[0]];
  }), wt, env));
  expect(r.contextModification).toContain('works on INT-001 now');
}

describe('Cline CLI 3.0.65: payloads captured from a real run (test/fixtures/cline/cli-3.0.65)', () => {
  it('the captured payloads are what the fixes rely on: taskId differs from rootSessionId, no model, per-command success', () => {
    const pre = captured('pre-editor-create', '/w', 'r');
    expect(pre.taskId).not.toBe(pre.sessionContext.rootSessionId);
    expect(pre.model).toBeUndefined();
    const sub = captured('pre-subagent-editor-create', '/w', 'r');
    expect(sub.sessionContext.rootSessionId).toBe(pre.sessionContext.rootSessionId);
    expect(sub.taskId).not.toBe(pre.taskId);
    const post = captured('post-run-commands', '/w', 'r');
    expect(post.postToolUse.success).toBe(true);
    expect(post.tool_result.output.map((o: any) => o.success)).toEqual([true, false, true]);
    expect(JSON.parse(readFileSync(join(CAPTURED, 'run-result.json'), 'utf8')).model).toEqual({ id: 'mock-model', provider: 'openai-compatible' });
  });

  it('handshake and a write in one run_commands: not refused before, and after it the write is staged, credited to the session\'s model', () => {
    const root = 'root-one-call';
    const env = { CLINE_DIR: clineHome(root) };
    const pre = answer(hook(wt, 'PreToolUse', captured('pre-run-commands', wt, root), wt, env));
    expect(pre).toEqual({ cancel: false });
    // What Cline's run_commands ran (the `false` in between fails on its own).
    expect(run('sh', ['-c', "printf 'export const s = 1;\\n' > src/auth/shell.ts"], wt).status).toBe(0);
    const post = answer(hook(wt, 'PostToolUse', captured('post-run-commands', wt, root), wt, env));
    expect(post.cancel).toBe(false);
    expect(post.contextModification).toContain('works on INT-001 now');
    expect(post.contextModification).toContain('the command changed src/auth/shell.ts (1 line credited to openai-compatible/mock-model): staged');
    expect(git(wt, 'diff', '--cached', '--name-only')).toContain('src/auth/shell.ts');
    git(wt, 'commit', '-q', '-m', 'one call');
    const file = noteOf(wt)!.record.files.find((f: any) => f.path === 'src/auth/shell.ts');
    expect(file.conversations[0].contributor).toEqual({ type: 'ai', model_id: 'openai-compatible/mock-model' });
  });

  it('a context command that failed in that call selects nothing, though the call as a whole says success: the write is not staged', () => {
    const root = 'root-failed-context';
    const env = { CLINE_DIR: clineHome(root) };
    expect(answer(hook(wt, 'PreToolUse', captured('pre-run-commands', wt, root), wt, env))).toEqual({ cancel: false });
    writeFileSync(join(wt, 'src/auth/shell2.ts'), 'export const s2 = 1;\n');
    const post = answer(hook(wt, 'PostToolUse', captured('post-run-commands', wt, root, (p) => {
      const cmds = ['intent context INT-001', 'false', "printf 'export const s2 = 1;\\n' > src/auth/shell2.ts"];
      p.tool_result.input.commands = cmds;
      p.tool_result.output[0] = { query: cmds[0], result: 'sh: 1: intent: not found\n[Command exited with code 127]', error: 'Command exited with code 127', success: false };
      p.tool_result.output[0].result += '<intent_context id="INT-001">'; // even with the text, a failed command selects nothing
    }), wt, env));
    expect(post.postToolUse).toBeUndefined();
    expect(post.contextModification).not.toContain('works on INT-001 now');
    expect(post.contextModification).toContain('src/auth/shell2.ts, which this session may not write');
    expect(git(wt, 'diff', '--cached', '--name-only')).not.toContain('src/auth/shell2.ts');
    rmSync(join(wt, 'src/auth/shell2.ts'));
  });

  it('credits editor writes to the model of the message that made the call, a subagent\'s to the session\'s model, and shares the handshake by rootSessionId', () => {
    const root = 'root-editor';
    const env = { CLINE_DIR: clineHome(root) };
    // The lead selects; the subagent (own taskId, same rootSessionId) may then write too.
    select(root, env);
    const lead = (p: any) => { (p.tool_call ?? p.tool_result).input.path = 'src/auth/lead.ts'; };
    expect(answer(hook(wt, 'PreToolUse', captured('pre-editor-create', wt, root, lead), wt, env))).toEqual({ cancel: false });
    writeFileSync(join(wt, 'src/auth/lead.ts'), 'export const n = 1;\n');
    expect(answer(hook(wt, 'PostToolUse', captured('post-editor-create', wt, root, lead), wt, env)).contextModification)
      .toContain('staged src/auth/lead.ts under INT-001 (1 line credited to openai-compatible/mock-model)');
    expect(answer(hook(wt, 'PreToolUse', captured('pre-subagent-editor-create', wt, root), wt, env))).toEqual({ cancel: false });
    writeFileSync(join(wt, 'src/auth/sub.ts'), 'export const sub = 1;\n');
    expect(answer(hook(wt, 'PostToolUse', captured('post-subagent-editor-create', wt, root), wt, env)).contextModification)
      .toContain('(1 line credited to openai-compatible/mock-model)');
    // Without Cline's session files the credit falls back to cline/unknown, never to a guess.
    writeFileSync(join(wt, 'src/auth/bare.ts'), 'export const bare = 1;\n');
    const bare = answer(hook(wt, 'PostToolUse', captured('post-editor-create', wt, root, (p) => {
      p.tool_result.input.path = 'src/auth/bare.ts';
    }), wt, { CLINE_DIR: tempDir() }));
    expect(bare.contextModification).toContain('staged src/auth/bare.ts under INT-001 (1 line credited to cline/unknown)');
    git(wt, 'commit', '-q', '-m', 'editor');
    const files = noteOf(wt)!.record.files;
    for (const path of ['src/auth/lead.ts', 'src/auth/sub.ts']) {
      expect(files.find((f: any) => f.path === path).conversations[0].contributor.model_id, path).toBe('openai-compatible/mock-model');
    }
  });

  it('a failed editor call (success: false in its output) is not recorded', () => {
    const root = 'root-failed-editor';
    const env = { CLINE_DIR: clineHome(root) };
    expect(answer(hook(wt, 'PostToolUse', captured('post-editor-failed', wt, root), wt, env))).toEqual({ cancel: false });
    expect(git(wt, 'diff', '--cached', '--name-only')).toBe('');
  });

  it('the refusal input for editor is the one Cline 3.0.65 accepted and ran without writing (its schema passed)', () => {
    const root = 'root-neutral';
    const env = { CLINE_DIR: clineHome(root) };
    select(root, env);
    const out = answer(hook(wt, 'PreToolUse', captured('pre-editor-create', wt, root, (p) => {
      p.tool_call.input = { path: 'docs/x.md', new_text: '# y\n' };
    }), wt, env));
    expect(out.cancel).toBe(false);
    expect(out.contextModification).toContain('Scope Violation: INT-001 is not authorized to edit docs/x.md');
    const ran = captured('pre-editor-neutral', wt, root).tool_call.input;
    expect(out.overrideInput).toEqual(ran);
    const told = JSON.parse(readFileSync(join(CAPTURED, 'tool-results.json'), 'utf8'))['editor-neutral'];
    expect(told).toContain('No replacement performed: text not found in /dev/null.');
    expect(told).not.toMatch(/Too small|expected string/);
  });

  it('a write refused for want of the handshake says how to run intent when Cline\'s hub does not find it', () => {
    const root = 'root-hint';
    const out = answer(hook(wt, 'PreToolUse', captured('pre-editor-create', wt, root), wt, { CLINE_DIR: clineHome(root) }));
    expect(out.contextModification).toContain('You must cite a valid active Intent ID.');
    expect(out.contextModification).toContain("Cline's hub keeps the PATH it started with");
    expect(out.contextModification).toMatch(/dist\/bin\/intent\.js'? context <ID>/);
    // The model runs the hinted command: the shell policy judges it as `intent context`, and it selects.
    const command = /run (.+) context <ID> instead/.exec(out.contextModification)![1] + ' context INT-001';
    const withHint = (p: any) => {
      const key = p.tool_call ? 'tool_call' : 'tool_result';
      p[key].id = 'hint-call';
      p[key].input.commands = [command];
      if (p.tool_result) p.tool_result.output = [{ query: command, result: run('sh', ['-c', command], wt).stdout, success: true }];
    };
    expect(answer(hook(wt, 'PreToolUse', captured('pre-run-commands', wt, root, withHint), wt, { CLINE_DIR: clineHome(root) }))).toEqual({ cancel: false });
    const post = answer(hook(wt, 'PostToolUse', captured('post-run-commands', wt, root, withHint), wt, { CLINE_DIR: clineHome(root) }));
    expect(post.contextModification).toContain('works on INT-001 now');
    // Another script run by node is still a program we cannot review.
    const other = answer(hook(wt, 'PreToolUse', captured('pre-run-commands', wt, root, (p) => {
      p.tool_call.input.commands = [command.replace('intent.js', 'other.js')];
    }), wt, { CLINE_DIR: clineHome(root) }));
    expect(other.contextModification).toContain('node runs code we cannot review');
  });
});

describe('Cline VS Code adapter and older payloads', () => {
  it('VS Code on the SDK: cancels a refusal (its only block), and a model of "unknown" does not cancel after a write', () => {
    const t = task('conv-vscode');
    hook(wt, 'PostToolUse', fixture('sdk-post-select-intent', wt, t));
    const out = answer(hook(wt, 'PreToolUse', fixture('vscode-pre-editor-out-of-scope', wt, t)));
    expect(out.cancel).toBe(true);
    expect(out.errorMessage).toContain('Scope Violation: INT-001 is not authorized to edit docs/x.md');
    expect(answer(hook(wt, 'PreToolUse', fixture('vscode-pre-editor', wt, t)))).toEqual({ cancel: false });
    writeFileSync(join(wt, 'src/auth/a.ts'), 'export const a = 20;\n');
    const post = answer(hook(wt, 'PostToolUse', fixture('vscode-post-editor', wt, t)));
    expect(post.cancel).toBe(false);
    expect(post.contextModification).toContain('credited to cline/unknown');
    expect(answer(hook(wt, 'PreToolUse', fixture('vscode-pre-run-commands', wt, t))).cancel).toBe(true);
    git(wt, 'commit', '-q', '-m', 'vscode');
  });

  it('the older tools (write_to_file, replace_in_file, execute_command, read_file, use_mcp_tool), with the model they send', () => {
    const t = task('legacy-task');
    expect(answer(hook(wt, 'PreToolUse', fixture('legacy-pre-write-to-file', wt, t))).cancel).toBe(true);
    expect(answer(hook(wt, 'PreToolUse', fixture('legacy-pre-use-mcp-tool', wt, t)))).toEqual({ cancel: false });
    expect(answer(hook(wt, 'PostToolUse', fixture('legacy-post-use-mcp-tool', wt, t))).contextModification).toContain('works on INT-001 now');
    expect(answer(hook(wt, 'PreToolUse', fixture('legacy-pre-write-to-file', wt, t)))).toEqual({ cancel: false });
    writeFileSync(join(wt, 'src/auth/a.ts'), 'export const a = 3;\n');
    const post = answer(hook(wt, 'PostToolUse', fixture('legacy-post-write-to-file', wt, t)));
    expect(post.contextModification).toContain('credited to anthropic/claude-sonnet-4-5-20250929');
    const denied = answer(hook(wt, 'PreToolUse', fixture('legacy-pre-replace-in-file-out-of-scope', wt, t)));
    expect(denied).toMatchObject({ cancel: true, errorMessage: expect.stringContaining('docs/x.md') });
    expect(answer(hook(wt, 'PreToolUse', fixture('legacy-pre-execute-command', wt, t)))).toMatchObject({ cancel: true, errorMessage: expect.stringContaining('git push --force') });
    expect(answer(hook(wt, 'PostToolUse', fixture('legacy-post-read-file', wt, t)))).toEqual({ cancel: false });
    git(wt, 'commit', '-q', '-m', 'legacy');
    const ai = noteOf(wt)!.record.files.find((f: any) => f.path === 'src/auth/a.ts').conversations[0];
    expect(ai).toMatchObject({ contributor: { type: 'ai', model_id: 'anthropic/claude-sonnet-4-5-20250929' }, url: 'cline://task/legacy-task' });
  });

  it('every fixture names the commit it was copied from', () => {
    const readme = readFileSync(join(FIXTURES, 'README.md'), 'utf8');
    expect(readme).toMatch(/21cb8d2525bcedf1f4b6890b27a74a14fe7451e4/);
    expect(readme).toMatch(/864419d8b0c2467ec37ccb8837ddd08f96ea31f9/);
    for (const f of readdirSync(FIXTURES).filter((n) => n.endsWith('.json'))) {
      const p = JSON.parse(readFileSync(join(FIXTURES, f), 'utf8'));
      expect(f.startsWith('sdk-') ? p.hookName : p.hookName, f).toMatch(f.startsWith('sdk-') ? /^tool_(call|result)$/ : /^(Pre|Post)ToolUse$/);
    }
  });
});
