// Runs this repository's GitHub Action (action.yml, "Authority check") as a runner would: bash with
// -eo pipefail, GITHUB_ACTION_PATH at the package (already built: the action's install step is
// `npm ci`, which .ci/run itself runs), the event payload in GITHUB_EVENT_PATH.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { PKG_ROOT, run, tempDir, type Run } from './helpers.js';

interface Step { name?: string; run?: string; shell?: string; env?: Record<string, string> }

/** The action's steps as action.yml declares them. */
export function actionSteps(): Step[] {
  return parse(readFileSync(join(PKG_ROOT, 'action.yml'), 'utf8')).runs.steps as Step[];
}

/**
 * Runs the action's check in `cwd` (a clone as actions/checkout leaves it) for one event: a
 * `pull_request_target` (`pr`) or a `push` (`push`). `author` is the pull request's author (or
 * the push's pusher) in the payload, `actor` GITHUB_ACTOR (who triggered the event); by default the same.
 */
export function runGateAction(
  cwd: string,
  event: { name: 'pull_request_target'; number: number; base: string; head: string; headRef: string } | { name: 'push'; before: string; after: string; ref: string } | { name: string },
  actor: string,
  author: string = actor,
  extra: Record<string, string> = {},
): Run {
  const payload = event.name === 'pull_request_target' && 'number' in event
    ? { pull_request: { number: event.number, base: { sha: event.base }, head: { sha: event.head, ref: event.headRef }, user: { login: author } } }
    : 'before' in event ? { before: event.before, after: event.after, ref: event.ref, pusher: { name: author } } : {};
  const file = join(tempDir(), 'event.json');
  writeFileSync(file, JSON.stringify(payload));
  const step = actionSteps().find((s) => s.name === 'Authority check')!;
  // The step's env as GitHub gives it with the inputs' defaults (`${{ inputs.x }}`).
  const inputs = parse(readFileSync(join(PKG_ROOT, 'action.yml'), 'utf8')).inputs as Record<string, { default?: string }>;
  const env = Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, v.replace(/^\$\{\{ inputs\.([\w-]+) \}\}$/, (_, name: string) => inputs[name]?.default ?? '')]));
  return run('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', step.run!], cwd, {
    GITHUB_ACTION_PATH: PKG_ROOT, GITHUB_EVENT_NAME: event.name, GITHUB_EVENT_PATH: file, GITHUB_ACTOR: actor, ...env, ...extra,
  });
}

/**
 * Runs the `run:` script of the step named `step` of a workflow template (templates/ci/<file>) in
 * `cwd` as a runner would (bash -eo pipefail), with `env` for the step's `${{ ... }}` values and
 * `intent` on PATH (this package's build, as the template's install step leaves it).
 */
export function runWorkflowStep(file: string, job: string, step: string, cwd: string, env: Record<string, string>): Run {
  const wf = parse(readFileSync(join(PKG_ROOT, 'templates', 'ci', file), 'utf8'));
  const s = (wf.jobs[job].steps as Step[]).find((x) => x.name === step);
  if (!s?.run) throw new Error(`${file}: no step "${step}" with a run script in job ${job}`);
  const bin = join(tempDir(), 'intent-bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, 'intent'), `#!/bin/sh\nexec "${process.execPath}" "${join(PKG_ROOT, 'dist', 'bin', 'intent.js')}" "$@"\n`, { mode: 0o755 });
  return run('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', s.run], cwd, { ...env, PATH: `${bin}:${process.env.PATH}` });
}
