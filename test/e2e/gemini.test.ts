// End to end with the real Gemini CLI (the version pinned in scripts/gemini-e2e.mjs), headless
// (`gemini -p … --yolo --output-format json`) against a scripted mock of the Gemini API on
// 127.0.0.1 (test/e2e/gemini-mock.mjs). The hooks are the ones `intent init --agent gemini`
// registers (`.gemini/settings.json`); the intent worktrees' folder is trusted in the test's own
// ~/.gemini/trustedFolders.json, as `intent doctor` tells a user to do. Gemini's shell runs git
// with core.hooksPath blanked: a plain `git commit` is refused with the way to commit, a commit
// made behind the guard's back (a project script) is undone, and `intent commit` commits with the
// hooks on. In CI (CI set) a missing CLI fails the file; elsewhere the file is skipped when the
// CLI is not installed (`node scripts/gemini-e2e.mjs install`).
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { git, intent, noteOf, spawnAsync, tempDir } from '../helpers.js';

type CliRun = Awaited<ReturnType<typeof spawnAsync>>;
// @ts-expect-error: a plain ES module without types
import { startGeminiMock } from './gemini-mock.mjs';
import { agentFixture, aiCredit } from './agent-cli.js';
// @ts-expect-error: a plain ES module without types
import { GEMINI_CLI_VERSION, gemini } from '../../scripts/gemini-e2e.mjs';

const ready: boolean = gemini.ready();
if (!ready && process.env.CI) {
  throw new Error(`Gemini CLI ${GEMINI_CLI_VERSION} is not installed at ${gemini.bin()}: run \`node scripts/gemini-e2e.mjs install\` (.ci/run does).`);
}

const MAIN = 'E2E-GEMINI-MAIN-8c2';
const UNTRUSTED = 'E2E-GEMINI-UNTRUSTED-4d7';
const MODEL = 'gemini-2.5-pro';

interface GeminiRun extends CliRun {
  result: any;
}

/** Runs `gemini -p` in `cwd` against the mock, with its own home (settings, trusted folders, transcripts). */
async function runGemini(cwd: string, prompt: string, home: string, bin: string, url: string, extra: string[] = []): Promise<GeminiRun> {
  const args = ['-p', prompt, '--yolo', '-m', MODEL, '--output-format', 'json', ...extra];
  const r = await spawnAsync(gemini.bin(), args, cwd, { HOME: home, PATH: `${bin}:${process.env.PATH}`, GEMINI_API_KEY: 'dummy', GOOGLE_GEMINI_BASE_URL: url, NO_COLOR: '1' });
  let result: any = null;
  try {
    result = JSON.parse(r.stdout);
  } catch { /* reported by the caller's assertions */ }
  return { ...r, result };
}

describe.skipIf(!ready)(`Gemini CLI ${GEMINI_CLI_VERSION}, real CLI`, () => {
  let api: any;
  let repo: string;
  let wt: string;
  let home: string;
  let run: GeminiRun;
  let base = '';
  const told = (n: number, marker = MAIN): string => {
    try {
      return api.told(marker, n).text;
    } catch (e) {
      throw new Error(`${(e as Error).message}; gemini said: ${run?.stdout}${run?.stderr}`);
    }
  };

  beforeAll(async () => {
    let bin = '';
    ({ repo, wt, home, bin } = agentFixture('gemini', ['src/**'], {
      'README.md': '# e2e\n',
      'src/a.ts': 'export const a = 1;\n',
      'docs/x.md': 'x\n',
      // A project script that commits: what no text search of the command line sees.
      'package.json': JSON.stringify({ name: 'e2e', version: '1.0.0', scripts: { test: 'git commit -q -m sneaky', lint: 'intent reset INT-001 --yes' } }, null, 2) + '\n',
    }));
    base = git(wt, 'rev-parse', 'HEAD').trim();
    mkdirSync(join(home, '.gemini'));
    writeFileSync(join(home, '.gemini', 'settings.json'), JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } } }));
    // Project hooks run only in a trusted folder: trusting the folder of the intent worktrees covers every one of them.
    writeFileSync(join(home, '.gemini', 'trustedFolders.json'), JSON.stringify({ [dirname(wt)]: 'TRUST_FOLDER' }));

    const f = (p: string) => join(wt, p);
    const steps = [
      // 0: a write before the handshake is refused
      { tools: [{ name: 'write_file', args: { file_path: f('src/new.ts'), content: 'export const fresh = 1;\nexport const two = 2;\n' } }] },
      // 1: the handshake
      { tools: [{ name: 'run_shell_command', args: { command: 'intent context INT-001', description: 'Load the intent context' } }] },
      // 2: now the write goes through
      { tools: [{ name: 'write_file', args: { file_path: f('src/new.ts'), content: 'export const fresh = 1;\nexport const two = 2;\n' } }] },
      // 3: out of scope
      { tools: [{ name: 'write_file', args: { file_path: f('docs/new.md'), content: '# nope\n' } }] },
      // 4: a shell write in the scope
      { tools: [{ name: 'run_shell_command', args: { command: "printf 'export const viaShell = 3;\\n' >> src/a.ts", description: 'Append a line' } }] },
      // 5: a plain git commit: Gemini's shell would run it without hooks
      { tools: [{ name: 'run_shell_command', args: { command: "git commit -q -m 'work by Gemini'", description: 'Commit' } }] },
      // 6: a commit the command line does not show
      { tools: [{ name: 'run_shell_command', args: { command: 'npm test', description: 'Run the tests' } }] },
      // 7: the way to commit, as a model writes it after the refusal
      { tools: [{ name: 'run_shell_command', args: { command: "git add -A && intent commit -q -m 'work by Gemini'", description: 'Commit with the hooks' } }] },
      // 8: a human's decision, run where no command line shows it (a project script): the shell's marker refuses it
      { tools: [{ name: 'run_shell_command', args: { command: 'npm run lint', description: 'Lint' } }] },
      { text: 'all done' },
    ];
    api = await startGeminiMock({
      [MAIN]: steps,
      [UNTRUSTED]: [{ tools: [{ name: 'write_file', args: { file_path: f('docs/untrusted.md'), content: '# no hook ran\n' } }] }, { text: 'done' }],
    });
    run = await runGemini(wt, `${MAIN}: do the work`, home, bin, api.url);
    if (process.env.DUMP_E2E) writeFileSync(process.env.DUMP_E2E, JSON.stringify(api.results.get(MAIN), null, 1));
  }, 240_000);

  afterAll(async () => {
    await api?.close();
  });

  it('ran the whole scripted session', () => {
    expect(run.code, run.stderr + run.stdout).toBe(0);
    expect(run.result?.response).toBe('all done');
    expect(api.results.get(MAIN)).toHaveLength(9);
  });

  it('refuses writes until the session ran `intent context`, which hands the model the context block', () => {
    expect(told(0)).toContain('Tool execution blocked: intent: You must cite a valid active Intent ID.');
    expect(told(0)).toContain('intent context INT-001');
    expect(told(1)).toContain('<intent_context');
    expect(told(1)).toContain('this session works on INT-001 now');
  });

  it('stages and credits an in-scope write to the model read from the transcript', () => {
    expect(told(2)).toContain(`staged src/new.ts under INT-001 (2 lines credited to google/${MODEL})`);
  });

  it('refuses an out-of-scope write before it lands, and tells the model why', () => {
    expect(told(3)).toContain('Tool execution blocked: intent: Scope Violation: INT-001 is not authorized to edit docs/new.md');
    expect(existsSync(join(wt, 'docs/new.md'))).toBe(false);
  });

  it('stages what a shell command wrote in the scope, credited to the model', () => {
    expect(told(4)).toContain(`the command changed src/a.ts (1 line credited to google/${MODEL}): staged.`);
  });

  it('refuses a plain git commit in Gemini\'s hookless shell, with the way to commit', () => {
    expect(told(5)).toContain('Tool execution blocked: intent: Gemini CLI runs git with its hooks turned off');
    expect(told(5)).toContain('intent commit');
  });

  it('undoes a commit the shell made behind the guard (a project script), keeping the work staged', () => {
    expect(told(6)).toMatch(/the command made a commit \([0-9a-f]{12}\) with git's hooks off/);
    expect(told(6)).toContain('It was undone');
    expect(git(wt, 'log', '--format=%s', `${base}..HEAD`)).not.toContain('sneaky');
  });

  it('in a folder the user did not trust, headless Gemini refuses to start, and with --skip-trust it runs no project hook, silently', async () => {
    const bare = tempDir('intent-e2e-gemini-untrusted-');
    mkdirSync(join(bare, '.gemini'));
    writeFileSync(join(bare, '.gemini', 'settings.json'), JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } } }));
    const refused = await runGemini(wt, `${UNTRUSTED}: write`, bare, '/nonexistent', api.url);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('Gemini CLI is not running in a trusted directory');
    expect(existsSync(join(wt, 'docs/untrusted.md'))).toBe(false);
    const skipped = await runGemini(wt, `${UNTRUSTED}: write`, bare, '/nonexistent', api.url, ['--skip-trust']);
    expect(skipped.code, skipped.stderr + skipped.stdout).toBe(0);
    expect(told(0, UNTRUSTED)).not.toContain('intent:');
    expect(existsSync(join(wt, 'docs/untrusted.md'))).toBe(true);
    rmSync(join(wt, 'docs/untrusted.md'));
  }, 120_000);

  it('intent doctor reads Gemini\'s trusted folders: the worktrees\' folder trusted here, not in an empty home', () => {
    const doctor = (h: string) => JSON.parse(intent(repo, ['doctor', '--json'], { HOME: h }).stdout).checks.find((c: any) => c.subject === 'gemini trust');
    expect(doctor(home)).toMatchObject({ ok: true });
    const bare = tempDir('intent-e2e-gemini-home-');
    const r = doctor(bare);
    expect(r.ok).toBe(false);
    expect(r.message).toContain(`add "${dirname(wt)}": "TRUST_FOLDER" to ${join(bare, '.gemini', 'trustedFolders.json')}`);
  });

  it('intent reset run in Gemini\'s shell (through a project script) is refused: the shell carries GEMINI_CLI=1', () => {
    expect(told(8)).toContain('Refused: intent reset looks like it comes from an agent process');
    expect(told(8)).toContain('GEMINI_CLI=1 is set (a Gemini CLI shell)');
  });

  it('intent commit in the agent\'s shell, chained after git add -A as models write it, commits with the hooks on: the note credits the model, verify is clean', () => {
    expect(git(wt, 'log', '--format=%s', `${base}..HEAD`)).toBe('work by Gemini\n');
    const record = noteOf(wt)!.record;
    const url = expect.stringMatching(/^gemini-cli:\/\/session\/[0-9a-f-]+$/);
    expect(aiCredit(record, 'src/new.ts')).toEqual([{ model: `google/${MODEL}`, lines: [[1, 2]], url }]);
    expect(aiCredit(record, 'src/a.ts')).toEqual([{ model: `google/${MODEL}`, lines: [[2, 2]], url }]);
    const v = intent(wt, ['verify', '--json']);
    expect(v.status, v.stdout + v.stderr).toBe(0);
  });
});
