// End to end with the real Qwen Code (the version pinned in scripts/qwen-e2e.mjs), headless
// (`qwen "<prompt>" --yolo --output-format json`) against a scripted mock of the Chat Completions
// API on 127.0.0.1 (test/e2e/openai-mock.mjs; OPENAI_BASE_URL, OPENAI_API_KEY, OPENAI_MODEL). The
// hooks are the ones `intent init --agent qwen` registers (`.qwen/settings.json`); Qwen runs project
// hooks with no trust step (folder trust is off by default). The assertions are on what the model
// was told (the tool results Qwen sent back to the mock), on the files, on the commit's note, and on
// the worktree being clean after the session (Qwen stamps `"$version"` into a settings file that
// lacks it: the file intent writes already has it). In CI (CI set) a missing CLI fails the file;
// elsewhere the file is skipped when the CLI is not installed (`node scripts/qwen-e2e.mjs install`).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, git, intent, noteOf, spawnAsync } from '../helpers.js';

type CliRun = Awaited<ReturnType<typeof spawnAsync>>;
// @ts-expect-error: a plain ES module without types
import { startOpenAiMock } from './openai-mock.mjs';
import { agentFixture, aiCredit } from './agent-cli.js';
// @ts-expect-error: a plain ES module without types
import { QWEN_CODE_VERSION, qwen } from '../../scripts/qwen-e2e.mjs';

const ready: boolean = qwen.ready();
if (!ready && process.env.CI) {
  throw new Error(`Qwen Code ${QWEN_CODE_VERSION} is not installed at ${qwen.bin()}: run \`node scripts/qwen-e2e.mjs install\` (.ci/run does).`);
}

const MAIN = 'E2E-QWEN-MAIN-7b3';
const UNTRUSTED = 'E2E-QWEN-UNTRUSTED-2d9';
const TRUSTED = 'E2E-QWEN-TRUSTED-6f1';
const MCP = 'E2E-QWEN-MCP-9a4';
const MODEL = 'qwen3-coder-plus';

interface QwenRun extends CliRun {
  result: any;
}

/** Runs `qwen` headless in `cwd` against the mock, with its own home (settings, transcripts). */
async function runQwen(cwd: string, prompt: string, home: string, bin: string, url: string): Promise<QwenRun> {
  const r = await spawnAsync(qwen.bin(), [prompt, '--yolo', '--output-format', 'json'], cwd, {
    HOME: home, PATH: `${bin}:${process.env.PATH}`, OPENAI_BASE_URL: `${url}/v1`, OPENAI_API_KEY: 'dummy', OPENAI_MODEL: MODEL,
    NO_COLOR: '1', QWEN_CODE_SUPPRESS_YOLO_WARNING: '1',
  });
  let result: any = null;
  try {
    result = (JSON.parse(r.stdout) as any[]).find((m) => m.type === 'result');
  } catch { /* reported by the caller's assertions */ }
  return { ...r, result };
}

describe.skipIf(!ready)(`Qwen Code ${QWEN_CODE_VERSION}, real CLI`, () => {
  let api: any;
  let repo: string;
  let wt: string;
  let home: string;
  let bin: string;
  let run: QwenRun;
  /** What the model was told for the n-th tool call of the conversation. */
  const told = (n: number, marker = MAIN): string => {
    const id = api.calls.get(marker)?.[n];
    const r = id ? api.results.get(id) : undefined;
    if (!r) throw new Error(`no tool result for call ${n}; calls: ${JSON.stringify([...api.calls])}; qwen said: ${run?.stdout}${run?.stderr}`);
    return r.text;
  };

  beforeAll(async () => {
    ({ repo, wt, home, bin } = agentFixture('qwen', ['src/**'], { 'README.md': '# e2e\n', 'package.json': '{"name":"e2e","version":"1.0.0","scripts":{"lint":"intent reset INT-001 --yes"}}\n', 'src/a.ts': 'export const a = 1;\n', 'docs/x.md': 'x\n' }));
    const f = (p: string) => join(wt, p);
    const steps = [
      // 0: a write before the handshake is refused
      { tools: [{ name: 'write_file', input: { file_path: f('src/new.ts'), content: 'export const fresh = 1;\nexport const two = 2;\n' } }] },
      // 1: the handshake
      { tools: [{ name: 'run_shell_command', input: { command: 'intent context INT-001', description: 'Load the intent context' } }] },
      // 2: now the write goes through
      { tools: [{ name: 'write_file', input: { file_path: f('src/new.ts'), content: 'export const fresh = 1;\nexport const two = 2;\n' } }] },
      // 3: out of scope
      { tools: [{ name: 'write_file', input: { file_path: f('docs/new.md'), content: '# nope\n' } }] },
      // 4, 5: Qwen edits only what the session read
      { tools: [{ name: 'read_file', input: { file_path: f('src/a.ts') } }] },
      { tools: [{ name: 'edit', input: { file_path: f('src/a.ts'), old_string: 'a = 1', new_string: 'a = 10' } }] },
      // 6: a shell write in the scope
      { tools: [{ name: 'run_shell_command', input: { command: "printf 'export const viaShell = 3;\\n' >> src/a.ts; npm run lint || true", description: 'Append a line, lint' } }] },
      // 7: a shell command that writes and then fails: Qwen reports it as PostToolUseFailure
      { tools: [{ name: 'run_shell_command', input: { command: "printf 'export const c = 3;\\n' > src/c.ts; exit 3", description: 'Write and fail' } }] },
      // 8: a commit in the agent's shell
      { tools: [{ name: 'run_shell_command', input: { command: "git commit -q -m 'work by Qwen'", description: 'Commit' } }] },
      { text: 'all done' },
    ];
    const other = (file: string) => [{ tools: [{ name: 'write_file', input: { file_path: f(file), content: '# no hook ran\n' } }] }, { text: 'done' }];
    const viaMcp = [
      { tools: [{ name: 'mcp__intent__select_active_intent', input: { intent_id: 'INT-001' } }] },
      { tools: [{ name: 'write_file', input: { file_path: f('src/mcp.ts'), content: 'export const viaMcp = 1;\n' } }] },
      { text: 'done' },
    ];
    api = await startOpenAiMock({ [MAIN]: steps, [UNTRUSTED]: other('docs/untrusted.md'), [TRUSTED]: other('docs/trusted.md'), [MCP]: viaMcp });
    run = await runQwen(wt, `${MAIN}: do the work`, home, bin, api.url);
    if (process.env.DUMP_E2E) writeFileSync(process.env.DUMP_E2E, JSON.stringify([...api.results], null, 1));
  }, 240_000);

  afterAll(async () => {
    await api?.close();
  });

  it('ran the whole scripted session', () => {
    expect(run.code, run.stderr + run.stdout).toBe(0);
    expect(run.result?.result).toBe('all done');
    expect(api.calls.get(MAIN)).toHaveLength(9);
  });

  it('refuses writes until the session ran `intent context`, which hands the model the context block', () => {
    expect(told(0)).toContain('intent: You must cite a valid active Intent ID.');
    expect(told(0)).toContain('intent context INT-001');
    expect(told(1)).toContain('<intent_context');
    expect(told(1)).toContain('this session works on INT-001 now');
  });

  it('stages and credits an in-scope write_file to the session\'s model', () => {
    // Qwen says "created": the refused write of call 0 left no file behind.
    expect(told(2)).toContain('Successfully created and wrote to new file');
    expect(told(2)).toContain(`staged src/new.ts under INT-001 (2 lines credited to qwen/${MODEL})`);
  });

  it('refuses an out-of-scope write before it lands, and tells the model why', () => {
    expect(told(3)).toContain('Scope Violation: INT-001 is not authorized to edit docs/new.md');
    expect(existsSync(join(wt, 'docs/new.md'))).toBe(false);
  });

  it('stages an edit, and what shell commands wrote in the scope (a failed one too), credited to the model', () => {
    expect(told(5)).toContain(`staged src/a.ts under INT-001 (1 line credited to qwen/${MODEL})`);
    // (The credit counts the file's model lines so far: the edit's and the shell's.)
    expect(told(6)).toContain(`the command changed src/a.ts (2 lines credited to qwen/${MODEL}): staged.`);
    expect(told(7)).toContain('Exit Code: 3');
    expect(told(7)).toContain(`the command changed src/c.ts (1 line credited to qwen/${MODEL}): staged.`);
  });

  it('intent reset run in Qwen Code\'s shell (through a project script) is refused: the shell carries QWEN_CODE=1', () => {
    expect(told(6)).toContain('Refused: intent reset looks like it comes from an agent process (QWEN_CODE=1 is set (a Qwen Code shell))');
  });

  it('a commit in the agent\'s shell runs the hooks: its note credits the model, and intent verify is clean', () => {
    expect(git(wt, 'log', '-1', '--format=%s')).toBe('work by Qwen\n');
    const record = noteOf(wt)!.record;
    const url = expect.stringMatching(/^qwen-code:\/\/session\/[0-9a-f-]+$/);
    expect(aiCredit(record, 'src/new.ts')).toEqual([{ model: `qwen/${MODEL}`, lines: [[1, 2]], url }]);
    expect(aiCredit(record, 'src/a.ts')).toEqual([{ model: `qwen/${MODEL}`, lines: [[1, 2]], url }]);
    expect(aiCredit(record, 'src/c.ts')).toEqual([{ model: `qwen/${MODEL}`, lines: [[1, 1]], url }]);
    const v = intent(wt, ['verify', '--json']);
    expect(v.status, v.stdout + v.stderr).toBe(0);
  });

  it('intent doctor: folder trust is off by default; turned on, the worktrees must be trusted, or Qwen runs no hook (headless, it then refuses writes itself)', async () => {
    const check = (h: string) => JSON.parse(intent(repo, ['doctor', '--json'], { HOME: h }).stdout).checks.find((c: any) => c.subject === 'qwen trust');
    expect(check(home)).toMatchObject({ ok: true, message: expect.stringContaining('folder trust is off') });
    const strict = join(dirname(home), 'strict-home');
    mkdirSync(join(strict, '.qwen'), { recursive: true });
    writeFileSync(join(strict, '.qwen', 'settings.json'), JSON.stringify({ security: { folderTrust: { enabled: true } }, $version: 4 }));
    expect(check(strict)).toMatchObject({ ok: false, message: expect.stringContaining(`"${dirname(wt)}": "TRUST_FOLDER"`) });
    const untrusted = await runQwen(wt, `${UNTRUSTED}: write`, strict, bin, api.url);
    expect(untrusted.code, untrusted.stderr).toBe(0);
    expect(untrusted.stderr).toContain('Approval mode overridden to "default" because the current folder is not trusted');
    expect(told(0, UNTRUSTED)).not.toContain('intent:');
    expect(told(0, UNTRUSTED)).toContain('permission was declined');
    writeFileSync(join(strict, '.qwen', 'trustedFolders.json'), JSON.stringify({ [dirname(wt)]: 'TRUST_FOLDER' }));
    expect(check(strict)).toMatchObject({ ok: true });
    const trusted = await runQwen(wt, `${TRUSTED}: write`, strict, bin, api.url);
    expect(trusted.code, trusted.stderr).toBe(0);
    // The hook ran: this new session has not made its handshake, so the write is refused.
    expect(told(0, TRUSTED)).toContain('intent: You must cite a valid active Intent ID.');
    expect(existsSync(join(wt, 'docs/trusted.md'))).toBe(false);
  }, 180_000);

  it('the handshake through `intent mcp` as Qwen\'s MCP server: select_active_intent, then the write is staged', async () => {
    const mcpHome = join(dirname(home), 'mcp-home');
    mkdirSync(join(mcpHome, '.qwen'), { recursive: true });
    writeFileSync(join(mcpHome, '.qwen', 'settings.json'), JSON.stringify({ mcpServers: { intent: { command: process.execPath, args: [CLI, 'mcp'] } }, $version: 4 }));
    const r = await runQwen(wt, `${MCP}: select, then write`, mcpHome, bin, api.url);
    expect(r.code, r.stderr).toBe(0);
    expect(told(0, MCP)).toContain('<intent_context');
    expect(told(0, MCP)).toContain('this session works on INT-001 now');
    expect(told(1, MCP)).toContain(`staged src/mcp.ts under INT-001 (1 line credited to qwen/${MODEL})`);
    git(wt, 'commit', '-q', '-m', 'via MCP');
  }, 180_000);

  it('leaves the worktree clean: Qwen did not rewrite the .qwen/settings.json intent wrote', () => {
    expect(git(wt, 'status', '--porcelain')).toBe('');
    expect(JSON.parse(readFileSync(join(wt, '.qwen', 'settings.json'), 'utf8')).$version).toBe(4);
    expect(git(repo, 'status', '--porcelain', '--', '.qwen')).toBe('');
    const doctor = JSON.parse(intent(repo, ['doctor', '--json'], { HOME: home }).stdout);
    expect(doctor.checks.find((c: any) => c.subject === 'agent .qwen/settings.json')).toMatchObject({ ok: true, message: 'committed, the same in every intent worktree' });
  });
});
