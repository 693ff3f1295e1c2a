// End to end with the real GitHub Copilot CLI (the version pinned in scripts/copilot-e2e.mjs),
// headless (`copilot -p … --allow-all --no-ask-user --output-format json`) against a scripted mock
// of the Chat Completions API on 127.0.0.1 (test/e2e/openai-mock.mjs, a "bring your own key"
// provider). The hooks are the ones `intent init --agent copilot` registers
// (`.github/hooks/intent.json`); the main checkout is trusted in the test's own
// COPILOT_HOME/config.json (`trustedFolders`), as a user answering Copilot's trust prompt would,
// which covers its intent worktrees. Three repositories: set up for Copilot; for Claude Code and
// Copilot (both hook files: Copilot runs both); for Claude Code only (Copilot runs the Claude Code
// hooks of `.claude/settings.json`). The assertions are on what the model was told (the tool
// results Copilot sent back to the mock), on the files and on the commit's note. In CI (CI set) a
// missing CLI fails the file; elsewhere the file is skipped when the CLI is not installed
// (`node scripts/copilot-e2e.mjs install`).
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { git, intent, noteOf, spawnAsync, tempDir } from '../helpers.js';
// @ts-expect-error: a plain ES module without types
import { startOpenAiMock } from './openai-mock.mjs';
import { agentFixture, aiCredit } from './agent-cli.js';
// @ts-expect-error: a plain ES module without types
import { COPILOT_VERSION, copilot } from '../../scripts/copilot-e2e.mjs';

type CliRun = Awaited<ReturnType<typeof spawnAsync>>;

const ready: boolean = copilot.ready();
if (!ready && process.env.CI) {
  throw new Error(`GitHub Copilot CLI ${COPILOT_VERSION} is not installed at ${copilot.bin()}: run \`node scripts/copilot-e2e.mjs install\` (.ci/run does).`);
}

const MODEL = 'gpt-4.1';
const PATCH_MODEL = 'gpt-5.2-codex';
const URL_RE = /^copilot-cli:\/\/session\/[0-9a-f-]+$/;

/** Copilot's home (COPILOT_HOME under it) with `trusted` in config.json's trustedFolders. */
function copilotHome(home: string, trusted: string[]): string {
  mkdirSync(join(home, '.copilot'), { recursive: true });
  writeFileSync(join(home, '.copilot', 'config.json'), JSON.stringify({ trustedFolders: trusted }, null, 2) + '\n');
  return home;
}

/** Runs `copilot -p` in `cwd` against the mock, with its own home and `intent` on its PATH. */
function runCopilot(cwd: string, prompt: string, o: { home: string; bin: string; url: string; model?: string; args?: string[]; env?: Record<string, string> }): Promise<CliRun> {
  return spawnAsync(copilot.bin(), ['-p', prompt, '--allow-all', '--no-ask-user', '--output-format', 'json', ...(o.args ?? [])], cwd, {
    HOME: o.home,
    COPILOT_HOME: join(o.home, '.copilot'),
    PATH: `${o.bin}:${process.env.PATH}`,
    COPILOT_PROVIDER_BASE_URL: `${o.url}/v1`,
    COPILOT_PROVIDER_API_KEY: 'x',
    COPILOT_MODEL: o.model ?? MODEL,
    COPILOT_OFFLINE: 'true',
    COPILOT_AUTO_UPDATE: 'false',
    COPILOT_ALLOW_ALL: '',
    NO_COLOR: '1',
    ...o.env,
  });
}

/** What the model was told for the n-th tool call of the conversation `marker`. */
function toldIn(api: any, marker: string, run: () => CliRun | undefined): (n: number) => string {
  return (n) => {
    const id = api.calls.get(marker)?.[n];
    const r = id ? api.results.get(id) : undefined;
    if (!r) throw new Error(`no tool result for call ${n} of ${marker}; calls: ${JSON.stringify([...api.calls])}; copilot said: ${run()?.stdout}${run()?.stderr}`);
    return r.text as string;
  };
}

const count = (text: string, part: string) => text.split(part).length - 1;

describe.skipIf(!ready)(`GitHub Copilot CLI ${COPILOT_VERSION}, real CLI, intent init --agent copilot`, () => {
  const MAIN = 'E2E-COPILOT-MAIN-7c2';
  const PATCH = 'E2E-COPILOT-PATCH-2d8';
  const UNTRUSTED = 'E2E-COPILOT-UNTRUSTED-9f1';
  const FLAG = 'E2E-COPILOT-FLAG-4b6';
  let api: any;
  let repo: string;
  let wt: string;
  let home: string;
  let bin: string;
  let run: CliRun;
  const told = (n: number) => toldIn(api, MAIN, () => run)(n);

  beforeAll(async () => {
    ({ repo, wt, home, bin } = agentFixture('copilot', ['src/**'], { 'README.md': '# e2e\n', 'package.json': '{"name":"e2e","version":"1.0.0","scripts":{"lint":"intent reset INT-001 --yes"}}\n', 'src/a.ts': 'export const a = 1;\n', 'docs/x.md': 'x\n' }));
    copilotHome(home, [repo]);
    const p = (rel: string) => join(wt, rel);
    api = await startOpenAiMock({
      [MAIN]: [
        // 0: a write before the handshake is refused
        { tools: [{ name: 'create', input: { path: p('src/new.ts'), file_text: 'export const fresh = 1;\nexport const two = 2;\n' } }] },
        // 1: the handshake
        { tools: [{ name: 'bash', input: { command: 'intent context INT-001', description: 'intent context' } }] },
        // 2, 3: now the writes go through
        { tools: [{ name: 'create', input: { path: p('src/new.ts'), file_text: 'export const fresh = 1;\nexport const two = 2;\n' } }] },
        { tools: [{ name: 'edit', input: { path: p('src/a.ts'), old_str: 'export const a = 1;', new_str: 'export const a = 2;' } }] },
        // 4: out of scope
        { tools: [{ name: 'create', input: { path: p('docs/new.md'), file_text: '# nope\n' } }] },
        // 5: a shell write in the scope
        { tools: [{ name: 'bash', input: { command: "printf 'export const viaShell = 3;\\n' >> src/a.ts", description: 'append' } }] },
        // 6: what the shell's environment says about the agent
        { tools: [{ name: 'bash', input: { command: 'env | grep -E "^COPILOT_(CLI|AGENT_SESSION_ID)=" | sort; npm run lint || true', description: 'env' } }] },
        // 7: a commit in the agent's shell
        { tools: [{ name: 'bash', input: { command: "git commit -q -m 'work by Copilot'", description: 'commit' } }] },
        // 8: a command a human must approve: nobody to ask in a headless run
        { tools: [{ name: 'bash', input: { command: 'rm docs/x.md', description: 'remove' } }] },
        { text: 'all done' },
      ],
      [PATCH]: [
        { tools: [{ name: 'bash', input: { command: 'intent context INT-001', description: 'intent context' } }] },
        { tools: [{ name: 'apply_patch', input: `*** Begin Patch\n*** Add File: ${p('src/patched.ts')}\n+export const p = 1;\n+export const q = 2;\n*** End Patch\n` }] },
        { tools: [{ name: 'apply_patch', input: `*** Begin Patch\n*** Add File: ${p('docs/patched.md')}\n+# nope\n*** End Patch\n` }] },
        { text: 'patched' },
      ],
      [UNTRUSTED]: [{ tools: [{ name: 'create', input: { path: p('docs/untrusted.md'), file_text: '# ungoverned\n' } }] }, { text: 'done' }],
      [FLAG]: [{ tools: [{ name: 'create', input: { path: p('docs/flag.md'), file_text: '# nope\n' } }] }, { text: 'done' }],
    });
    run = await runCopilot(wt, `${MAIN}: do the work`, { home, bin, url: api.url });
  }, 240_000);

  afterAll(async () => {
    await api?.close();
  });

  it('ran the whole scripted session', () => {
    expect(run.code, run.stderr + run.stdout).toBe(0);
    expect(api.calls.get(MAIN)).toHaveLength(9);
    expect(api.models.get(MAIN)).toBe(MODEL);
  });

  it('refuses writes until the session ran `intent context`, which hands the model the context block', () => {
    expect(told(0)).toContain('Denied by preToolUse hook: intent: You must cite a valid active Intent ID.');
    expect(told(0)).toContain('intent context INT-001');
    expect(told(1)).toContain('<intent_context');
    expect(told(1)).toContain('this session works on INT-001 now');
  });

  it('stages and credits in-scope create and edit to the model Copilot logged for the call', () => {
    expect(told(2)).toContain(`staged src/new.ts under INT-001 (2 lines credited to openai/${MODEL})`);
    expect(told(3)).toContain(`staged src/a.ts under INT-001 (1 line credited to openai/${MODEL})`);
  });

  it('refuses an out-of-scope create before it lands, and tells the model why', () => {
    expect(told(4)).toContain('Denied by preToolUse hook: intent: Scope Violation: INT-001 is not authorized to edit docs/new.md');
    expect(existsSync(join(wt, 'docs/new.md'))).toBe(false);
  });

  it('stages what a shell command wrote in the scope, credited to the model', () => {
    expect(told(5)).toContain(`the command changed src/a.ts (2 lines credited to openai/${MODEL}): staged.`);
  });

  it('intent reset run in Copilot\'s shell (through a project script) is refused: the shell carries COPILOT_CLI=1', () => {
    expect(told(6)).toContain('Refused: intent reset looks like it comes from an agent process (COPILOT_CLI=1 is set (a GitHub Copilot CLI shell))');
  });

  it('the shell carries COPILOT_CLI=1 and the session id (what marks a Copilot shell)', () => {
    expect(told(6)).toMatch(/COPILOT_AGENT_SESSION_ID=[0-9a-f-]+\nCOPILOT_CLI=1/);
  });

  it('a commit in the agent\'s shell runs the hooks: its note credits the model, and intent verify is clean', () => {
    expect(git(wt, 'log', '-1', '--format=%s')).toBe('work by Copilot\n');
    const record = noteOf(wt)!.record;
    const url = expect.stringMatching(URL_RE);
    expect(aiCredit(record, 'src/new.ts')).toEqual([{ model: `openai/${MODEL}`, lines: [[1, 2]], url }]);
    expect(aiCredit(record, 'src/a.ts')).toEqual([{ model: `openai/${MODEL}`, lines: [[1, 2]], url }]);
    const v = intent(wt, ['verify', '--json']);
    expect(v.status, v.stdout + v.stderr).toBe(0);
  });

  it('a command a human must approve is asked of the user: a headless run refuses it, with the reason', () => {
    expect(told(8)).toContain('Denied by preToolUse hook (unable to ask user for confirmation): intent: ');
    expect(existsSync(join(wt, 'docs/x.md'))).toBe(true);
  });

  it('the freeform apply_patch of a GPT-5 codex model: staged and credited in the scope, refused outside it', async () => {
    const r = await runCopilot(wt, `${PATCH}: patch`, { home, bin, url: api.url, model: PATCH_MODEL });
    expect(r.code, r.stderr + r.stdout).toBe(0);
    const t = toldIn(api, PATCH, () => r);
    expect(t(0)).toContain('this session works on INT-001 now');
    expect(t(1)).toContain(`staged src/patched.ts under INT-001 (2 lines credited to openai/${PATCH_MODEL})`);
    expect(t(2)).toContain('Denied by preToolUse hook: intent: Scope Violation: INT-001 is not authorized to edit docs/patched.md');
    expect(existsSync(join(wt, 'docs/patched.md'))).toBe(false);
    expect(git(wt, 'diff', '--cached', '--name-only')).toBe('src/patched.ts\n');
  }, 120_000);

  it('intent doctor reads Copilot\'s trusted folders: the main checkout trusted here, not in an empty home', () => {
    const doctor = (h: string) => JSON.parse(intent(repo, ['doctor', '--json'], { HOME: h, COPILOT_HOME: join(h, '.copilot') }).stdout).checks.find((c: any) => c.subject === 'copilot trust');
    expect(doctor(home)).toMatchObject({ ok: true });
    const bare = tempDir('intent-e2e-copilot-home-');
    const r = doctor(bare);
    expect(r.ok).toBe(false);
    expect(r.message).toContain(`"trustedFolders": ["${repo}"]`);
  });

  it('in an untrusted folder Copilot runs no repository hook, silently (what doctor warns of); --trust-folder runs them', async () => {
    const bare = copilotHome(tempDir('intent-e2e-copilot-untrusted-'), []);
    const r = await runCopilot(wt, `${UNTRUSTED}: write`, { home: bare, bin, url: api.url });
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(existsSync(join(wt, 'docs/untrusted.md'))).toBe(true);
    const flagged = await runCopilot(wt, `${FLAG}: write`, { home: copilotHome(tempDir('intent-e2e-copilot-flag-'), []), bin, url: api.url, args: ['--trust-folder'] });
    expect(flagged.code, flagged.stderr + flagged.stdout).toBe(0);
    expect(api.results.get(api.calls.get(FLAG)?.[0])?.text).toContain('Denied by preToolUse hook: intent: You must cite a valid active Intent ID.');
    expect(existsSync(join(wt, 'docs/flag.md'))).toBe(false);
  }, 120_000);
});

/** The core flow (handshake, in-scope write credited, out-of-scope refused, shell write) in a repository set up with `agents`. */
function coreFlow(title: string, agents: string[], marker: string) {
  describe.skipIf(!ready)(`GitHub Copilot CLI ${COPILOT_VERSION}, real CLI, ${title}`, () => {
    let api: any;
    let wt: string;
    let run: CliRun;
    const told = (n: number) => toldIn(api, marker, () => run)(n);

    beforeAll(async () => {
      let repo = '';
      let home = '';
      let bin = '';
      ({ repo, wt, home, bin } = agentFixture(agents, ['src/**'], { 'README.md': '# e2e\n', 'src/a.ts': 'export const a = 1;\n' }));
      copilotHome(home, [repo]);
      const p = (rel: string) => join(wt, rel);
      api = await startOpenAiMock({
        [marker]: [
          { tools: [{ name: 'create', input: { path: p('src/early.ts'), file_text: 'export const early = 1;\n' } }] },
          { tools: [{ name: 'bash', input: { command: 'intent context INT-001', description: 'intent context' } }] },
          { tools: [{ name: 'create', input: { path: p('src/new.ts'), file_text: 'export const fresh = 1;\nexport const two = 2;\n' } }] },
          { tools: [{ name: 'create', input: { path: p('docs/new.md'), file_text: '# nope\n' } }] },
          { tools: [{ name: 'bash', input: { command: "printf 'export const viaShell = 3;\\n' >> src/a.ts", description: 'append' } }] },
          { tools: [{ name: 'bash', input: { command: "git commit -q -m 'work by Copilot'", description: 'commit' } }] },
          { text: 'all done' },
        ],
      });
      run = await runCopilot(wt, `${marker}: do the work`, { home, bin, url: api.url });
    }, 240_000);

    afterAll(async () => {
      await api?.close();
    });

    it('refuses a write before the handshake (once), then takes `intent context`', () => {
      expect(run.code, run.stderr + run.stdout).toBe(0);
      expect(api.calls.get(marker)).toHaveLength(6);
      expect(count(told(0), 'You must cite a valid active Intent ID.')).toBe(1);
      expect(existsSync(join(wt, 'src/early.ts'))).toBe(false);
      expect(told(1)).toContain('this session works on INT-001 now');
    });

    it('stages and credits an in-scope write to the model, once', () => {
      expect(count(told(2), `staged src/new.ts under INT-001 (2 lines credited to openai/${MODEL})`)).toBe(1);
      expect(count(told(4), `the command changed src/a.ts (1 line credited to openai/${MODEL}): staged.`)).toBe(1);
    });

    it('refuses an out-of-scope write before it lands, once, telling the model why', () => {
      expect(count(told(3), 'Scope Violation: INT-001 is not authorized to edit docs/new.md')).toBe(1);
      expect(existsSync(join(wt, 'docs/new.md'))).toBe(false);
    });

    it('the commit\'s note credits the model, and intent verify is clean', () => {
      const record = noteOf(wt)!.record;
      const url = expect.stringMatching(URL_RE);
      expect(aiCredit(record, 'src/new.ts')).toEqual([{ model: `openai/${MODEL}`, lines: [[1, 2]], url }]);
      expect(aiCredit(record, 'src/a.ts')).toEqual([{ model: `openai/${MODEL}`, lines: [[2, 2]], url }]);
      const v = intent(wt, ['verify', '--json']);
      expect(v.status, v.stdout + v.stderr).toBe(0);
    });
  });
}

coreFlow('a repository set up for Claude Code and Copilot (both hook files run)', ['claude-code', 'copilot'], 'E2E-COPILOT-BOTH-5a3');
coreFlow('a repository set up for Claude Code only (Copilot runs the Claude Code hooks)', ['claude-code'], 'E2E-COPILOT-CLAUDE-8e4');

