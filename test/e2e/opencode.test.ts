// End to end with the real OpenCode (the version pinned in scripts/opencode-e2e.mjs), headless
// (`opencode run --format json`) against a scripted Chat Completions mock on 127.0.0.1
// (test/e2e/openai-mock.mjs, through OpenCode's bundled `@ai-sdk/openai-compatible`). The
// governance is the plugin `intent init --agent opencode` writes (`.opencode/plugin/intent.js`),
// committed and so checked out in INT-001's worktree; OpenCode loads it with no trust step. HOME
// and the XDG folders are the test's own. The assertions are on what the model was told (the tool
// results OpenCode sent back to the mock), on the files and on the commit's note. In CI (CI set) a
// missing CLI fails the file; elsewhere the file is skipped when the CLI is not installed
// (`node scripts/opencode-e2e.mjs install`).
//
// OPENCODE_CAPTURE=<dir> also records the hook inputs OpenCode gave the plugins (a second,
// logging plugin in the test's global config) and the payloads our plugin sent the runner (a
// logging runner in front of the real one), for test/fixtures/opencode/.
import { chmodSync, existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, git, intent, noteOf, spawnAsync } from '../helpers.js';
// @ts-expect-error: a plain ES module without types
import { startOpenAiMock } from './openai-mock.mjs';
import { agentFixture, aiCredit } from './agent-cli.js';
// @ts-expect-error: a plain ES module without types
import { OPENCODE_VERSION, opencode } from '../../scripts/opencode-e2e.mjs';

type CliRun = Awaited<ReturnType<typeof spawnAsync>>;

const ready: boolean = opencode.ready();
if (!ready && process.env.CI) {
  throw new Error(`OpenCode ${OPENCODE_VERSION} is not installed at ${opencode.bin()}: run \`node scripts/opencode-e2e.mjs install\` (.ci/run does).`);
}

const MAIN = 'E2E-OPENCODE-MAIN-7c2';
const PATCH = 'E2E-OPENCODE-PATCH-4d8';
const MODEL = 'mock/m';
/** A model id with "gpt-" in it: OpenCode gives such models apply_patch instead of write and edit. */
const GPT = 'mock/gpt-5-mock';

/** A plugin that logs every hook input OpenCode hands it (capture runs only). */
const CAPTURE_PLUGIN = (log: string) => `import { appendFileSync } from 'node:fs';
const log = (hook, input, output) => appendFileSync(${JSON.stringify(log)}, JSON.stringify({ hook, input, output }) + '\\n');
export const Capture = async (ctx) => {
  log('init', { directory: ctx.directory, worktree: ctx.worktree, project: ctx.project, keys: Object.keys(ctx) }, {});
  return {
    'chat.params': async (input, output) => log('chat.params', { sessionID: input.sessionID, agent: input.agent, model: input.model, message: input.message, provider: Object.keys(input.provider ?? {}) }, output),
    'tool.execute.before': async (input, output) => log('tool.execute.before', input, output),
    'tool.execute.after': async (input, output) => log('tool.execute.after', input, output),
    'shell.env': async (input, output) => log('shell.env', input, output),
  };
};
`;

describe.skipIf(!ready)(`OpenCode ${OPENCODE_VERSION}, real CLI`, () => {
  let api: any;
  let repo: string;
  let wt: string;
  let home: string;
  let run: CliRun;
  let patchRun: CliRun;
  /** What the model was told for the n-th tool call of the conversation. */
  const told = (n: number, marker = MAIN): string => {
    const id = api.calls.get(marker)?.[n];
    const r = id ? api.results.get(id) : undefined;
    if (!r) throw new Error(`no tool output for call ${n}; calls: ${JSON.stringify([...api.calls])}; opencode said: ${run?.stdout}${run?.stderr}`);
    return r.text;
  };

  beforeAll(async () => {
    let bin = '';
    ({ repo, wt, home, bin } = agentFixture('opencode', ['src/**'], { 'README.md': '# e2e\n', 'package.json': '{"name":"e2e","version":"1.0.0","scripts":{"lint":"intent reset INT-001 --yes"}}\n', 'src/a.ts': 'export const a = 1;\n', 'docs/x.md': 'x\n' }));
    const capture = process.env.OPENCODE_CAPTURE;
    const config = join(home, '.config');
    mkdirSync(join(config, 'opencode'), { recursive: true });
    if (capture) {
      mkdirSync(capture, { recursive: true });
      mkdirSync(join(config, 'opencode', 'plugin'));
      writeFileSync(join(config, 'opencode', 'plugin', 'capture.js'), CAPTURE_PLUGIN(join(capture, 'hook-inputs.jsonl')));
      const runner = join(repo, '.git', 'intent', 'bin', 'agent');
      renameSync(runner, runner + '.real');
      writeFileSync(runner, `#!/bin/sh\nin="$(cat)"\nprintf '%s\\n' "$in" >> '${join(capture, 'payloads.jsonl')}'\nprintf '%s' "$in" | '${runner}.real' "$@" | tee -a '${join(capture, 'answers.jsonl')}'\n`);
      chmodSync(runner, 0o755);
    }
    const steps = [
      // 0: a command that writes nothing: the environment OpenCode's shell gets
      { tools: [{ name: 'bash', input: { command: "env | grep -E '^(OPENCODE|AGENT)' | sort; npm run lint || true", description: 'show env' } }] },
      // 1: a write before the handshake is refused
      { tools: [{ name: 'write', input: { filePath: 'src/new.ts', content: 'export const fresh = 1;\nexport const two = 2;\n' } }] },
      // 2: the handshake
      { tools: [{ name: 'bash', input: { command: 'intent context INT-001', description: 'intent context' } }] },
      // 3: now the write goes through
      { tools: [{ name: 'write', input: { filePath: 'src/new.ts', content: 'export const fresh = 1;\nexport const two = 2;\n' } }] },
      // 4: an edit of a file read first (the stale check's read)
      { tools: [{ name: 'read', input: { filePath: 'src/a.ts' } }] },
      { tools: [{ name: 'edit', input: { filePath: 'src/a.ts', oldString: 'export const a = 1;', newString: 'export const a = 10;' } }] },
      // 6: out of scope
      { tools: [{ name: 'write', input: { filePath: 'docs/new.md', content: '# nope\n' } }] },
      // 7: a shell write in the scope
      { tools: [{ name: 'bash', input: { command: "printf 'export const viaShell = 3;\\n' >> src/a.ts", description: 'append' } }] },
      // 8: a shell command outside the worktree
      { tools: [{ name: 'bash', input: { command: 'touch escaped.txt', workdir: '..', description: 'outside' } }] },
      // 9: a commit in the agent's shell
      { tools: [{ name: 'bash', input: { command: "git commit -q -m 'work by OpenCode'", description: 'commit' } }] },
      { text: 'all done' },
    ];
    const patch = (text: string) => ({ tools: [{ name: 'apply_patch', input: { patchText: text } }] });
    api = await startOpenAiMock({
      [MAIN]: steps,
      [PATCH]: [
        // The handshake through `intent mcp` (OpenCode names an MCP tool <server>_<tool>)
        { tools: [{ name: 'intent_select_active_intent', input: { intent_id: 'INT-001' } }] },
        patch('*** Begin Patch\n*** Add File: src/patched.ts\n+export const p = 1;\n*** End Patch'),
        patch('*** Begin Patch\n*** Add File: src/also.ts\n+x\n*** Update File: docs/x.md\n@@\n-x\n+y\n*** End Patch'),
        { text: 'patched' },
      ],
    // OpenCode asks for each session's title in a request of its own (no tools, the prompt in it): not a step.
    }, { toolless: 'aside' });
    writeFileSync(join(config, 'opencode', 'opencode.json'), JSON.stringify({
      $schema: 'https://opencode.ai/config.json',
      provider: { mock: { npm: '@ai-sdk/openai-compatible', options: { baseURL: `${api.url}/v1`, apiKey: 'x' }, models: { m: { tool_call: true }, 'gpt-5-mock': { tool_call: true } } } },
      model: MODEL,
      mcp: { intent: { type: 'local', command: [process.execPath, CLI, 'mcp'] } },
    }, null, 2));
    // OpenCode takes its directory from $PWD, not from the process's cwd: both name the worktree.
    const env = {
      PWD: wt,
      HOME: home,
      XDG_CONFIG_HOME: config,
      XDG_DATA_HOME: join(home, '.local', 'share'),
      XDG_CACHE_HOME: join(home, '.cache'),
      XDG_STATE_HOME: join(home, '.local', 'state'),
      // OpenCode installs @opencode-ai/plugin into each config folder at start (npm): one cache for every run.
      npm_config_cache: join(opencode.dir(), 'npm-cache'),
      PATH: `${bin}:${process.env.PATH}`,
      OPENCODE_DISABLE_MODELS_FETCH: '1',
      OPENCODE_DISABLE_AUTOUPDATE: '1',
      OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
      OPENCODE_DISABLE_DEFAULT_PLUGINS: '1',
      NO_COLOR: '1',
    };
    run = await spawnAsync(opencode.bin(), ['run', '--format', 'json', '--dir', wt, `${MAIN}: do the work`], wt, env);
    patchRun = await spawnAsync(opencode.bin(), ['run', '--format', 'json', '--dir', wt, '--model', GPT, `${PATCH}: patch it`], wt, env);
    if (process.env.DUMP_E2E) writeFileSync(process.env.DUMP_E2E, JSON.stringify({ results: [...api.results.values()], stdout: run.stdout, stderr: run.stderr }, null, 1));
  }, 300_000);

  afterAll(async () => {
    await api?.close();
  });

  it('ran the whole scripted session', () => {
    expect(run.code, run.stderr + run.stdout).toBe(0);
    expect(api.calls.get(MAIN)).toHaveLength(10);
    expect(run.stdout).toContain('all done');
  });

  it('intent reset run in OpenCode\'s shell (through a project script) is refused: the shell carries OPENCODE=1', () => {
    expect(told(0)).toContain('Refused: intent reset looks like it comes from an agent process (OPENCODE=1 is set (an OpenCode shell))');
  });

  it("OpenCode's shell has OPENCODE=1 and OPENCODE_PID", () => {
    expect(told(0)).toMatch(/^OPENCODE=1$/m);
    expect(told(0)).toMatch(/^OPENCODE_PID=\d+$/m);
  });

  it('refuses writes until the session ran `intent context`, which hands the model the context block', () => {
    expect(told(1)).toContain('You must cite a valid active Intent ID.');
    expect(told(1)).toContain('intent context INT-001');
    expect(told(2)).toContain('<intent_context');
    expect(told(2)).toContain('this session works on INT-001 now');
  });

  it("stages and credits in-scope writes and edits to the session's model (from chat.params)", () => {
    expect(told(3)).toContain(`staged src/new.ts under INT-001 (2 lines credited to ${MODEL})`);
    expect(told(5)).toContain(`staged src/a.ts under INT-001 (1 line credited to ${MODEL})`);
  });

  it('refuses an out-of-scope write before it lands, and tells the model why', () => {
    expect(told(6)).toContain('Scope Violation: INT-001 is not authorized to edit docs/new.md');
    expect(existsSync(join(wt, 'docs/new.md'))).toBe(false);
  });

  it('stages what a shell command wrote in the scope, credited to the model', () => {
    // Two: the file's model lines so far (the edit's line 1 and the command's line 2).
    expect(told(7)).toContain(`the command changed src/a.ts (2 lines credited to ${MODEL}): staged.`);
  });

  it('refuses a shell command whose workdir is outside the worktree', () => {
    expect(told(8)).toContain('outside this session\'s worktree');
    expect(existsSync(join(wt, '..', 'escaped.txt'))).toBe(false);
  });

  it('a GPT-class model gets apply_patch (after a handshake through the MCP tool): a patch in the scope is staged and credited, one that touches a file outside it is refused whole', () => {
    expect(patchRun.code, patchRun.stderr + patchRun.stdout).toBe(0);
    // The handshake was the MCP tool: the note is appended to its content.
    expect(told(0, PATCH)).toContain('this session works on INT-001 now');
    expect(told(1, PATCH)).toContain(`staged src/patched.ts under INT-001 (1 line credited to ${GPT})`);
    expect(told(2, PATCH)).toContain('Scope Violation: INT-001 is not authorized to edit docs/x.md');
    expect(existsSync(join(wt, 'src/also.ts'))).toBe(false);
    expect(git(wt, 'diff', '--cached', '--name-only')).toContain('src/patched.ts');
  });

  it("a commit in the agent's shell runs the hooks: its note credits the model, and intent verify is clean", () => {
    expect(git(wt, 'log', '-1', '--format=%s')).toBe('work by OpenCode\n');
    const record = noteOf(wt)!.record;
    const url = expect.stringMatching(/^opencode:\/\/session\/ses_[A-Za-z0-9]+$/);
    expect(aiCredit(record, 'src/new.ts')).toEqual([{ model: MODEL, lines: [[1, 2]], url }]);
    expect(aiCredit(record, 'src/a.ts')).toEqual([{ model: MODEL, lines: [[1, 2]], url }]);
    const v = intent(wt, ['verify', '--json']);
    expect(v.status, v.stdout + v.stderr).toBe(0);
  });
});
