// End to end with the real Claude Code CLI (the version pinned in scripts/claude-code-e2e.mjs),
// headless (`claude -p … --output-format json`) against a scripted mock of the Messages API on
// 127.0.0.1 (test/e2e/anthropic-mock.ts). The hooks are the ones `intent init --agent claude-code`
// registers; the assertions are on what the model was told (the tool results Claude Code sent
// back to the mock) and on the commit's note. In CI (CI set) a missing CLI fails the file;
// elsewhere the file is skipped when the CLI is not installed (`node scripts/claude-code-e2e.mjs install`).
import { existsSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { git, intent, noteOf, spawnAsync } from '../helpers.js';
import { agentFixture } from './agent-cli.js';
import { startMockApi, type MockApi, type Step } from './anthropic-mock.js';
// @ts-expect-error: a plain ES module without types
import { CLAUDE_CODE_VERSION, claudeCodeBin, claudeCodeReady } from '../../scripts/claude-code-e2e.mjs';

const ready: boolean = claudeCodeReady();
if (!ready && process.env.CI) {
  throw new Error(`Claude Code ${CLAUDE_CODE_VERSION} is not installed at ${claudeCodeBin()}: run \`node scripts/claude-code-e2e.mjs install\` (.ci/run does).`);
}

const MAIN = 'E2E-MAIN-7f3';
const SUB = 'E2E-SUB-c41';
const SUBDIR = 'E2E-SUBDIR-9b2';
const MCP = 'E2E-MCP-5d1';

interface ClaudeRun {
  code: number;
  stdout: string;
  stderr: string;
  result: any;
}

/** Runs `claude -p` in `cwd` against the mock, with its own home (settings, transcripts). */
async function claude(cwd: string, prompt: string, api: MockApi, home: string, bin: string, extra: string[] = []): Promise<ClaudeRun> {
  const args = ['-p', prompt, '--output-format', 'json', '--model', 'claude-sonnet-4-5', '--allowedTools', 'Write,Edit,Read,Bash,Agent', ...extra];
  const run = await spawnAsync(claudeCodeBin(), args, cwd, {
    HOME: home,
    CLAUDE_CONFIG_DIR: join(home, '.claude'),
    PATH: `${bin}:${process.env.PATH}`,
    ANTHROPIC_BASE_URL: api.url,
    ANTHROPIC_API_KEY: 'dummy',
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  });
  let result: any = null;
  try {
    result = JSON.parse(run.stdout);
  } catch { /* reported by the caller's assertions */ }
  return { ...run, result };
}

describe.skipIf(!ready)(`Claude Code ${CLAUDE_CODE_VERSION}, real CLI`, () => {
  let api: MockApi;
  let repo: string;
  let wt: string;
  let home: string;
  let run: ClaudeRun;
  let bin = '';
  let staged: string[] = [];
  /** The result the model got for the n-th tool call of a conversation. */
  const told = (marker: string, n: number) => {
    const id = api.calls.get(marker)?.[n];
    const r = id ? api.results.get(id) : undefined;
    if (!r) throw new Error(`no tool result for call ${n} of ${marker}; calls: ${JSON.stringify([...api.calls])}; claude said: ${run?.stdout}${run?.stderr}`);
    return r;
  };

  beforeAll(async () => {
    ({ repo, wt, home, bin } = agentFixture('claude-code', ['src/**'], { 'README.md': '# e2e\n', 'package.json': '{"name":"e2e","version":"1.0.0","scripts":{"lint":"intent reset INT-001 --yes"}}\n', 'src/a.ts': 'export const a = 1;\n', 'docs/x.md': 'x\n' }, (r) => {
      // A committed link into another folder: a shell command can write outside the scope through it.
      symlinkSync('../docs', join(r, 'src/docs'));
    }));

    const f = (p: string) => join(wt, p);
    const steps: Step[] = [
      // 0: a write before the handshake is refused
      { tools: [{ name: 'Write', input: { file_path: f('src/new.ts'), content: 'export const fresh = 1;\nexport const two = 2;\n' } }] },
      // 1: the handshake
      { tools: [{ name: 'Bash', input: { command: 'intent context INT-001', description: 'Load the intent context' } }] },
      // 2: now the write goes through
      { tools: [{ name: 'Write', input: { file_path: f('src/new.ts'), content: 'export const fresh = 1;\nexport const two = 2;\n' } }] },
      // 3, 4: read, then edit
      { tools: [{ name: 'Read', input: { file_path: f('src/a.ts') } }] },
      { tools: [{ name: 'Edit', input: { file_path: f('src/a.ts'), old_string: 'export const a = 1;', new_string: 'export const a = 1;\nexport const edited = 2;' } }] },
      // 5: out of scope
      { tools: [{ name: 'Write', input: { file_path: f('docs/new.md'), content: '# nope\n' } }] },
      // 6: a shell command that writes in scope, and out of it through the link (the policy sees src/docs/x.md)
      { tools: [{ name: 'Bash', input: { command: "printf 'export const viaBash = 3;\\n' >> src/a.ts && sed -i 's/^x$/through the link/' src/docs/x.md", description: 'Append a line' } }] },
      // 7: a subagent on another model
      { tools: [{ name: 'Agent', input: { description: 'Write the sub file', prompt: `${SUB}: write src/sub.ts`, subagent_type: 'general-purpose', model: 'haiku', run_in_background: false } }] },
      // 8: a human's decision through a project script (no command line shows it): the shell's marker refuses it
      { tools: [{ name: 'Bash', input: { command: 'npm run lint', description: 'Lint' } }] },
      { text: 'all done' },
    ];
    api = await startMockApi({
      [MAIN]: steps,
      [SUB]: [{ tools: [{ name: 'Write', input: { file_path: f('src/sub.ts'), content: 'export const bySub = 1;\n' } }] }, { text: 'sub done' }],
      [SUBDIR]: [{ tools: [{ name: 'Write', input: { file_path: f('src/unhooked.ts'), content: 'export const u = 1;\n' } }] }, { text: 'done' }],
      [MCP]: [
        { tools: [{ name: 'Write', input: { file_path: f('src/mcp.ts'), content: 'export const viaMcp = 1;\n' } }] },
        { tools: [{ name: 'mcp__intent__select_active_intent', input: { intent_id: 'INT-001' } }] },
        { tools: [{ name: 'Write', input: { file_path: f('src/mcp.ts'), content: 'export const viaMcp = 1;\n' } }] },
        { text: 'done' },
      ],
    });
    run = await claude(wt, `${MAIN}: do the work`, api, home, bin);
    // What the session left staged, before any test commits (the commit test) or stages more (the MCP session).
    staged = git(wt, 'diff', '--cached', '--name-only').trim().split('\n');
  }, 180_000);

  afterAll(async () => {
    await api?.close();
  });

  it('ran the whole scripted session', () => {
    expect(run.code, run.stderr + run.stdout).toBe(0);
    expect(run.result?.result).toBe('all done');
    expect(api.calls.get(MAIN)).toHaveLength(9);
  });

  it('intent reset run in Claude Code\'s shell (through a project script) is refused by the shell\'s marker', () => {
    expect(JSON.stringify(told(MAIN, 8))).toContain('Refused: intent reset looks like it comes from an agent process (CLAUDE');
  });

  it('refuses writes until the session ran `intent context`, which hands the model the context block', () => {
    const refused = told(MAIN, 0);
    expect(refused.isError).toBe(true);
    expect(refused.text).toContain('You must cite a valid active Intent ID.');
    expect(refused.text).toContain('intent context INT-001');
    const context = told(MAIN, 1);
    expect(context.text).toContain('<intent_context');
    expect(context.text).toContain('INT-001');
    expect(context.text).toContain('this session works on INT-001 now');
    expect(told(MAIN, 2).isError).toBe(false);
  });

  it('stages and credits in-scope Write and Edit, and tells the model', () => {
    expect(told(MAIN, 2).text).toContain('staged src/new.ts under INT-001 (2 lines credited to anthropic/claude-sonnet-4-5)');
    expect(told(MAIN, 4).text).toContain('staged src/a.ts under INT-001 (1 line credited to anthropic/claude-sonnet-4-5)');
  });

  it('refuses an out-of-scope Write with the Scope Violation message', () => {
    const r = told(MAIN, 5);
    expect(r.isError).toBe(true);
    expect(r.text).toContain('Scope Violation: INT-001 is not authorized to edit docs/new.md');
    expect(existsSync(join(wt, 'docs/new.md'))).toBe(false);
  });

  it('finds what a Bash command wrote: stages the in-scope file, reports the out-of-scope one', () => {
    const r = told(MAIN, 6);
    // a.ts: the Edit's line and the appended one, both the model's
    expect(r.text).toContain('the command changed src/a.ts (2 lines credited to anthropic/claude-sonnet-4-5): staged.');
    expect(r.text).toContain('the command changed docs/x.md, which this session may not write');
    expect(r.text).toContain('They are not staged');
    expect(staged).toContain('src/a.ts');
    expect(staged).not.toContain('docs/x.md');
  });

  it('credits the subagent\'s lines to the subagent\'s model', () => {
    const subModel = api.models.get(SUB)!;
    expect(subModel).toBeTruthy();
    expect(subModel).not.toBe(api.models.get(MAIN));
    expect(told(SUB, 0).text).toContain(`staged src/sub.ts under INT-001 (1 line credited to anthropic/${subModel})`);
  });

  it('commits: the note names the model of every line, the subagent\'s own', () => {
    git(wt, 'checkout', '--', 'docs/x.md'); // undo the out-of-scope change, as the model was told
    git(wt, 'commit', '-q', '-m', 'work by Claude Code');
    const files = noteOf(wt)!.record.files as any[];
    const ai = (path: string) => files.find((f) => f.path === path)?.conversations.filter((c: any) => c.contributor.type === 'ai')
      .map((c: any) => ({ model: c.contributor.model_id, lines: c.ranges.map((r: any) => [r.start_line, r.end_line]), url: c.url }));
    const main = `anthropic/${api.models.get(MAIN)}`;
    expect(ai('src/new.ts')).toEqual([{ model: main, lines: [[1, 2]], url: expect.stringMatching(/^claude-code:\/\/session\/[0-9a-f-]+$/) }]);
    expect(ai('src/a.ts')).toEqual([{ model: main, lines: [[2, 3]], url: expect.any(String) }]);
    expect(ai('src/sub.ts')).toEqual([{ model: `anthropic/${api.models.get(SUB)}`, lines: [[1, 1]], url: expect.stringMatching(/\/agent\/[A-Za-z0-9_-]+$/) }]);
  });

  it('the handshake through the MCP tool select_active_intent (intent mcp), in another session', async () => {
    const config = JSON.stringify({ mcpServers: { intent: { command: 'intent', args: ['mcp'] } } });
    const r = await claude(wt, `${MCP}: select, then write`, api, home, bin, ['--strict-mcp-config', '--mcp-config', config, '--allowedTools', 'mcp__intent__select_active_intent']);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(told(MCP, 0).text).toContain('You must cite a valid active Intent ID.');
    const selected = told(MCP, 1);
    expect(selected.text).toContain('<intent_context');
    expect(selected.text).toContain('this session works on INT-001 now');
    expect(told(MCP, 2).text).toContain('staged src/mcp.ts under INT-001 (1 line credited to anthropic/claude-sonnet-4-5)');
  }, 120_000);

  it('a session started in a subdirectory runs without hooks: intent status finds it', async () => {
    const sub = await claude(join(wt, 'src'), `${SUBDIR}: write`, api, home, '/nonexistent');
    expect(sub.code, sub.stderr).toBe(0);
    // No hook ran: the write went through unchecked (no handshake, nothing staged).
    expect(told(SUBDIR, 0).text).not.toMatch(/intent:|Intent ID/);
    expect(git(wt, 'status', '--porcelain', '--', 'src/unhooked.ts')).toBe('?? src/unhooked.ts\n');
    expect(existsSync(join(wt, 'src/unhooked.ts'))).toBe(true);
    const status = intent(repo, ['status', '--json'], { HOME: home, CLAUDE_CONFIG_DIR: join(home, '.claude') });
    const row = JSON.parse(status.stdout).intents.find((r: any) => r.intent === 'INT-001');
    expect(row.unhooked_sessions).toHaveLength(1);
    expect(row.unhooked_sessions[0]).toMatchObject({ cwd: join(wt, 'src'), tools: ['Write'] });
    // The hooked session of the tests above is not reported.
    expect(row.unhooked_sessions[0].session_id).not.toBe(run.result.session_id);
  });

});
