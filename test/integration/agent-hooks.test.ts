import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { CLI, checkoutIntent, git, governedRepo, intent, noteOf, run, type Run } from '../helpers.js';

const SESSION = '5d1c2a3e-0f4b-4e7a-9a51-2b8c0d7e6f10';

function setup(agent: string): { repo: string; wt: string } {
  const repo = governedRepo(
    [{ id: 'INT-001', name: 'JWT auth', scope: ['src/auth/**'] }],
    { 'README.md': '# r\n', 'src/auth/login.ts': 'export const a = 1;\n', 'docs/x.md': 'x\n' },
  );
  const r = intent(repo, ['init', '--agent', agent, '--json']);
  expect(r.status, r.stderr).toBe(0);
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', `${agent} hooks`);
  return { repo, wt: checkoutIntent(repo, 'INT-001') };
}

/** A Claude Code transcript whose last assistant entry names the model, as Claude Code writes it. */
function transcript(dir: string): string {
  const file = join(dir, '..', 'transcript.jsonl');
  const lines = [
    { type: 'user', sessionId: SESSION, message: { role: 'user', content: 'add a constant' } },
    { type: 'assistant', sessionId: SESSION, message: { id: 'msg_01', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5-20250929', content: [{ type: 'text', text: 'ok' }] } },
  ];
  writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  return file;
}

/** Claude Code's PreToolUse/PostToolUse payload for a tool call. */
function claudePayload(wt: string, event: 'PreToolUse' | 'PostToolUse', tool: string, input: Record<string, unknown>, response?: unknown) {
  return {
    session_id: SESSION,
    transcript_path: transcript(wt),
    cwd: wt,
    permission_mode: 'default',
    hook_event_name: event,
    tool_name: tool,
    tool_input: input,
    tool_use_id: 'toolu_01ABC',
    ...(event === 'PostToolUse' ? { tool_response: response ?? { filePath: input.file_path, success: true } } : {}),
  };
}

/** Runs the hook command exactly as `.claude/settings.json` registers it, in the worktree. */
function claudeHook(wt: string, event: 'PreToolUse' | 'PostToolUse', payload: unknown): Run {
  const settings = JSON.parse(readFileSync(join(wt, '.claude', 'settings.json'), 'utf8'));
  const command = settings.hooks[event].find((e: any) => JSON.stringify(e).includes('intent/bin/agent')).hooks[0].command;
  return run('sh', ['-c', command], wt, {}, typeof payload === 'string' ? payload : JSON.stringify(payload));
}

function decision(r: Run): any {
  expect(r.status, r.stderr).toBe(0);
  return r.stdout.trim() ? JSON.parse(r.stdout) : null;
}

describe('Claude Code hook adapter', () => {
  it('installs idempotently, keeping other hooks and settings', () => {
    const { repo } = setup('claude-code');
    const file = join(repo, '.claude', 'settings.json');
    const s = JSON.parse(readFileSync(file, 'utf8'));
    s.permissions = { allow: ['Bash(npm test)'] };
    s.hooks.PreToolUse.unshift({ matcher: 'Bash', hooks: [{ type: 'command', command: 'echo theirs' }] });
    writeFileSync(file, JSON.stringify(s));
    expect(intent(repo, ['init', '--agent', 'claude-code']).status).toBe(0);
    const again = JSON.parse(readFileSync(file, 'utf8'));
    expect(again.permissions).toEqual({ allow: ['Bash(npm test)'] });
    expect(again.hooks.PreToolUse.map((e: any) => e.hooks[0].command.includes('intent/bin/agent'))).toEqual([false, true]);
    expect(again.hooks.PostToolUse).toHaveLength(1);
    expect(again.hooks.PreToolUse[1].matcher).toBe('Write|Edit|NotebookEdit|Bash');
    expect(again.hooks.PostToolUseFailure[0].matcher).toBe('Write|Edit|NotebookEdit|Bash');
    const before = readFileSync(file, 'utf8');
    expect(JSON.parse(intent(repo, ['init', '--agent', 'claude-code', '--json']).stdout).agents[0].changed).toBe(false);
    expect(readFileSync(file, 'utf8')).toBe(before);
  });

  it('answers a real-shaped session: allow and credit in scope, deny out of scope and stale, classify Bash', () => {
    const { wt } = setup('claude-code');
    const login = join(wt, 'src/auth/login.ts');
    expect(decision(claudeHook(wt, 'PostToolUse', claudePayload(wt, 'PostToolUse', 'Read', { file_path: login }, { type: 'text' })))).toBeNull();
    // The handshake: the session ran `intent context INT-001` and got the block back.
    const selected = decision(claudeHook(wt, 'PostToolUse', claudePayload(wt, 'PostToolUse', 'Bash', { command: 'intent context INT-001' }, { stdout: '<intent_context id="INT-001">…</intent_context>\n', stderr: '', interrupted: false })));
    expect(selected.hookSpecificOutput.additionalContext).toContain('this session works on INT-001 now');

    const write = { file_path: login, content: 'export const a = 1;\nexport const fromModel = 2;\n' };
    expect(decision(claudeHook(wt, 'PreToolUse', claudePayload(wt, 'PreToolUse', 'Write', write)))).toBeNull();
    writeFileSync(login, write.content); // Claude Code's Write tool runs here
    const post = decision(claudeHook(wt, 'PostToolUse', claudePayload(wt, 'PostToolUse', 'Write', write)));
    expect(post.hookSpecificOutput.additionalContext).toContain('staged src/auth/login.ts under INT-001 (1 line credited to anthropic/claude-sonnet-4-5-20250929)');
    expect(git(wt, 'diff', '--cached', '--name-only').trim()).toBe('src/auth/login.ts');

    const out = decision(claudeHook(wt, 'PreToolUse', claudePayload(wt, 'PreToolUse', 'Edit', { file_path: join(wt, 'docs/x.md'), old_string: 'x', new_string: 'y', replace_all: false })));
    expect(out.hookSpecificOutput).toMatchObject({ hookEventName: 'PreToolUse', permissionDecision: 'deny' });
    expect(out.hookSpecificOutput.permissionDecisionReason).toContain('Scope Violation: INT-001 is not authorized to edit docs/x.md');

    // A human changes the file after the model last saw it: the model's next edit is stale.
    writeFileSync(login, 'export const a = 1;\nexport const fromModel = 2;\nexport const human = 3;\n');
    const stale = decision(claudeHook(wt, 'PreToolUse', claudePayload(wt, 'PreToolUse', 'Edit', { file_path: login, old_string: 'a = 1', new_string: 'a = 10', replace_all: false })));
    expect(stale.hookSpecificOutput.permissionDecision).toBe('deny');
    expect(stale.hookSpecificOutput.permissionDecisionReason).toMatch(/Stale File: src\/auth\/login\.ts changed since it was read \(expected sha256:[0-9a-f]{64}, found sha256:[0-9a-f]{64}\)/);

    const bash = (command: string) => decision(claudeHook(wt, 'PreToolUse', claudePayload(wt, 'PreToolUse', 'Bash', { command, description: 'x', timeout: 120000 })));
    expect(bash('git status')).toBeNull();
    expect(bash('git commit --no-verify -m sneak').hookSpecificOutput.permissionDecision).toBe('deny');
    expect(bash('rm -rf src/auth').hookSpecificOutput.permissionDecision).toBe('ask');

    git(wt, 'commit', '-q', '-am', 'model and human');
    const file = noteOf(wt)!.record.files.find((f: any) => f.path === 'src/auth/login.ts');
    const ai = file.conversations.find((c: any) => c.contributor.type === 'ai');
    expect(ai.contributor.model_id).toBe('anthropic/claude-sonnet-4-5-20250929');
    expect(ai.url).toBe(`claude-code://session/${SESSION}`);
    expect(ai.ranges.map((r: any) => [r.start_line, r.end_line])).toEqual([[2, 2]]);
    const human = file.conversations.find((c: any) => c.contributor.type === 'human');
    expect(human.ranges.map((r: any) => [r.start_line, r.end_line])).toEqual([[3, 3]]);
  });

  it('fails closed on broken input, with a message and never a stack trace', () => {
    const { wt } = setup('claude-code');
    const cases: [string, string | Buffer, RegExp][] = [
      ['not JSON', '{"tool_name": "Write", ', /not JSON/],
      ['a JSON array', '[]', /must be a JSON object/],
      ['no tool_input', JSON.stringify({ session_id: 's', cwd: wt, tool_name: 'Write' }), /no "tool_input"/],
      ['no cwd', JSON.stringify({ session_id: 's', tool_name: 'Write', tool_input: { file_path: 'x' } }), /no "cwd"/],
      ['non-UTF-8', Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), /not valid UTF-8/],
      ['over 10 MB', JSON.stringify(claudePayload(wt, 'PreToolUse', 'Write', { file_path: 'src/auth/a.ts', content: 'x'.repeat(10.5 * 1024 * 1024) })), /larger than 10 MB/],
    ];
    for (const [name, input, message] of cases) {
      const res = runRaw(wt, ['agent', 'claude-code', 'pre-tool-use'], input);
      expect(res.status, name).toBe(2);
      expect(res.stderr, name).toMatch(message);
      expect(res.stderr, name).not.toMatch(/\n\s+at /);
    }
    const noPath = runRaw(wt, ['agent', 'claude-code', 'pre-tool-use'], JSON.stringify(claudePayload(wt, 'PreToolUse', 'Write', { content: 'x' })));
    expect(JSON.parse(noPath.stdout).hookSpecificOutput).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: expect.stringMatching(/names no file path/) });
    const unknownEvent = runRaw(wt, ['agent', 'claude-code', 'stop'], '{}');
    expect(unknownEvent.status).toBe(2);
    expect(unknownEvent.stderr).toContain('no hook event "stop"');
    // An unknown tool that names a file is checked like a write.
    const odd = runRaw(wt, ['agent', 'claude-code', 'pre-tool-use'], JSON.stringify(claudePayload(wt, 'PreToolUse', 'FancyWrite', { file_path: join(wt, 'docs/x.md') })));
    expect(JSON.parse(odd.stdout).hookSpecificOutput.permissionDecision).toBe('deny');
    expect(readFileSync(join(wt, 'docs/x.md'), 'utf8')).toBe('x\n');
  });

  it('blocks when the clone has no runner (intent init not run there)', () => {
    const { repo, wt } = setup('claude-code');
    chmodSync(join(repo, '.git', 'intent', 'bin', 'agent'), 0o644);
    const r = claudeHook(wt, 'PreToolUse', claudePayload(wt, 'PreToolUse', 'Write', { file_path: join(wt, 'src/auth/a.ts'), content: 'x' }));
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('run intent init');
  });
});

/** Runs `intent <args>` with raw bytes on stdin. */
function runRaw(cwd: string, args: string[], input: string | Buffer): Run {
  const res = spawnSync(process.execPath, [CLI, ...args], { cwd, input, encoding: 'utf8' });
  return { status: res.status ?? -1, stdout: res.stdout, stderr: res.stderr };
}

// Cursor and Cline: test/integration/cursor.test.ts and cline.test.ts.
