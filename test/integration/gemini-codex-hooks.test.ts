// Gemini CLI's and Codex's hooks fed the payloads the real CLIs sent (test/fixtures/gemini/ and
// test/fixtures/codex/, captured by test/fixtures/capture-gemini-codex.mjs from Gemini CLI 0.61.0
// and Codex 0.171.0; paths replaced by {{ROOT}} and {{HOME}}), through the commands `intent init
// --agent gemini codex` registers. What the real CLIs do end to end is in test/e2e/gemini.test.ts
// and test/e2e/codex.test.ts; here are the attacks on the guard of Gemini's hookless git, `intent
// commit` against Gemini's environment, and the edges the scripted sessions do not reach.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { PKG_ROOT, checkoutIntent, forFile, git, governedRepo, intent, noteOf, run, tempDir, type Run } from '../helpers.js';

type Payload = Record<string, any>;
const FIXTURES = join(PKG_ROOT, 'test', 'fixtures');

/** The environment Gemini CLI 0.61 gives its shell's git (getSafeGitEnv): hooks off, no global or system config. */
const GEMINI_GIT_ENV: Record<string, string> = {
  GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_SYSTEM: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_COUNT: '4',
  GIT_CONFIG_KEY_0: 'maintenance.auto', GIT_CONFIG_VALUE_0: 'false',
  GIT_CONFIG_KEY_1: 'credential.helper', GIT_CONFIG_VALUE_1: '',
  GIT_CONFIG_KEY_2: 'core.hooksPath', GIT_CONFIG_VALUE_2: '',
  GIT_CONFIG_KEY_3: 'core.pager', GIT_CONFIG_VALUE_3: 'cat',
  GEMINI_CLI: '1',
};

function load(agent: string, wt: string, home: string): Record<string, Payload> {
  const text = readFileSync(join(FIXTURES, agent, 'payloads.json'), 'utf8').split('{{ROOT}}').join(wt).split('{{HOME}}').join(home);
  return JSON.parse(text).payloads;
}

describe('Gemini CLI and Codex hooks with the payloads of Gemini CLI 0.61.0 and Codex 0.171.0', () => {
  let repo: string;
  let wt: string;
  let home: string;
  let gem: Record<string, Payload>;
  let cdx: Record<string, Payload>;
  let n = 0;

  beforeAll(() => forFile(() => {
    repo = governedRepo(
      [{ id: 'INT-001', name: 'Agents', scope: ['src/**'] }],
      { 'README.md': '# r\n', 'src/a.txt': 'one\n', 'docs/x.md': 'x\n', 'package.json': '{"scripts":{"test":"git commit -q -m sneaky"}}\n' },
    );
    expect(intent(repo, ['init', '--agent', 'gemini', 'codex']).status).toBe(0);
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'agent hooks');
    wt = checkoutIntent(repo, 'INT-001');
    home = tempDir('intent-agents-home-');
    gem = load('gemini', wt, home);
    cdx = load('codex', wt, home);
    // Gemini's transcript (the model of its newest turn) where the payloads say it is.
    const transcript = gem['write_file.AfterTool'].transcript_path;
    mkdirSync(dirname(transcript), { recursive: true });
    writeFileSync(transcript, readFileSync(join(FIXTURES, 'gemini', 'transcript.jsonl'), 'utf8').split('{{ROOT}}').join(wt).split('{{HOME}}').join(home));
  }));

  /** A fixture in a session of its own (or the given one). */
  function payload(fixtures: Record<string, Payload>, name: string, change: (p: Payload) => void = () => {}): Payload {
    const p = structuredClone(fixtures[name]);
    if (!p) throw new Error(`no fixture ${name}`);
    change(p);
    return p;
  }

  /** Runs the command registered for the payload's event and tool, in the worktree. */
  function hook(p: Payload, env: Record<string, string> = {}): Run {
    const file = p.hook_event_name === 'BeforeTool' || p.hook_event_name === 'AfterTool' ? join(wt, '.gemini', 'settings.json') : join(wt, '.codex', 'hooks.json');
    const entry = JSON.parse(readFileSync(file, 'utf8')).hooks[p.hook_event_name].find((e: any) => new RegExp(e.matcher).test(p.tool_name));
    if (!entry) throw new Error(`no ${p.hook_event_name} hook matches ${p.tool_name}`);
    return run('sh', ['-c', entry.hooks[0].command], wt, env, JSON.stringify(p));
  }

  function answer(p: Payload): any {
    const r = hook(p);
    expect(r.status, r.stderr).toBe(0);
    return r.stdout.trim() ? JSON.parse(r.stdout) : null;
  }

  /** Selects INT-001 for the Gemini session `session` (its shell ran `intent context INT-001`). */
  function geminiHandshake(session: string): void {
    const ctx = intent(wt, ['context', 'INT-001']).stdout;
    const a = answer(payload(gem, 'run_shell_command.AfterTool', (p) => {
      p.session_id = session;
      p.tool_input = { command: 'intent context INT-001', description: 'context' };
      p.tool_response = { llmContent: `<untrusted_context>\nOutput: ${ctx}\n</untrusted_context>`, returnDisplay: ctx };
    }));
    expect(a.hookSpecificOutput.additionalContext).toContain('this session works on INT-001 now');
  }

  /** A Gemini shell command: BeforeTool's answer, then `act` (what the command does), then AfterTool's context. */
  function geminiShell(session: string, command: string, act: () => void): { before: any; after: string | undefined } {
    const before = answer(payload(gem, 'run_shell_command.BeforeTool', (p) => { p.session_id = session; p.tool_input = { command, description: 'x' }; }));
    if (before?.decision === 'deny') return { before, after: undefined };
    act();
    const after = answer(payload(gem, 'run_shell_command.AfterTool', (p) => {
      p.session_id = session;
      p.tool_input = { command, description: 'x' };
      p.tool_response = { llmContent: 'Output: (empty)', returnDisplay: '' };
    }));
    return { before, after: after?.hookSpecificOutput?.additionalContext };
  }

  it('registers the hooks on the tools the CLIs really name', () => {
    const g = JSON.parse(readFileSync(join(wt, '.gemini', 'settings.json'), 'utf8')).hooks;
    for (const t of ['write_file', 'replace', 'run_shell_command']) expect(g.BeforeTool.some((e: any) => new RegExp(e.matcher).test(t)), t).toBe(true);
    expect(g.BeforeTool.some((e: any) => new RegExp(e.matcher).test('read_file'))).toBe(false);
    expect(g.AfterTool[0].hooks[0].timeout).toBe(30_000);
    const c = JSON.parse(readFileSync(join(wt, '.codex', 'hooks.json'), 'utf8')).hooks;
    for (const t of ['Bash', 'apply_patch']) expect(c.PreToolUse.some((e: any) => new RegExp(e.matcher).test(t)), t).toBe(true);
  });

  describe('Gemini CLI', () => {
    it('refuses a write before the handshake, allows it after, and credits the model from the transcript', () => {
      const session = `gem-${++n}`;
      const pre = payload(gem, 'write_file.BeforeTool', (p) => { p.session_id = session; });
      const refused = answer(pre);
      expect(refused.decision).toBe('deny');
      expect(refused.reason).toContain('You must cite a valid active Intent ID.');
      expect(refused.reason).toContain('intent context INT-001');
      geminiHandshake(session);
      expect(answer(pre)).toBeNull();
      writeFileSync(join(wt, 'src', 'new.txt'), 'line1\nline2\n');
      const post = answer(payload(gem, 'write_file.AfterTool', (p) => { p.session_id = session; }));
      expect(post.hookSpecificOutput.additionalContext).toBe('intent: staged src/new.txt under INT-001 (2 lines credited to google/gemini-2.5-pro).');
      expect(git(wt, 'diff', '--cached', '--name-only')).toContain('src/new.txt');
    });

    it('the handshake through the MCP tool as Gemini names it (mcp_intent_select_active_intent); a failed call selects nothing', () => {
      const session = `gem-${++n}`;
      const mcp = (error: unknown) => payload(gem, 'write_file.AfterTool', (p) => {
        p.session_id = session;
        p.tool_name = 'mcp_intent_select_active_intent';
        p.tool_input = { intent_id: 'INT-001' };
        p.tool_response = { llmContent: '<intent_context id="INT-001">…</intent_context>', returnDisplay: '', ...(error ? { error } : {}) };
      });
      expect(answer(mcp({ message: 'MCP tool reported tool error' }))).toBeNull();
      expect(answer(payload(gem, 'write_file.BeforeTool', (p) => { p.session_id = session; })).decision).toBe('deny');
      expect(answer(mcp(undefined)).hookSpecificOutput.additionalContext).toContain('this session works on INT-001 now');
      expect(answer(payload(gem, 'write_file.BeforeTool', (p) => { p.session_id = session; }))).toBeNull();
    });

    it('refuses an out-of-scope write with the Scope Violation message', () => {
      const session = `gem-${++n}`;
      geminiHandshake(session);
      const a = answer(payload(gem, 'write_file.BeforeTool', (p) => { p.session_id = session; p.tool_input.file_path = join(wt, 'docs', 'new.md'); }));
      expect(a).toEqual({ decision: 'deny', reason: expect.stringContaining('intent: Scope Violation: INT-001 is not authorized to edit docs/new.md') });
    });

    it('does not stage a write whose model is unknown (no transcript), and says why', () => {
      const session = `gem-${++n}`;
      geminiHandshake(session);
      writeFileSync(join(wt, 'src', 'orphan.txt'), 'o\n');
      const a = answer(payload(gem, 'write_file.AfterTool', (p) => {
        p.session_id = session;
        p.transcript_path = join(home, 'missing.jsonl');
        p.tool_input.file_path = join(wt, 'src', 'orphan.txt');
      }));
      expect(a.hookSpecificOutput.additionalContext).toContain('the model that wrote');
      expect(a.hookSpecificOutput.additionalContext).toContain('Gemini CLI sent no model');
    });

    it('refuses every committing git command line in Gemini\'s shell, with the way to commit', () => {
      const session = `gem-${++n}`;
      for (const command of [
        'git commit -m x', 'git -C . commit -m x', '/usr/bin/git commit -qm x', 'git --no-pager commit -m x', 'git -c user.name=me commit -m x',
        'cd src && git commit -am x', 'sh -c "git commit -m x"', "echo 'git commit -m x' | sh", 'git\tcommit -m x', 'git merge main',
        'git pull', 'git cherry-pick main', 'git revert HEAD', 'git rebase main', 'git am x.patch', '(git commit -m x)', 'true; "git" commit -m x',
        'git add -A && git commit -m x', 'git add -A; intent commit -m x && git commit --amend --no-edit',
      ]) {
        const { before } = geminiShell(session, command, () => {});
        expect(before?.decision, command).toBe('deny');
        expect(before.reason, command).toContain('Gemini CLI runs git with its hooks turned off');
        expect(before.reason, command).toContain('intent commit');
      }
      for (const command of ['git status', 'git log --grep commit', 'git diff --cached', 'echo committed', 'intent commit -m "feat: the parser"', "intent commit -q -m 'a b'",
        // What a model writes after the refusal: intent commit chained after staging, or after a cd.
        'git add -A && intent commit -m "feat: the parser"', "cd src && intent commit -q -m 'a b'", 'intent commit -m "$(id)"']) {
        const { before } = geminiShell(session, command, () => {});
        expect(before?.decision ?? 'allow', command).not.toBe('deny');
      }
      for (const command of ['intent commit -n -m x', 'intent commit --no-verify -m x', 'git add -A && intent commit --no-verify -m x', 'git add -A && intent commit -anm x']) {
        const { before } = geminiShell(session, command, () => {});
        expect(before?.decision, command).toBe('deny');
      }
    });

    it('undoes a commit made with the hooks off behind the guard (a project script), keeping the work staged', () => {
      const session = `gem-${++n}`;
      geminiHandshake(session);
      const base = git(wt, 'rev-parse', 'HEAD').trim();
      writeFileSync(join(wt, 'src', 'a.txt'), 'one\ntwo\n');
      git(wt, 'add', 'src/a.txt');
      const { before, after } = geminiShell(session, 'npm test', () => {
        const r = run('git', ['commit', '-q', '-m', 'sneaky'], wt, GEMINI_GIT_ENV);
        expect(r.status, r.stderr).toBe(0);
      });
      expect(before?.decision ?? 'allow').not.toBe('deny');
      expect(after).toMatch(/the command made a commit \([0-9a-f]{12}\) with git's hooks off \(Gemini CLI blanks core\.hooksPath\)/);
      expect(after).toContain('It was undone');
      expect(git(wt, 'rev-parse', 'HEAD').trim()).toBe(base);
      expect(git(wt, 'diff', '--cached', '--name-only')).toContain('src/a.txt');
      git(wt, 'reset', '-q', 'HEAD', '--', 'src/a.txt');
      git(wt, 'checkout', '--', 'src/a.txt');
    });

    it('off an intent branch a commit without a note is no sign of skipped hooks: not undone', () => {
      const session = `gem-${++n}`;
      const base = git(repo, 'rev-parse', 'HEAD').trim();
      const before = answer(payload(gem, 'run_shell_command.BeforeTool', (p) => { p.session_id = session; p.cwd = repo; p.tool_input = { command: 'npm test', description: 'x' }; }));
      expect(before?.decision ?? 'allow').not.toBe('deny');
      writeFileSync(join(repo, 'README.md'), '# r\nmore\n');
      expect(run('git', ['commit', '-q', '-m', 'on main', '--', 'README.md'], repo, GEMINI_GIT_ENV).status).toBe(0);
      const after = answer(payload(gem, 'run_shell_command.AfterTool', (p) => {
        p.session_id = session;
        p.cwd = repo;
        p.tool_input = { command: 'npm test', description: 'x' };
        p.tool_response = { llmContent: 'Output: (empty)', returnDisplay: '' };
      }));
      expect(after?.hookSpecificOutput?.additionalContext ?? '').not.toContain('undone');
      expect(git(repo, 'rev-parse', 'HEAD^').trim()).toBe(base);
      // Back as it was (the registry's uncommitted status change in the main worktree stays).
      git(repo, 'reset', '-q', '--soft', base);
      git(repo, 'reset', '-q', 'HEAD', '--', 'README.md');
      git(repo, 'checkout', '--', 'README.md');
    });

    it('intent commit runs the hooks in Gemini\'s environment, where git commit runs none', () => {
      writeFileSync(join(wt, 'src', 'plain.txt'), 'p\n');
      git(wt, 'add', 'src/plain.txt');
      const hookless = run('git', ['commit', '-q', '-m', 'hookless'], wt, GEMINI_GIT_ENV);
      expect(hookless.status, hookless.stderr).toBe(0);
      expect(noteOf(wt)).toBeNull();
      git(wt, 'reset', '-q', '--soft', 'HEAD^');
      const r = run(process.execPath, [join(PKG_ROOT, 'dist', 'bin', 'intent.js'), 'commit', '-q', '-m', 'with hooks', '--json'], wt, GEMINI_GIT_ENV);
      expect(r.status, r.stderr + r.stdout).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ status: 0, noted: true });
      expect(noteOf(wt)!.record.files.map((f: any) => f.path)).toContain('src/plain.txt');
      // Its hooks still refuse what they refuse: an out-of-scope file.
      writeFileSync(join(wt, 'docs', 'x.md'), 'changed\n');
      git(wt, 'add', 'docs/x.md');
      const out = run(process.execPath, [join(PKG_ROOT, 'dist', 'bin', 'intent.js'), 'commit', '-q', '-m', 'out of scope'], wt, GEMINI_GIT_ENV);
      expect(out.status).not.toBe(0);
      expect(out.stderr).toContain('Scope Violation');
      git(wt, 'reset', '-q', 'HEAD', '--', 'docs/x.md');
      git(wt, 'checkout', '--', 'docs/x.md');
      for (const skip of [['-n', '-m', 'x'], ['--no-verify', '-m', 'x'], ['-anm', 'x'], ['--no-ver', '-m', 'x']]) {
        const s = intent(wt, ['commit', ...skip]);
        expect(s.status, skip.join(' ')).toBe(2);
        expect(s.stderr).toContain('intent commit runs the hooks');
      }
    });

    it('intent commands in Gemini\'s shell do not report the blanked core.hooksPath as lost hooks; a really moved one still is', () => {
      // A changed config file makes the health check read core.hooksPath again.
      git(repo, 'config', '--local', 'intent-test.touch', String(++n));
      const r = run(process.execPath, [join(PKG_ROOT, 'dist', 'bin', 'intent.js'), 'context', 'INT-001'], wt, GEMINI_GIT_ENV);
      expect(r.status, r.stderr).toBe(0);
      expect(r.stderr).not.toContain('lost intent');
      const elsewhere = tempDir('intent-hooks-elsewhere-');
      git(repo, 'config', '--local', 'core.hooksPath', elsewhere);
      try {
        const moved = run(process.execPath, [join(PKG_ROOT, 'dist', 'bin', 'intent.js'), 'context', 'INT-001'], wt, GEMINI_GIT_ENV);
        expect(moved.stderr).toContain(`core.hooksPath now points at ${elsewhere}`);
      } finally {
        git(repo, 'config', '--local', '--unset', 'core.hooksPath');
      }
    });
  });

  describe('Codex', () => {
    /** Selects INT-001 for the Codex session `session` (its shell ran `intent context INT-001`). */
    function codexHandshake(session: string): void {
      const ctx = intent(wt, ['context', 'INT-001']).stdout;
      const a = answer(payload(cdx, 'Bash.PostToolUse', (p) => {
        p.session_id = session;
        p.tool_input = { command: 'intent context INT-001' };
        p.tool_response = `Chunk ID: 1\nProcess exited with code 0\nOutput:\n${ctx}`;
      }));
      expect(a.hookSpecificOutput.additionalContext).toContain('this session works on INT-001 now');
    }

    it('refuses apply_patch before the handshake and a patch that touches a file outside the scope; stages and credits an in-scope one', () => {
      const session = `cdx-${++n}`;
      const pre = payload(cdx, 'apply_patch.PreToolUse', (p) => { p.session_id = session; });
      const refused = answer(pre);
      expect(refused.hookSpecificOutput).toMatchObject({ hookEventName: 'PreToolUse', permissionDecision: 'deny' });
      expect(refused.hookSpecificOutput.permissionDecisionReason).toContain('You must cite a valid active Intent ID.');
      codexHandshake(session);
      expect(answer(pre)).toBeNull();
      const mixed = answer(payload(cdx, 'apply_patch.PreToolUse', (p) => {
        p.session_id = session;
        p.tool_input.command = '*** Begin Patch\n*** Add File: src/ok.txt\n+ok\n*** Update File: docs/x.md\n@@\n-x\n+y\n*** End Patch\n';
      }));
      expect(mixed.hookSpecificOutput.permissionDecisionReason).toContain('Scope Violation: INT-001 is not authorized to edit docs/x.md');
      // The captured patch, on a file of its own (src/new.txt is the Gemini test's).
      const patch = (p: Payload) => { p.session_id = session; p.tool_input.command = p.tool_input.command.replace('src/new.txt', 'src/codex.txt'); };
      expect(answer(payload(cdx, 'apply_patch.PreToolUse', patch))).toBeNull();
      writeFileSync(join(wt, 'src', 'codex.txt'), 'line1\nline2\n');
      writeFileSync(join(wt, 'src', 'a.txt'), 'uno\n');
      const post = answer(payload(cdx, 'apply_patch.PostToolUse', patch));
      expect(post.hookSpecificOutput.additionalContext).toContain('staged src/codex.txt under INT-001 (2 lines credited to openai/gpt-5.5)');
      expect(post.hookSpecificOutput.additionalContext).toContain('staged src/a.txt under INT-001 (1 line credited to openai/gpt-5.5)');
    });

    it('judges a shell command where the model ran it (workdir, read back from the rollout); refuses one outside the worktree', () => {
      const session = `cdx-${++n}`;
      codexHandshake(session);
      const rollout = join(home, `rollout-${n}.jsonl`);
      const call = (id: string, workdir: string) => JSON.stringify({ type: 'response_item', payload: { type: 'function_call', name: 'exec_command', arguments: JSON.stringify({ cmd: 'touch x.txt', workdir }), call_id: id } });
      const outside = tempDir('intent-outside-');
      writeFileSync(rollout, [call('call_out', outside), call('call_in', 'src')].join('\n') + '\n');
      const out = hook(payload(cdx, 'Bash.PreToolUse', (p) => { p.session_id = session; p.transcript_path = rollout; p.tool_use_id = 'call_out'; p.tool_input = { command: 'touch x.txt' }; }));
      expect(out.status).toBe(2);
      expect(out.stderr).toContain(`the command would run in ${outside}, outside this session's worktree`);
      const pre = payload(cdx, 'Bash.PreToolUse', (p) => { p.session_id = session; p.transcript_path = rollout; p.tool_use_id = 'call_in'; p.tool_input = { command: 'touch x.txt' }; });
      expect(answer(pre)).toBeNull();
      writeFileSync(join(wt, 'src', 'x.txt'), '');
      const post = answer({ ...pre, hook_event_name: 'PostToolUse', tool_response: 'Process exited with code 0' });
      expect(post.hookSpecificOutput.additionalContext).toContain('the command changed src/x.txt');
    });

    it('a git commit in Codex\'s shell is not refused: its hooks run there', () => {
      const session = `cdx-${++n}`;
      const a = answer(payload(cdx, 'Bash.PreToolUse', (p) => { p.session_id = session; p.tool_input = { command: 'git commit -m x' }; }));
      expect(a?.hookSpecificOutput?.permissionDecision ?? 'allow').not.toBe('deny');
    });
  });

  it('the capture script is committed beside the fixtures, which name the CLI versions', () => {
    expect(existsSync(join(FIXTURES, 'capture-gemini-codex.mjs'))).toBe(true);
    expect(JSON.parse(readFileSync(join(FIXTURES, 'gemini', 'payloads.json'), 'utf8')).cli).toBe('@google/gemini-cli 0.61.0');
    expect(JSON.parse(readFileSync(join(FIXTURES, 'codex', 'payloads.json'), 'utf8')).cli).toBe('@openai/codex 0.171.0');
  });
});
