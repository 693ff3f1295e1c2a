// End to end with the real Factory droid (the version pinned in scripts/droid-e2e.mjs), headless
// (`droid exec --auto high -m custom:mock-0 -o json`) against a scripted mock of the Chat
// Completions API on 127.0.0.1 (test/e2e/openai-mock.mjs), with no Factory login: air-gapped mode
// (FACTORY_AIRGAP_ENABLED=1) and a custom model ("bring your own key") in ~/.factory/settings.json;
// Factory's own API and telemetry addresses point at the mock too, so nothing leaves loopback. The
// hooks are the ones `intent init --agent droid` registers (`.factory/settings.json`). The
// assertions are on what the model was told (the tool results droid sent back to the mock), on the
// files and on the commit's note. In CI (CI set) a missing CLI fails the file; elsewhere the file
// is skipped when the CLI is not installed (`node scripts/droid-e2e.mjs install`).
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, git, intent, noteOf, spawnAsync } from '../helpers.js';

type CliRun = Awaited<ReturnType<typeof spawnAsync>>;
// @ts-expect-error: a plain ES module without types
import { startOpenAiMock } from './openai-mock.mjs';
import { agentFixture, aiCredit } from './agent-cli.js';
// @ts-expect-error: a plain ES module without types
import { DROID_VERSION, droid } from '../../scripts/droid-e2e.mjs';

const ready: boolean = droid.ready();
if (!ready && process.env.CI) {
  throw new Error(`Factory droid ${DROID_VERSION} is not installed at ${droid.bin()}: run \`node scripts/droid-e2e.mjs install\` (.ci/run does).`);
}

const MAIN = 'E2E-DROID-MAIN-4c8';
const MCP = 'E2E-DROID-MCP-7e2';
const MODEL = 'mock-coder';
/** What droid's Execute tool requires beside the command. */
const RISK = { riskLevelReason: 'This only changes files of the project.', riskLevel: 'low' };

interface DroidRun extends CliRun {
  result: any;
}

/** Runs `droid exec` in `cwd` against the mock, with its own home (settings, sessions). */
async function runDroid(cwd: string, prompt: string, home: string, bin: string, url: string): Promise<DroidRun> {
  const r = await spawnAsync(droid.bin(), ['exec', '--auto', 'high', '-m', 'custom:mock-0', '-o', 'json', prompt], cwd, {
    HOME: home, PATH: `${bin}:${process.env.PATH}`, NO_COLOR: '1',
    FACTORY_AIRGAP_ENABLED: '1', FACTORY_API_BASE_URL: url, FACTORY_TELEMETRY_INGEST_BASE_URL: url,
    FACTORY_DROID_AUTO_UPDATE_ENABLED: 'false', FACTORY_DISABLE_KEYRING: '1',
  });
  let result: any = null;
  try {
    result = JSON.parse(r.stdout);
  } catch { /* reported by the caller's assertions */ }
  return { ...r, result };
}

describe.skipIf(!ready)(`Factory droid ${DROID_VERSION}, real CLI`, () => {
  let api: any;
  let wt: string;
  let home: string;
  let bin: string;
  let run: DroidRun;
  const paths: string[] = [];
  /** What the model was told for the n-th tool call of the conversation. */
  const told = (n: number, marker = MAIN): string => {
    const id = api.calls.get(marker)?.[n];
    const r = id ? api.results.get(id) : undefined;
    if (!r) throw new Error(`no tool result for call ${n}; calls: ${JSON.stringify([...api.calls])}; droid said: ${run?.stdout}${run?.stderr}`);
    return r.text;
  };

  beforeAll(async () => {
    ({ wt, home, bin } = agentFixture('droid', ['src/**'], { 'README.md': '# e2e\n', 'src/a.ts': 'export const a = 1;\n', 'docs/x.md': 'x\n' }));
    const f = (p: string) => join(wt, p);
    const shell = (command: string, summary: string) => ({ tools: [{ name: 'Execute', input: { summary, command, ...RISK } }] });
    const steps = [
      // 0: a write before the handshake is refused
      { tools: [{ name: 'Create', input: { file_path: f('src/new.ts'), content: 'export const fresh = 1;\nexport const two = 2;\n' } }] },
      // 1: the handshake
      shell('intent context INT-001', 'Load the intent context'),
      // 2: now the write goes through
      { tools: [{ name: 'Create', input: { file_path: f('src/new.ts'), content: 'export const fresh = 1;\nexport const two = 2;\n' } }] },
      // 3: out of scope
      { tools: [{ name: 'Create', input: { file_path: f('docs/new.md'), content: '# nope\n' } }] },
      // 4: an edit in the scope
      { tools: [{ name: 'Edit', input: { file_path: f('src/a.ts'), old_str: 'a = 1', new_str: 'a = 10' } }] },
      // 5: a shell write in the scope
      shell("printf 'export const viaShell = 3;\\n' >> src/b.ts", 'Append a line to b'),
      // 6: a commit in the agent's shell (Droid Shield wants it apart from staging)
      shell("git commit -q -m 'work by droid'", 'Commit the staged work'),
      { text: 'all done' },
    ];
    const viaMcp = [
      { tools: [{ name: 'intent___select_active_intent', input: { intent_id: 'INT-001' } }] },
      { tools: [{ name: 'Create', input: { file_path: f('src/mcp.ts'), content: 'export const viaMcp = 1;\n' } }] },
      { text: 'done' },
    ];
    api = await startOpenAiMock({ [MAIN]: steps, [MCP]: viaMcp }, { log: (r: { path: string }) => paths.push(r.path) });
    mkdirSync(join(home, '.factory'));
    writeFileSync(join(home, '.factory', 'settings.json'), JSON.stringify({
      customModels: [{ model: MODEL, displayName: 'mock', provider: 'generic-chat-completion-api', baseUrl: `${api.url}/v1`, apiKey: 'dummy', maxOutputTokens: 4096 }],
    }));
    run = await runDroid(wt, `${MAIN}: do the work`, home, bin, api.url);
    if (process.env.DUMP_E2E) writeFileSync(process.env.DUMP_E2E, JSON.stringify([...api.results], null, 1));
  }, 240_000);

  afterAll(async () => {
    await api?.close();
  });

  it('ran the whole scripted session with no login, talking only to the mock', () => {
    expect(run.code, run.stderr + run.stdout).toBe(0);
    expect(run.result?.result).toBe('all done');
    expect(api.calls.get(MAIN)).toHaveLength(7);
    expect(new Set(paths)).toEqual(new Set(['POST /v1/chat/completions']));
  });

  it('refuses writes until the session ran `intent context`, which hands the model the context block', () => {
    expect(told(0)).toContain('Error: intent: You must cite a valid active Intent ID.');
    expect(told(0)).toContain('intent context INT-001');
    expect(told(1)).toContain('<intent_context');
    expect(told(1)).toContain('this session works on INT-001 now');
  });

  it('stages and credits an in-scope Create and Edit to the custom model the session runs', () => {
    expect(told(2)).toContain(`staged src/new.ts under INT-001 (2 lines credited to custom/${MODEL})`);
    expect(told(4)).toContain(`staged src/a.ts under INT-001 (1 line credited to custom/${MODEL})`);
  });

  it('refuses an out-of-scope write before it lands, and tells the model why', () => {
    expect(told(3)).toContain('Scope Violation: INT-001 is not authorized to edit docs/new.md');
    expect(existsSync(join(wt, 'docs/new.md'))).toBe(false);
  });

  it('stages what a shell command wrote in the scope, credited to the model', () => {
    expect(told(5)).toContain(`the command changed src/b.ts (1 line credited to custom/${MODEL}): staged.`);
  });

  it('a commit in the agent\'s shell runs the hooks: its note credits the model, and intent verify is clean', () => {
    expect(git(wt, 'log', '-1', '--format=%s')).toBe('work by droid\n');
    const record = noteOf(wt)!.record;
    const url = expect.stringMatching(/^droid:\/\/session\/[0-9a-f-]+$/);
    expect(aiCredit(record, 'src/new.ts')).toEqual([{ model: `custom/${MODEL}`, lines: [[1, 2]], url }]);
    expect(aiCredit(record, 'src/a.ts')).toEqual([{ model: `custom/${MODEL}`, lines: [[1, 1]], url }]);
    expect(aiCredit(record, 'src/b.ts')).toEqual([{ model: `custom/${MODEL}`, lines: [[1, 1]], url }]);
    const v = intent(wt, ['verify', '--json']);
    expect(v.status, v.stdout + v.stderr).toBe(0);
    expect(git(wt, 'status', '--porcelain')).toBe('');
  });

  it('the handshake through `intent mcp` as droid\'s MCP server (~/.factory/mcp.json): select_active_intent, then the write is staged', async () => {
    writeFileSync(join(home, '.factory', 'mcp.json'), JSON.stringify({ mcpServers: { intent: { type: 'stdio', command: process.execPath, args: [CLI, 'mcp'] } } }));
    const r = await runDroid(wt, `${MCP}: select, then write`, home, bin, api.url);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(told(0, MCP)).toContain('<intent_context');
    expect(told(0, MCP)).toContain('this session works on INT-001 now');
    expect(told(1, MCP)).toContain(`staged src/mcp.ts under INT-001 (1 line credited to custom/${MODEL})`);
  }, 180_000);
});
