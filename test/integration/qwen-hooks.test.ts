// Qwen Code's hooks fed the payloads the real CLI sent (test/fixtures/qwen/, captured by
// test/fixtures/capture-qwen.mjs from Qwen Code 0.24.4; paths replaced by {{ROOT}}, {{HOME}} and
// {{PROJECT}}), through the commands `intent init --agent qwen` registers in .qwen/settings.json.
// What the real CLI does end to end is in test/e2e/qwen.test.ts; here are the edges the scripted
// session does not reach, and the payloads that must be refused (fail closed).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { forFile, git, governedRepo, intent, run, tempDir, type Run } from '../helpers.js';
import { context, denied, fixturePayload, fixtureSession, hookAnswer, settingsHook, type FixtureSession, type Payload } from './claude-shaped-fixtures.js';
const MODEL = 'qwen/qwen3-coder-plus';

describe('Qwen Code hooks with the payloads of Qwen Code 0.24.4', () => {
  let s: FixtureSession;
  let repo: string;
  let wt: string;
  let home: string;
  let n = 0;

  beforeAll(() => forFile(() => {
    // Qwen's transcript (its assistant entries carry the model) where the payloads say it is.
    s = fixtureSession('qwen', 'Qwen', 'write_file.PostToolUse');
    ({ repo, wt, home } = s);
  }));

  const payload = (name: string, session: string, change?: (p: Payload) => void) => fixturePayload(s, name, session, change);
  /** Runs the command .qwen/settings.json registers for the event and tool, with `stdin`. */
  const hook = (event: string, tool: string, stdin: string, env: Record<string, string | undefined> = {}): Run => settingsHook(s, '.qwen/settings.json', event, tool, stdin, { env });
  const answer = (p: Payload, env: Record<string, string | undefined> = {}): any => hookAnswer(hook(p.hook_event_name, p.tool_name, JSON.stringify(p), env));

  /** The session ran `intent context INT-001` in its shell (the real payload, with intent's real output). */
  function handshake(session: string): void {
    const ctx = intent(wt, ['context', 'INT-001']).stdout;
    const a = answer(payload('run_shell_command.PostToolUse', session, (p) => {
      p.tool_response = { llmContent: `Command: intent context INT-001\nDirectory: (root)\nOutput: ${ctx}\nExit Code: 0`, returnDisplay: ctx };
    }));
    expect(context(a)).toContain('this session works on INT-001 now');
  }

  it('registers the hooks on the tools Qwen Code really names, in the file Qwen would write', () => {
    const settings = JSON.parse(readFileSync(join(wt, '.qwen', 'settings.json'), 'utf8'));
    expect(settings.$version).toBe(4);
    const h = settings.hooks;
    const matches = (event: string, tool: string) => h[event].some((e: any) => new RegExp(e.matcher).test(tool));
    for (const t of ['write_file', 'edit', 'replace', 'notebook_edit', 'run_shell_command', 'exec']) expect(matches('PreToolUse', t), t).toBe(true);
    for (const t of ['read_file', 'write', 'Write', 'glob', 'mcp__intent__select_active_intent']) expect(matches('PreToolUse', t), t).toBe(false);
    for (const t of ['write_file', 'edit', 'run_shell_command', 'read_file', 'mcp__intent__select_active_intent']) expect(matches('PostToolUse', t), t).toBe(true);
    for (const t of ['write_file', 'edit', 'run_shell_command']) expect(matches('PostToolUseFailure', t), t).toBe(true);
    expect(h.PreToolUse[0].hooks[0]).toMatchObject({ type: 'command', timeout: 30 });
    expect(h.PreToolUse[0].hooks[0].command).toContain('intent/bin/agent');
  });

  it('init is idempotent, keeps the user\'s own settings, and leaves "$version" to Qwen when other settings are there', () => {
    const again = intent(repo, ['init', '--agent', 'qwen', '--json']);
    expect(again.status, again.stderr).toBe(0);
    expect(git(repo, 'status', '--porcelain', '--', '.qwen')).toBe('');
    const other = governedRepo([{ id: 'INT-001', name: 'Q', scope: ['src/**'] }], {
      '.qwen/settings.json': JSON.stringify({ model: { name: 'qwen3-coder-plus' }, hooks: { Stop: [{ hooks: [{ type: 'command', command: 'echo mine' }] }] } }),
    });
    expect(intent(other, ['init', '--agent', 'qwen']).status).toBe(0);
    const s = JSON.parse(readFileSync(join(other, '.qwen', 'settings.json'), 'utf8'));
    expect(s.model).toEqual({ name: 'qwen3-coder-plus' });
    expect(s.hooks.Stop[0].hooks[0].command).toBe('echo mine');
    expect(s.hooks.PreToolUse).toHaveLength(1);
    expect('$version' in s).toBe(false);
  });

  it('refuses a write before the handshake, allows it after, and credits the model from the transcript', () => {
    const session = `q-${++n}`;
    const pre = payload('write_file.PreToolUse', session);
    const reason = denied(answer(pre));
    expect(reason).toContain('intent: You must cite a valid active Intent ID.');
    expect(reason).toContain('intent context INT-001');
    handshake(session);
    expect(answer(pre)).toBeNull();
    writeFileSync(join(wt, 'src', 'new.txt'), 'line1\nline2\n');
    const post = answer(payload('write_file.PostToolUse', session));
    expect(post).toEqual({ hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: `intent: staged src/new.txt under INT-001 (2 lines credited to ${MODEL}).` } });
    expect(git(wt, 'diff', '--cached', '--name-only')).toContain('src/new.txt');
  });

  it('credits the model Qwen puts in the hook\'s environment (QWEN_CODE_MODEL) when the transcript has none, and refuses to stage with no model at all', () => {
    const session = `q-${++n}`;
    handshake(session);
    const edit = (file: string) => (p: Payload) => { p.transcript_path = join(home, 'missing.jsonl'); p.tool_input.file_path = join(wt, 'src', file); };
    expect(answer(payload('write_file.PreToolUse', session, edit('env.txt')))).toBeNull();
    writeFileSync(join(wt, 'src', 'env.txt'), 'e\n');
    expect(context(answer(payload('write_file.PostToolUse', session, edit('env.txt')), { QWEN_CODE_MODEL: 'gpt-4.1' })))
      .toBe('intent: staged src/env.txt under INT-001 (1 line credited to openai/gpt-4.1).');
    expect(answer(payload('write_file.PreToolUse', session, edit('orphan.txt')))).toBeNull();
    writeFileSync(join(wt, 'src', 'orphan.txt'), 'o\n');
    const a = context(answer(payload('write_file.PostToolUse', session, edit('orphan.txt')), { QWEN_CODE_MODEL: undefined }));
    expect(a).toContain('Qwen Code sent no model');
    expect(git(wt, 'diff', '--cached', '--name-only')).not.toContain('src/orphan.txt');
  });

  it('refuses an out-of-scope write with the Scope Violation message; an edit Qwen failed stages nothing', () => {
    const session = `q-${++n}`;
    handshake(session);
    const out = answer(payload('edit.PreToolUse', session, (p) => { p.tool_input.file_path = join(wt, 'docs', 'x.md'); }));
    expect(out.hookSpecificOutput).toMatchObject({ hookEventName: 'PreToolUse', permissionDecision: 'deny' });
    expect(denied(out)).toContain('intent: Scope Violation: INT-001 is not authorized to edit docs/x.md');
    // The real failure: an edit of a file the session had not read (Qwen refuses it itself).
    const unread = join(wt, 'src', 'unread.txt');
    expect(answer(payload('edit.PreToolUse.2', session))).toBeNull();
    expect(answer(payload('edit.PostToolUseFailure', session))).toBeNull();
    expect(existsSync(unread)).toBe(false);
    expect(git(wt, 'diff', '--cached', '--name-only')).not.toContain('src/unread.txt');
  });

  it('stages what a shell command wrote in its directory, and what a failed command wrote (PostToolUseFailure)', () => {
    const session = `q-${++n}`;
    handshake(session);
    expect(answer(payload('run_shell_command.PreToolUse.2', session))).toBeNull();
    writeFileSync(join(wt, 'src', 'a.txt'), 'one\nx\n');
    expect(context(answer(payload('run_shell_command.PostToolUse.2', session)))).toBe(`intent: the command changed src/a.txt (1 line credited to ${MODEL}): staged.`);
    expect(answer(payload('run_shell_command.PreToolUse.3', session))).toBeNull();
    writeFileSync(join(wt, 'src', 'b.txt'), 'y\n');
    const failed = answer(payload('run_shell_command.PostToolUseFailure', session));
    expect(failed).toEqual({ hookSpecificOutput: { hookEventName: 'PostToolUseFailure', additionalContext: `intent: the command changed src/b.txt (1 line credited to ${MODEL}): staged.` } });
  });

  it('refuses a shell command whose directory is outside the worktree, and code mode\'s exec', () => {
    const session = `q-${++n}`;
    handshake(session);
    const outside = hook('PreToolUse', 'run_shell_command', JSON.stringify(payload('run_shell_command.PreToolUse.2', session, (p) => { p.tool_input.directory = repo; })));
    expect(outside.status).toBe(2);
    expect(outside.stderr).toContain(`the command would run in ${repo}, outside this session's worktree`);
    const exec = hook('PreToolUse', 'exec', JSON.stringify(payload('run_shell_command.PreToolUse', session, (p) => { p.tool_name = 'exec'; p.tool_input = { code: 'await write_file({})' }; })));
    expect(exec.status).toBe(2);
    expect(exec.stderr).toContain('code-mode tool "exec" is not governed');
  });

  it('the handshake through the MCP tool as Qwen names it (mcp__intent__select_active_intent)', () => {
    const session = `q-${++n}`;
    const a = answer(payload('write_file.PostToolUse', session, (p) => {
      p.tool_name = 'mcp__intent__select_active_intent';
      p.tool_input = { intent_id: 'INT-001' };
      p.tool_response = { llmContent: '<intent_context id="INT-001">…</intent_context>', returnDisplay: '' };
    }));
    expect(context(a)).toContain('this session works on INT-001 now');
    expect(answer(payload('write_file.PreToolUse', session))).toBeNull();
  });

  it('a stale write is refused: the file changed since the session read it', () => {
    const session = `q-${++n}`;
    handshake(session);
    writeFileSync(join(wt, 'src', 'stale.txt'), 'v1\n');
    const file = (p: Payload) => { p.tool_input.file_path = join(wt, 'src', 'stale.txt'); };
    expect(answer(payload('read_file.PostToolUse', session, file))).toBeNull();
    writeFileSync(join(wt, 'src', 'stale.txt'), 'v2 by someone else\n');
    expect(denied(answer(payload('edit.PreToolUse', session, file)))).toContain('Stale File: src/stale.txt changed since it was read');
  });

  it('intent doctor: no trust needed while Qwen\'s folder trust is off; when on, the worktrees\' folder must be trusted', () => {
    const check = (h: string) => JSON.parse(intent(repo, ['doctor', '--json'], { HOME: h, QWEN_HOME: undefined }).stdout).checks.find((c: any) => c.subject === 'qwen trust');
    const h = tempDir('intent-qwen-trust-');
    expect(check(h)).toMatchObject({ ok: true });
    mkdirSync(join(h, '.qwen'));
    writeFileSync(join(h, '.qwen', 'settings.json'), JSON.stringify({ security: { folderTrust: { enabled: true } } }));
    expect(check(h)).toMatchObject({ ok: false, message: expect.stringContaining('TRUST_FOLDER') });
    writeFileSync(join(h, '.qwen', 'trustedFolders.json'), JSON.stringify({ [dirname(wt)]: 'TRUST_FOLDER', [wt]: 'DO_NOT_TRUST' }));
    expect(check(h)).toMatchObject({ ok: false, message: expect.stringContaining(wt) });
    writeFileSync(join(h, '.qwen', 'trustedFolders.json'), JSON.stringify({ [dirname(wt)]: 'TRUST_FOLDER' }));
    expect(check(h)).toMatchObject({ ok: true });
  });

  describe('fails closed', () => {
    const refusedBefore = (stdin: string) => {
      const r = hook('PreToolUse', 'write_file', stdin);
      expect(r.status, r.stdout).toBe(2);
      expect(r.stderr).toMatch(/^intent: /);
      return r.stderr;
    };

    it('refuses a payload that is not JSON, or not an object', () => {
      expect(refusedBefore('{"tool_name": "write_file",')).toContain('the hook payload is not JSON');
      expect(refusedBefore('[]')).toContain('must be a JSON object');
      expect(refusedBefore('')).toContain('not JSON');
    });

    it('refuses a payload with a missing field', () => {
      for (const field of ['tool_name', 'tool_input', 'session_id', 'cwd']) {
        const p = payload('write_file.PreToolUse', `q-${++n}`);
        delete p[field];
        expect(refusedBefore(JSON.stringify(p)), field).toContain(`Qwen Code payload has no "${field}"`);
      }
    });

    it('refuses another client\'s payload (Gemini CLI\'s BeforeTool with no tool_input object, Copilot\'s camelCase)', () => {
      expect(refusedBefore(JSON.stringify({ session_id: 's', cwd: wt, hook_event_name: 'BeforeTool', tool_name: 'write_file', tool_args: { file_path: 'src/x' } }))).toContain('"tool_input"');
      expect(refusedBefore(JSON.stringify({ sessionId: 's', cwd: wt, toolName: 'create', toolArgs: { path: 'src/x' } }))).toContain('"tool_name"');
    });

    it('after the tool, a broken payload is reported to the model (nothing left to block)', () => {
      const r = hook('PostToolUse', 'write_file', 'not json');
      expect(r.status).toBe(0);
      expect(JSON.parse(r.stdout).hookSpecificOutput.additionalContext).toContain('intent: the hook payload is not JSON');
    });

    it('refuses when the runner is missing from the clone (exit 2: Qwen blocks on it)', () => {
      const bare = tempDir('intent-qwen-bare-');
      git(bare, 'init', '-q');
      const command = JSON.parse(readFileSync(join(wt, '.qwen', 'settings.json'), 'utf8')).hooks.PreToolUse[0].hooks[0].command;
      const r = run('sh', ['-c', command], bare, {}, JSON.stringify(payload('write_file.PreToolUse', 'x')));
      expect(r.status).toBe(2);
      expect(r.stderr).toContain('this clone has no intent hooks');
    });
  });
});
