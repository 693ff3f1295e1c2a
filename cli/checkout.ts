import { checkout } from '../lib/lifecycle/index.js';
import { describeOverlap, registryCommitMessage } from '../lib/intents/index.js';
import { emit } from './output.js';

/** `intent checkout <id>`: prints the worktree path (alone on stdout, nothing on failure, so `wt=$(intent checkout X) && cd "$wt"` stops at a failure). */
export async function run(opts: { cwd: string; id: string; base?: string; path?: string; strict?: boolean; allowUncommitted?: boolean; setup?: boolean; json: boolean }): Promise<void> {
  const r = await checkout(opts.cwd, opts.id, {
    base: opts.base, path: opts.path, strict: opts.strict, allowUncommitted: opts.allowUncommitted, setup: opts.setup,
    setupOutput: 'stderr', progress: (line) => process.stderr.write(`intent: ${line}\n`),
  });
  if (!opts.json) {
    process.stderr.write(
      `intent: ${r.created ? 'created' : 'reusing'} worktree of ${r.intent} on branch ${r.branch}` +
        `${r.started ? '; marked IN_PROGRESS' : ''}\n`,
    );
    if (r.started) {
      // The first push of the branch is judged by the server's main: it must have the intent IN_PROGRESS.
      process.stderr.write(`intent: before ${r.branch} is first pushed, commit that status on the branch you started from and push it ` +
        `(git add .orchestration && git commit -m "${registryCommitMessage(r.path, 'start', r.intent)}" && intent push): the server accepts ${r.branch} once its main has ${r.intent} IN_PROGRESS.\n`);
    }
    if (r.claudeHooks) process.stderr.write(`intent: start the agent at the worktree root (${r.path}): Claude Code started in a subdirectory does not load the intent hooks of .claude/settings.json.\n`);
    const s = r.setup;
    if (s?.copied.length) process.stderr.write(`intent: copied into the worktree: ${s.copied.join(', ')}\n`);
    if (s?.failed) {
      const ran = s.ran.at(-1)!;
      process.stderr.write(`intent: warning: preparing the worktree failed: \`${s.failed}\` ${ran.exit_code === null ? 'was killed' : `exited ${ran.exit_code}`} (its output is above). ` +
        `The worktree is there: fix what it says and run it there yourself (cd ${r.path} && ${s.failed}), or set worktreeSetup in the intent configuration (docs/lifecycle.md).\n`);
    } else if (s?.ran.length) process.stderr.write(`intent: prepared the worktree: ${s.ran.map((x) => x.command).join(', ')} (${(s.ran.reduce((n, x) => n + x.ms, 0) / 1000).toFixed(1)} s); intent checkout --no-setup skips it\n`);
    if (s?.hooksRestored.length) process.stderr.write(`intent: what the set-up ran changed the intent worktrees' hooks (${s.hooksRestored.join(', ')}): put back\n`);
    for (const o of r.overlaps) process.stderr.write(`intent: warning: ${describeOverlap(r.intent, o)}\n`);
    if (r.overlaps.length) {
      process.stderr.write('intent: commits to the same paths will conflict at merge; narrow a scope, or use --strict to refuse overlapping checkouts.\n');
    }
  }
  const value = { intent: r.intent, path: r.path, branch: r.branch, created: r.created, ...(r.overlaps.length ? { overlaps: r.overlaps } : {}),
    ...(r.setup && r.setup.source !== 'none' ? { setup: r.setup } : {}) };
  emit(opts.json, value, () => r.path + '\n');
}
