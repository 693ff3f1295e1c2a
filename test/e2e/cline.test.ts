// End to end with the real Cline CLI (the version pinned in scripts/cline-e2e.mjs), headless
// (`cline --json -t 240 "<prompt>"`) against a scripted mock of an OpenAI-compatible API on
// 127.0.0.1 (test/e2e/openai-mock.mjs; `cline auth -p openai -b <mock>/v1`). The hooks are the
// ones `intent init --agent cline` writes; the assertions are on what the model was told (the tool
// results Cline sent back to the mock), on the files, and on the commits the agent made in its own
// shell. Cline's background hub daemon (it outlives the command) is stopped after the run. In CI
// (CI set) a missing CLI fails the file; elsewhere the file is skipped when the CLI is not
// installed (`node scripts/cline-e2e.mjs install`).
import { createServer, type AddressInfo } from 'node:net';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { git, intent, noteOf, spawnAsync } from '../helpers.js';
import { agentFixture } from './agent-cli.js';
// @ts-expect-error: a plain ES module without types
import { startOpenAiMock } from './openai-mock.mjs';
// @ts-expect-error: a plain ES module without types
import { CLINE_VERSION, clineBin, clineReady } from '../../scripts/cline-e2e.mjs';

const ready: boolean = clineReady();
if (!ready && process.env.CI) {
  throw new Error(`Cline ${CLINE_VERSION} is not installed at ${clineBin()}: run \`node scripts/cline-e2e.mjs install\` (.ci/run does).`);
}

const MAIN = 'E2E-CLINE-MAIN-4a9';
const SUB = 'E2E-CLINE-SUB-d27';
const MODEL = 'openai-compatible/mock-model';

interface Told { toolCallId: string; text: string }
interface Mock {
  url: string;
  results: Map<string, Told>;
  calls: Map<string, string[]>;
  close(): Promise<void>;
}

interface ClineRun { code: number; stdout: string; stderr: string; events: any[] }

/** A TCP port on 127.0.0.1 that was free a moment ago. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/**
 * Runs a command of the Cline CLI with its own home (CLINE_DIR), its own hub port (the default,
 * 25463, is shared by every Cline of the machine: a user's own hub would serve this run, with its
 * own environment) and `bin` first on PATH.
 */
async function cline(cwd: string, args: string[], home: string, bin: string, hubPort: number): Promise<ClineRun> {
  const run = await spawnAsync(clineBin(), args, cwd, { CLINE_DIR: home, HOME: home, CLINE_HUB_PORT: String(hubPort), PATH: `${bin}:${process.env.PATH}` });
  const events = run.stdout.split('\n').filter((l) => l.startsWith('{')).flatMap((l) => {
    try { return [JSON.parse(l)]; } catch { return []; }
  });
  return { ...run, events };
}

/** Stops Cline's hub daemon of `home` (it outlives the command) and waits until it has exited. */
async function stopHub(home: string): Promise<void> {
  const lock = join(home, 'data', 'locks', 'hub', 'production.json');
  if (!existsSync(lock)) return;
  const pid = JSON.parse(readFileSync(lock, 'utf8')).pid as number;
  try { process.kill(pid, 'SIGTERM'); } catch { return; }
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    try { process.kill(pid, 0); } catch { return; }
    await new Promise((r) => setTimeout(r, 100));
  }
  try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ }
}

describe.skipIf(!ready)(`Cline CLI ${CLINE_VERSION}, real CLI`, () => {
  let api: Mock;
  let wt: string;
  let home: string;
  let run: ClineRun;
  /** What the model was told after the n-th tool call of a conversation. */
  const told = (marker: string, n: number): string => {
    const id = api.calls.get(marker)?.[n];
    const r = id ? api.results.get(id) : undefined;
    if (!r) throw new Error(`no tool result for call ${n} of ${marker}; calls: ${JSON.stringify([...api.calls])}; cline said: ${run?.stdout.slice(-3000)}${run?.stderr.slice(-3000)}`);
    return r.text;
  };

  beforeAll(async () => {
    // The hub starts with the PATH given to the first command (bin first) and keeps it.
    let bin = '';
    ({ wt, home, bin } = agentFixture('cline', ['src/auth/**'], { 'README.md': '# e2e\n', 'package.json': '{"name":"e2e","version":"1.0.0","scripts":{"lint":"intent reset INT-001 --yes"}}\n', 'src/auth/a.ts': 'export const a = 1;\n', 'docs/x.md': '# x\n' }));
    api = await startOpenAiMock({
      [MAIN]: [
        // 0: a write before the handshake is refused, softly: the model reads why
        { tools: [{ name: 'editor', input: { path: 'src/auth/early.ts', new_text: 'export const early = 1;\n' } }] },
        // 1: the handshake and a shell write in one call
        { tools: [{ name: 'run_commands', input: { commands: ['intent context INT-001', "printf 'export const s = 1;\\n' > src/auth/shell.ts"] } }] },
        // 2: an in-scope editor write
        { tools: [{ name: 'editor', input: { path: 'src/auth/new.ts', new_text: 'export const n = 1;\nexport const m = 2;\n' } }] },
        // 3: out of scope
        { tools: [{ name: 'editor', input: { path: 'docs/x.md', old_text: '# x', new_text: '# changed' } }] },
        // 4: a bypass
        { tools: [{ name: 'run_commands', input: { commands: ['git commit --no-verify -m bypass'] } }] },
        // 5: the commit, in the agent's shell
        { tools: [{ name: 'run_commands', input: { commands: ['git commit -m "auth: shell and editor writes"'] } }] },
        // 6: a subagent (own taskId, same rootSessionId: it shares the handshake)
        { tools: [{ name: 'spawn_agent', input: { systemPrompt: `You are ${SUB}.`, task: `${SUB}: write src/auth/sub.ts` } }] },
        // 7: its work committed
        { tools: [{ name: 'run_commands', input: { commands: ['git commit -m "auth: the subagent\'s file"'] } }] },
        // 8: a human's decision through a project script: the shell's marker refuses it
        { tools: [{ name: 'run_commands', input: { commands: ['npm run lint'] } }] },
        { text: 'all done' },
      ],
      [SUB]: [
        { tools: [{ name: 'editor', input: { path: 'src/auth/sub.ts', new_text: 'export const bySub = 1;\n' } }] },
        { text: 'sub done' },
      ],
    }) as Mock;
    const hubPort = await freePort();
    try {
      const auth = await cline(wt, ['auth', '-p', 'openai', '-k', 'dummy', '-m', 'mock-model', '-b', `${api.url}/v1`], home, bin, hubPort);
      expect(auth.code, auth.stderr).toBe(0);
      run = await cline(wt, ['--json', '-t', '240', `${MAIN}: do the work`], home, bin, hubPort);
      expect(JSON.parse(readFileSync(join(home, 'data', 'locks', 'hub', 'production.json'), 'utf8')).port).toBe(hubPort);
    } finally {
      await stopHub(home);
    }
  }, 300_000);

  afterAll(async () => {
    await api?.close();
  });

  it('ran the whole scripted session', () => {
    expect(run.code, run.stderr.slice(-3000) + run.stdout.slice(-3000)).toBe(0);
    expect(api.calls.get(MAIN)).toHaveLength(9);
    const result = run.events.find((e) => e.type === 'run_result');
    expect(result?.model).toEqual({ id: 'mock-model', provider: 'openai-compatible' });
  });

  it('intent reset run in the Cline CLI\'s shell (through a project script) is refused: the shell carries CLINE_CONNECTOR_CLI_LAUNCH, not just the user\'s CLINE_DIR', () => {
    expect(told(MAIN, 8)).toContain('Refused: intent reset looks like it comes from an agent process (CLINE_CONNECTOR_CLI_LAUNCH is set (a Cline CLI shell))');
  });

  it('refuses a write before the handshake, before it lands, and tells the model why (no zod error)', () => {
    const r = told(MAIN, 0);
    expect(r).toContain('You must cite a valid active Intent ID.');
    expect(r).toContain('intent context INT-001');
    expect(r).not.toMatch(/Too small|expected string/);
    expect(existsSync(join(wt, 'src/auth/early.ts'))).toBe(false);
  });

  it('the handshake and a shell write in one run_commands: the context block, and the write staged for the model', () => {
    const r = told(MAIN, 1);
    expect(r).toContain('<intent_context');
    expect(r).toContain('this session works on INT-001 now');
    expect(r).toContain(`the command changed src/auth/shell.ts (1 line credited to ${MODEL}): staged.`);
    expect(r).not.toContain('You must cite');
  });

  it('credits an in-scope editor write to the model Cline ran', () => {
    expect(told(MAIN, 2)).toContain(`staged src/auth/new.ts under INT-001 (2 lines credited to ${MODEL})`);
  });

  it('refuses an out-of-scope edit before it lands, with the Scope Violation message', () => {
    const r = told(MAIN, 3);
    expect(r).toContain('Scope Violation: INT-001 is not authorized to edit docs/x.md');
    expect(r).not.toMatch(/Too small|expected string/);
    expect(readFileSync(join(wt, 'docs/x.md'), 'utf8')).toBe('# x\n');
  });

  it('refuses git commit --no-verify', () => {
    expect(told(MAIN, 4)).toContain('--no-verify');
    expect(git(wt, 'log', '--format=%s')).not.toContain('bypass');
  });

  it('the commit the agent made in its shell carries its note, every line credited to the model', () => {
    const subjects = git(wt, 'log', '--format=%s', 'main..HEAD').trim().split('\n');
    expect(subjects).toEqual(['auth: the subagent\'s file', 'auth: shell and editor writes']);
    const first = git(wt, 'rev-list', '--reverse', 'main..HEAD').trim().split('\n')[0];
    const files = noteOf(wt, first)!.record.files as any[];
    const ai = (path: string) => files.find((f) => f.path === path)?.conversations
      .map((c: any) => ({ type: c.contributor.type, model: c.contributor.model_id, url: c.url }));
    expect(ai('src/auth/shell.ts')).toEqual([{ type: 'ai', model: MODEL, url: expect.stringMatching(/^cline:\/\/task\/conv_/) }]);
    expect(ai('src/auth/new.ts')).toEqual([{ type: 'ai', model: MODEL, url: expect.stringMatching(/^cline:\/\/task\/conv_/) }]);
  });

  it('a subagent shares the handshake (same rootSessionId) and its lines are credited under its own task', () => {
    expect(told(SUB, 0)).toContain(`staged src/auth/sub.ts under INT-001 (1 line credited to ${MODEL})`);
    const file = (noteOf(wt)!.record.files as any[]).find((f) => f.path === 'src/auth/sub.ts');
    expect(file.conversations[0].contributor).toEqual({ type: 'ai', model_id: MODEL });
    const first = git(wt, 'rev-list', '--reverse', 'main..HEAD').trim().split('\n')[0];
    const leadUrl = (noteOf(wt, first)!.record.files as any[])[0].conversations[0].url;
    expect(file.conversations[0].url).not.toBe(leadUrl);
  });

  it('intent verify finds nothing wrong in what the agent committed', () => {
    const r = intent(wt, ['verify', 'main..HEAD']);
    expect(r.status, r.stdout + r.stderr).toBe(0);
  });
});
