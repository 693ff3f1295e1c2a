import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkoutIntent, forFile, git, governedRepo, intent, noteOf, run, writeFiles, type Run } from '../helpers.js';

// Cursor's hook payloads (hooks.json events: preToolUse, beforeShellExecution, beforeReadFile,
// beforeMCPExecution, afterFileEdit), run through the command hooks.json registers, in the worktree.

let repo: string;
let wt: string;

beforeAll(() => forFile(() => {
  repo = governedRepo(
    [{ id: 'INT-001', name: 'JWT auth', scope: ['src/auth/**'] }],
    { 'README.md': '# r\n', 'src/auth/login.ts': 'export const a = 1;\n', 'docs/x.md': 'x\n' },
  );
  expect(intent(repo, ['init', '--agent', 'cursor']).status).toBe(0);
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'cursor hooks');
  wt = checkoutIntent(repo, 'INT-001');
}));

const EVENTS: Record<string, string> = {
  'pre-tool-use': 'preToolUse',
  'before-shell-execution': 'beforeShellExecution',
  'before-read-file': 'beforeReadFile',
  'before-mcp-execution': 'beforeMCPExecution',
  'after-file-edit': 'afterFileEdit',
};

/** Runs the command hooks.json registers for the event, with Cursor's common fields. */
function cursor(conversation: string, event: keyof typeof EVENTS, body: object): Run {
  const hooks = JSON.parse(readFileSync(join(wt, '.cursor', 'hooks.json'), 'utf8'));
  const command = hooks.hooks[EVENTS[event]].find((e: any) => e.command.includes('intent/bin/agent')).command;
  const payload = {
    conversation_id: conversation, generation_id: 'gen-1', model: 'gpt-5', hook_event_name: EVENTS[event],
    workspace_roots: [wt], cursor_version: '2.0.77', user_email: 'dev@example.com', ...body,
  };
  return run('sh', ['-c', command], wt, {}, JSON.stringify(payload));
}

const write = (path: string) => ({ tool_name: 'Write', tool_input: { file_path: join(wt, path), content: 'x\n' }, tool_use_id: 't1', cwd: wt });
const select = { tool_name: 'select_active_intent', tool_input: '{"intent_id":"INT-001"}', command: 'intent mcp', url: '' };

describe('Cursor hook adapter', () => {
  it('registers the five events, failClosed where it blocks', () => {
    const hooks = JSON.parse(readFileSync(join(repo, '.cursor', 'hooks.json'), 'utf8'));
    expect(Object.keys(hooks.hooks).sort()).toEqual(['afterFileEdit', 'beforeMCPExecution', 'beforeReadFile', 'beforeShellExecution', 'preToolUse']);
    expect(hooks.hooks.preToolUse[0].failClosed).toBe(true);
    expect(hooks.hooks.beforeShellExecution[0].failClosed).toBe(true);
    expect(hooks.hooks.beforeReadFile[0].failClosed).toBeUndefined();
  });

  it('refuses writes until the conversation selected the intent; with no objection it prints nothing (never allow)', () => {
    const before = cursor('conv-1', 'pre-tool-use', write('src/auth/n.ts'));
    expect(before.status).toBe(0);
    expect(JSON.parse(before.stdout)).toMatchObject({ permission: 'deny' });
    expect(JSON.parse(before.stdout).agent_message).toContain('You must cite a valid active Intent ID.');

    const sel = cursor('conv-1', 'before-mcp-execution', select);
    expect(sel).toMatchObject({ status: 0, stdout: '' });
    const ok = cursor('conv-1', 'pre-tool-use', write('src/auth/n.ts'));
    expect(ok).toMatchObject({ status: 0, stdout: '' });

    const out = JSON.parse(cursor('conv-1', 'pre-tool-use', write('docs/x.md')).stdout);
    expect(out.permission).toBe('deny');
    expect(out.agent_message).toContain('Scope Violation: INT-001 is not authorized to edit docs/x.md');
    // Another conversation has not selected anything.
    expect(JSON.parse(cursor('conv-2', 'pre-tool-use', write('src/auth/n.ts')).stdout).permission).toBe('deny');
  });

  it('classifies a shell command once, in beforeShellExecution', () => {
    const shellTool = cursor('conv-1', 'pre-tool-use', { tool_name: 'Shell', tool_input: { command: 'git push --force' }, cwd: wt });
    expect(shellTool).toMatchObject({ status: 0, stdout: '' });
    const denied = JSON.parse(cursor('conv-1', 'before-shell-execution', { command: 'git push --force', cwd: wt }).stdout);
    expect(denied.permission).toBe('deny');
    expect(cursor('conv-1', 'before-shell-execution', { command: 'ls -la', cwd: wt })).toMatchObject({ status: 0, stdout: '' });
    expect(JSON.parse(cursor('conv-1', 'before-shell-execution', { command: 'npm publish', cwd: wt }).stdout).permission).toBe('ask');
  });

  it('records reads for the stale check', () => {
    const login = join(wt, 'src/auth/login.ts');
    cursor('conv-3', 'before-mcp-execution', select);
    const read = cursor('conv-3', 'before-read-file', { file_path: login, content: readFileSync(login, 'utf8'), attachments: [] });
    expect(read).toMatchObject({ status: 0, stdout: '' });
    writeFileSync(login, 'export const a = 1;\nexport const human = 2;\n');
    const stale = JSON.parse(cursor('conv-3', 'pre-tool-use', write('src/auth/login.ts')).stdout);
    expect(stale.permission).toBe('deny');
    expect(stale.agent_message).toMatch(/Stale File: src\/auth\/login\.ts changed since it was read/);
    git(wt, 'checkout', '--', 'src/auth/login.ts');
  });

  it('credits afterFileEdit in scope, and reports an out-of-scope edit loudly (it cannot block)', () => {
    cursor('conv-1', 'pre-tool-use', write('src/auth/n.ts'));
    writeFiles(wt, { 'src/auth/n.ts': 'export const n = 1;\n' });
    const after = cursor('conv-1', 'after-file-edit', { file_path: join(wt, 'src/auth/n.ts'), edits: [{ old_string: '', new_string: 'export const n = 1;\n' }] });
    expect(after).toMatchObject({ status: 0, stdout: '' });

    writeFileSync(join(wt, 'docs/x.md'), 'y\n');
    const loud = cursor('conv-1', 'after-file-edit', { file_path: join(wt, 'docs/x.md'), edits: [{ old_string: 'x', new_string: 'y' }] });
    expect(loud.status).toBe(2);
    expect(loud.stderr).toContain('OUT OF SCOPE, NOT UNDONE');
    expect(loud.stderr).toContain('docs/x.md');
    git(wt, 'checkout', '--', 'docs/x.md');

    git(wt, 'commit', '-q', '-m', 'cursor');
    const ai = noteOf(wt)!.record.files.find((f: any) => f.path === 'src/auth/n.ts').conversations.find((c: any) => c.contributor.type === 'ai');
    expect(ai).toMatchObject({ contributor: { type: 'ai', model_id: 'openai/gpt-5' }, url: 'cursor://conversation/conv-1' });
  });
});
