// End to end with the real Codex CLI (the version pinned in scripts/codex-e2e.mjs), headless
// (`codex exec --json`) against a scripted mock of the Responses API on 127.0.0.1
// (test/e2e/responses-mock.mjs). The hooks are the ones `intent init --agent codex` registers
// (`.codex/hooks.json`); the project is trusted in the test's own CODEX_HOME and the hook review is
// bypassed (`--dangerously-bypass-hook-trust`), as automation would. The assertions are on what
// the model was told (the tool outputs Codex sent back to the mock), on the files and on the
// commit's note. In CI (CI set) a missing CLI fails the file; elsewhere the file is skipped when the
// CLI is not installed (`node scripts/codex-e2e.mjs install`).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, git, intent, noteOf, PKG_ROOT, spawnAsync } from '../helpers.js';

type CliRun = Awaited<ReturnType<typeof spawnAsync>>;
// @ts-expect-error: a plain ES module without types
import { startResponsesMock } from './responses-mock.mjs';
import { agentFixture, aiCredit } from './agent-cli.js';
// @ts-expect-error: a plain ES module without types
import { CODEX_VERSION, codex } from '../../scripts/codex-e2e.mjs';

const ready: boolean = codex.ready();
if (!ready && process.env.CI) {
  throw new Error(`Codex ${CODEX_VERSION} is not installed at ${codex.bin()}: run \`node scripts/codex-e2e.mjs install\` (.ci/run does).`);
}

const MAIN = 'E2E-CODEX-MAIN-3a1';
const REVIEWED = 'E2E-CODEX-REVIEWED-5e9';

/**
 * Codex's own list of the hooks it found for `cwd` (`codex app-server`, JSON-RPC `hooks/list`):
 * each with its trust key and current hash, what its /hooks review records as trusted.
 */
function listHooks(cwd: string, home: string): Promise<{ key: string; currentHash: string; trustStatus: string }[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(codex.bin(), ['app-server'], { cwd, env: { ...process.env, HOME: home, CODEX_HOME: join(home, '.codex') }, stdio: ['pipe', 'pipe', 'ignore'] });
    let buf = '';
    child.stdin.on('error', () => { /* it was stopped after its answer */ });
    const timer = setTimeout(() => { child.kill(); reject(new Error(`codex app-server gave no hooks/list answer: ${buf}`)); }, 60_000);
    child.stdout.on('data', (d) => {
      buf += d;
      for (const line of buf.split('\n')) {
        let m: any;
        try { m = JSON.parse(line); } catch { continue; }
        if (m.id === 1) {
          child.stdin.write(JSON.stringify({ jsonrpc: '2.0', method: 'initialized' }) + '\n');
          child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'hooks/list', params: { cwds: [cwd] } }) + '\n');
        }
        if (m.id === 2) {
          clearTimeout(timer);
          child.kill();
          resolve(m.result.data.flatMap((d: any) => d.hooks));
        }
      }
    });
    child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { clientInfo: { name: 'intent-e2e', version: '0' } } }) + '\n');
  });
}
const MODEL = 'gpt-5.5';

/** Runs `codex exec` in `cwd` against the mock, with its own CODEX_HOME. */
function runCodex(cwd: string, prompt: string, home: string, bypassHookTrust = true): Promise<CliRun> {
  const args = ['exec', '--json', ...(bypassHookTrust ? ['--dangerously-bypass-hook-trust'] : []), '--dangerously-bypass-approvals-and-sandbox', '--skip-git-repo-check', prompt];
  return spawnAsync(codex.bin(), args, cwd, { HOME: home, CODEX_HOME: join(home, '.codex'), MOCK_API_KEY: 'dummy', NO_COLOR: '1' });
}

describe.skipIf(!ready)(`Codex CLI ${CODEX_VERSION}, real CLI`, () => {
  let api: any;
  let repo: string;
  let wt: string;
  let home: string;
  let run: CliRun;
  /** What the model was told for the n-th tool call of the conversation. */
  const told = (n: number): string => {
    const id = api.calls.get(MAIN)?.[n];
    const r = id ? api.results.get(id) : undefined;
    if (!r) throw new Error(`no tool output for call ${n}; calls: ${JSON.stringify([...api.calls])}; codex said: ${run?.stdout}${run?.stderr}`);
    return r.text;
  };

  beforeAll(async () => {
    let bin = '';
    ({ repo, wt, home, bin } = agentFixture('codex', ['src/**'], { 'README.md': '# e2e\n', 'package.json': '{"name":"e2e","version":"1.0.0","scripts":{"lint":"intent reset INT-001 --yes"}}\n', 'src/a.ts': 'export const a = 1;\n', 'docs/x.md': 'x\n' }));
    mkdirSync(join(home, '.codex'));
    // Codex runs commands in a login shell (bash -lc), whose profile sets PATH: ours adds the folder with intent.
    writeFileSync(join(home, '.bash_profile'), `export PATH='${bin}':"$PATH"\n`);

    const steps = [
      // 0: a write before the handshake is refused
      { tools: [{ name: 'apply_patch', input: '*** Begin Patch\n*** Add File: src/new.ts\n+export const fresh = 1;\n+export const two = 2;\n*** End Patch\n' }] },
      // 1: the handshake
      { tools: [{ name: 'exec_command', args: { cmd: 'intent context INT-001' } }] },
      // 2: now the write goes through
      { tools: [{ name: 'apply_patch', input: '*** Begin Patch\n*** Add File: src/new.ts\n+export const fresh = 1;\n+export const two = 2;\n*** End Patch\n' }] },
      // 3: out of scope
      { tools: [{ name: 'apply_patch', input: '*** Begin Patch\n*** Add File: docs/new.md\n+# nope\n*** End Patch\n' }] },
      // 4: a shell write in the scope
      { tools: [{ name: 'exec_command', args: { cmd: "printf 'export const viaShell = 3;\\n' >> src/a.ts" } }] },
      // 5: a commit in the agent's shell
      { tools: [{ name: 'exec_command', args: { cmd: "git commit -q -m 'work by Codex'" } }] },
      // 6: a human's decision through a project script: the shell's marker refuses it
      { tools: [{ name: 'exec_command', args: { cmd: 'npm run lint' } }] },
      { text: 'all done' },
    ];
    api = await startResponsesMock({
      [MAIN]: steps,
      [REVIEWED]: [{ tools: [{ name: 'apply_patch', input: '*** Begin Patch\n*** Add File: docs/reviewed.md\n+# nope\n*** End Patch\n' }] }, { text: 'done' }],
    });
    writeFileSync(join(home, '.codex', 'config.toml'), [
      `model_provider = "mock"`,
      `model = "${MODEL}"`,
      `[model_providers.mock]`,
      `name = "mock"`,
      `base_url = "${api.url}/v1"`,
      `env_key = "MOCK_API_KEY"`,
      `wire_api = "responses"`,
      // Codex trusts a linked worktree through its main checkout (and reads the hooks from there).
      `[projects.${JSON.stringify(repo)}]`,
      `trust_level = "trusted"`,
      // `intent mcp` as Codex's MCP server, with what each side says logged (docs/agents-gemini-codex.md).
      `[mcp_servers.intent]`,
      `command = "sh"`,
      `args = ["-c", ${JSON.stringify(`tee '${join(home, 'mcp-in.log')}' | '${process.execPath}' '${CLI}' mcp | tee '${join(home, 'mcp-out.log')}'`)}]`,
      '',
    ].join('\n'));
    run = await runCodex(wt, `${MAIN}: do the work`, home);
    if (process.env.DUMP_E2E) writeFileSync(process.env.DUMP_E2E, JSON.stringify(api.requests, null, 1));
  }, 240_000);

  afterAll(async () => {
    await api?.close();
  });

  it('ran the whole scripted session', () => {
    expect(run.code, run.stderr + run.stdout).toBe(0);
    expect(api.calls.get(MAIN)).toHaveLength(7);
    expect(run.stdout).toContain('all done');
  });

  it('starts `intent mcp` as its MCP server: Codex\'s client is "codex-mcp-client" (test/fixtures/codex/mcp-client.json), and intent answers', () => {
    const lines = (f: string) => readFileSync(join(home, f), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
    const [initialize] = lines('mcp-in.log');
    expect(initialize).toMatchObject({ method: 'initialize', params: { clientInfo: { name: 'codex-mcp-client', version: CODEX_VERSION } } });
    const fixture = JSON.parse(readFileSync(join(PKG_ROOT, 'test', 'fixtures', 'codex', 'mcp-client.json'), 'utf8'));
    expect(initialize.params.protocolVersion).toBe(fixture.client_to_server[0].params.protocolVersion);
    const out = lines('mcp-out.log');
    expect(out[0]).toMatchObject({ id: initialize.id, result: { serverInfo: { name: 'intent' } } });
    expect(out.find((m) => m.result?.tools)?.result.tools.map((t: { name: string }) => t.name)).toContain('select_active_intent');
  });

  it('intent reset run in Codex\'s shell (through a project script) is refused: the shell carries CODEX_THREAD_ID', () => {
    expect(told(6)).toContain('Refused: intent reset looks like it comes from an agent process (CODEX_THREAD_ID is set (a Codex shell))');
  });

  it('refuses writes until the session ran `intent context`, which hands the model the context block', () => {
    expect(told(0)).toContain('You must cite a valid active Intent ID.');
    expect(told(0)).toContain('intent context INT-001');
    expect(told(1)).toContain('<intent_context');
    expect(told(1)).toContain('this session works on INT-001 now');
  });

  it('stages and credits an in-scope apply_patch to the model from the payload', () => {
    expect(told(2)).toContain(`staged src/new.ts under INT-001 (2 lines credited to openai/${MODEL})`);
  });

  it('refuses an out-of-scope apply_patch before it lands, and tells the model why', () => {
    expect(told(3)).toContain('Scope Violation: INT-001 is not authorized to edit docs/new.md');
    expect(existsSync(join(wt, 'docs/new.md'))).toBe(false);
  });

  it('stages what a shell command wrote in the scope, credited to the model', () => {
    expect(told(4)).toContain(`the command changed src/a.ts (1 line credited to openai/${MODEL}): staged.`);
  });

  it('intent doctor tells what trust Codex lacks, and once the hooks are reviewed Codex runs them without the bypass', async () => {
    const before = JSON.parse(intent(repo, ['doctor', '--json'], { HOME: home, CODEX_HOME: join(home, '.codex') }).stdout);
    const check = (r: any, s: string) => r.checks.find((c: any) => c.subject === s);
    expect(check(before, 'codex trust')).toMatchObject({ ok: true });
    expect(check(before, 'codex hook trust')).toMatchObject({ ok: false });
    expect(check(before, 'codex hook trust').message).toContain(`${repo}/.codex/hooks.json:pre_tool_use:0:0`);
    // What Codex's review writes: the hooks' keys (from the main checkout's file, also for the worktree) and hashes.
    const hooks = await listHooks(wt, home);
    expect(hooks.map((h) => h.key).sort()).toEqual([`${repo}/.codex/hooks.json:post_tool_use:0:0`, `${repo}/.codex/hooks.json:pre_tool_use:0:0`]);
    const config = join(home, '.codex', 'config.toml');
    writeFileSync(config, readFileSync(config, 'utf8') + hooks.map((h) => `[hooks.state.${JSON.stringify(h.key)}]\ntrusted_hash = ${JSON.stringify(h.currentHash)}\n`).join(''));
    const after = JSON.parse(intent(repo, ['doctor', '--json'], { HOME: home, CODEX_HOME: join(home, '.codex') }).stdout);
    expect(check(after, 'codex hook trust')).toMatchObject({ ok: true });
    const r = await runCodex(wt, `${REVIEWED}: write`, home, false);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    const id = api.calls.get(REVIEWED)?.[0];
    // The hook ran: this new session has not made its handshake, so the write is refused.
    expect(api.results.get(id)?.text).toContain('Command blocked by PreToolUse hook: intent: You must cite a valid active Intent ID.');
    expect(existsSync(join(wt, 'docs/reviewed.md'))).toBe(false);
  }, 180_000);

  it('a commit in the agent\'s shell runs the hooks: its note credits the model, and intent verify is clean', () => {
    expect(git(wt, 'log', '-1', '--format=%s')).toBe('work by Codex\n');
    const record = noteOf(wt)!.record;
    const url = expect.stringMatching(/^codex:\/\/session\/[0-9a-f-]+$/);
    expect(aiCredit(record, 'src/new.ts')).toEqual([{ model: `openai/${MODEL}`, lines: [[1, 2]], url }]);
    expect(aiCredit(record, 'src/a.ts')).toEqual([{ model: `openai/${MODEL}`, lines: [[2, 2]], url }]);
    const v = intent(wt, ['verify', '--json']);
    expect(v.status, v.stdout + v.stderr).toBe(0);
  });
});
