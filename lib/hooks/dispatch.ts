import { IntentError } from '../core/errors.js';
import { lap, withHookContext, type HookContext } from '../core/hook-context.js';
import { mainHooksWarningLater, mainHooksWarningOnce } from './health.js';
import { hookGitArgv } from '../core/hook-parent.js';

import type { HookOutcome } from './outcome.js';

export type { HookOutcome } from './outcome.js';

/**
 * Runs one git hook in this process (the hook's own node): its context is the process's
 * environment and directory as given, and its warnings go to the process's stderr.
 */
export async function runHook(hook: string, cwd: string, env: NodeJS.ProcessEnv, stdin: () => string = () => '', args: string[] = []): Promise<HookOutcome> {
  return runHookIn(hook, { env, cwd, warn: (text) => void process.stderr.write(text) }, stdin, args);
}

/**
 * Runs one git hook with the context `ctx` (the hook server passes the runner's), loading only
 * the modules that hook needs (hooks run on every commit). Nothing it reaches reads the process's
 * environment or directory or writes its stderr instead (core/hook-context.ts).
 * pre-commit fails closed: any error, expected or not, blocks the commit with its message.
 * post-commit cannot undo the commit, so it reports a failure loudly instead.
 */
export async function runHookIn(hook: string, ctx: HookContext, stdin: () => string = () => '', args: string[] = []): Promise<HookOutcome> {
  const { cwd, env } = ctx;
  if (hook === 'restore-worktree-hooks') return withHookContext(ctx, async () => restore(cwd, env, args[0] ?? '', args.slice(1), stdin));
  if (hook === 'sync-worktree-hooks') return withHookContext(ctx, async () => sync(cwd, args[0] ?? ''));
  if (hook === 'serve-hooks') {
    // Not a git hook: the repository's hook server (lib/hooks/server.ts), started by a hook below.
    await (await import('./server.js')).serveHooks(args[0] ?? '', args[1] ?? '', runHookIn);
    return { code: 0, stderr: '' };
  }
  return withHookContext(ctx, async () => {
    // The runner found no hook server to run this hook and asks for one, for the next hooks.
    if (env.INTENT_START_SERVER !== undefined) (await import('./server.js')).startServerIfAsked(env, process.argv[1]);
    const out = await dispatch(hook, ctx, stdin, args);
    lap('hook');
    // One line when the main worktree's hooks are no longer intent's (stats only, see health.ts).
    // Served, an intent worktree's allowed check leaves it for after its answer: that worktree's
    // post-commit (always there: its hook folder is checked by each hook) prints it.
    const later = hook === 'prepare-commit-msg' && out.code === 0 && ctx.defer ? mainHooksWarningLater(cwd, env) : null;
    if (later) {
      // After the work the check left (the read-ahead: what the record waits for).
      ctx.defer!(() => void setTimeout(later, 0));
      return out;
    }
    const warning = mainHooksWarningOnce(cwd, env);
    lap('health');
    return warning ? { code: out.code, stderr: warning + out.stderr } : out;
  });
}

/**
 * An intent worktree's hook found the intent worktrees' hook folder changed (another installer
 * wrote into it): put intent's hooks back; a hook that can stop git refuses this once. The guard
 * (reference-transaction, `prepared`: `args`, the transaction on `stdin`) then checks the commits
 * the transaction brings, and refuses those that leave the scope (lib/hooks/ref-check.ts).
 */
async function restore(cwd: string, env: NodeJS.ProcessEnv, hook: string, args: string[], stdin: () => string): Promise<HookOutcome> {
  try {
    const { restoreFromHook, GUARD_HOOK } = await import('./worktree-hooks.js');
    const { refuse, text } = restoreFromHook(cwd, hook);
    if (hook !== GUARD_HOOK || args[0] !== 'prepared') return { code: refuse ? 1 : 0, stderr: text };
    try {
      const { checkTransaction } = await import('./ref-check.js');
      const judged = checkTransaction(cwd, env, stdin());
      return { code: 0, stderr: judged.length ? `${text}intent: ${judged.length === 1 ? 'this commit was' : `these ${judged.length} commits were`} checked before the branch moved: in scope.\n` : text };
    } catch (e) {
      return { code: 1, stderr: `${text}${describe(e)}\nintent: commit blocked.\n` };
    }
  } catch (e) {
    return { code: 1, stderr: `${describe(e)}\nintent: the hooks of intent worktrees were changed and could not be restored: run \`intent doctor --fix\` in the main worktree.\n` };
  }
}

/**
 * An intent worktree's hook found that the repository's own hooks folder gained or lost a hook
 * intent has none of (post-index-change, pre-commit, ...): add or remove ours, which pass on to it.
 * Never fails git's command for that, and says so when it could not (the repository's hook would
 * not run); but a commit checked by prepare-commit-msg when the repository's pre-commit had just
 * been added is refused once: git had already passed the point where it runs pre-commit.
 */
async function sync(cwd: string, hook: string): Promise<HookOutcome> {
  try {
    const { syncFromHook, missedBefore } = await import('./worktree-hooks.js');
    if (missedBefore(cwd, hook, syncFromHook(cwd))) {
      return {
        code: 1,
        stderr: 'intent: the repository\'s own pre-commit hook is new to intent worktrees and did not run for this commit: ' +
          'prepare-commit-msg refused this time; run the same git command again (it runs from now on).\n',
      };
    }
    return { code: 0, stderr: '' };
  } catch (e) {
    return {
      code: 0,
      stderr: `${describe(e)}\nintent: WARNING: the hooks of intent worktrees could not follow the hooks the repository's own folder has (added or removed): ` +
        'one of them (such as post-index-change) may not run in intent worktrees, or run for nothing. Run `intent doctor --fix` in the main worktree.\n',
    };
  }
}

async function dispatch(hook: string, ctx: HookContext, stdin: () => string, args: string[]): Promise<HookOutcome> {
  const { cwd, env } = ctx;
  switch (hook) {
    case 'pre-commit':
      return commitCheck(async () => (await import('./pre-commit.js')).checkStagedCommit(cwd, env), 'intent: commit blocked.', true);
    case 'prepare-commit-msg':
      // An intent worktree's commit, whatever made it (commit, --no-verify, cherry-pick, revert):
      // pre-commit's checks, then commit-msg's check of a mutation claim in the message as it is
      // now (see WORKTREE_HOOKS in install.ts).
      return commitCheck(
        async () => {
          const checked = await (await import('./pre-commit.js')).checkStagedCommit(cwd, env);
          if (checked.governed) (await import('./commit-msg.js')).checkMutationClaim(cwd, args[0] ?? '');
          lap('claim');
          return checked;
        },
        // (git's command line is read only for a refusal: a check passes on every commit.)
        () => sequencerCommit()
          ? 'intent: commit blocked. To undo what a refused cherry-pick or revert left staged: git cherry-pick --abort or git revert --abort ' +
            'while git says one is in progress, otherwise git reset --merge (your own unstaged edits stay).'
          : 'intent: commit blocked.',
        true,
      );
    case 'pre-merge-commit':
      // `git merge` making a merge commit: the same check as pre-commit, on the merge's changes
      // against the first parent; then post-merge records the merge commit.
      return commitCheck(
        async () => (await import('./merge.js')).checkMergeCommit(cwd, env),
        'intent: merge commit blocked. A merge in an intent worktree is a commit of its intent: its changes against the ' +
          'first parent must stay inside the scope. To bring another branch\'s work in, rebase onto it instead (git merge --abort && git rebase <branch>): ' +
          'each commit is then checked and recorded on its own.',
      );
    case 'post-merge':
      try {
        const { recordMerge } = await import('./merge.js');
        recordMerge(ctx, args[0] === '1');
        return { code: 0, stderr: '' };
      } catch (e) {
        return {
          code: 0,
          stderr: ledgerOnly(e) ?? `intent: WARNING: the merge commit was made but its trace note was NOT recorded:\n${describe(e)}\n` +
            'intent: `intent verify` reports commits without a note; `intent repair` records them.\n',
        };
      }
    case 'commit-msg':
      try {
        const { checkMutationClaim } = await import('./commit-msg.js');
        checkMutationClaim(cwd, args[0] ?? '');
        return { code: 0, stderr: '' };
      } catch (e) {
        return { code: 1, stderr: `${describe(e)}\nintent: commit blocked.\n` };
      }
    case 'post-commit':
      try {
        const { recordMadeNow } = await import('./post-commit.js');
        // In the hook server: what was read ahead after the check (lib/hooks/prefetch.ts), or the
        // commit already recorded from it while git went on to this hook.
        const ahead = ctx.defer ? await import('./prefetch.js') : null;
        const early = ahead?.takeRecorded(cwd, env);
        if (early) return early;
        const waitFrom = performance.now();
        const prefetched = ahead ? await ahead.takePrefetched(cwd, env) : null;
        const done = recordMadeNow(cwd, env, ctx.warn, prefetched, performance.now() - waitFrom);
        // The commit is the index read ahead: its flat tree is HEAD's for the next check.
        const made = done.record?.vcs.revision;
        if (done.readAhead && made && prefetched) ahead!.deferOrNow(() => ahead!.rememberHead(made, prefetched));
        return { code: 0, stderr: done.stderr, trace: { ...done.trace, ...(made ? { commit: made } : {}), ...(prefetched ? { ahead: prefetched.trace } : {}) } };
      } catch (e) {
        return {
          code: 0,
          stderr: ledgerOnly(e) ?? `intent: WARNING: the commit was made but its trace note was NOT recorded:\n${describe(e)}\n` +
            'intent: `intent verify` reports commits without a note; fix the cause and amend the commit to record it.\n',
        };
      }
    case 'post-rewrite':
      try {
        const { recordRewrites } = await import('./post-rewrite.js');
        recordRewrites(ctx, stdin());
        return { code: 0, stderr: '' };
      } catch (e) {
        return {
          code: 0,
          stderr: `intent: WARNING: rewritten commits may carry their old commits' trace notes:\n${describe(e)}\n`,
        };
      }
    case 'pre-push':
      try {
        const { checkPush } = await import('./pre-push.js');
        const { findings, warnings } = checkPush(cwd, args[0] ?? 'origin', stdin());
        if (!findings.length) {
          return {
            code: 0,
            stderr: warnings.length
              ? `intent: WARNING: ${warnings.length} pushed commit${warnings.length === 1 ? ' has' : 's have'} no note on ${args[0] ?? 'origin'}'s ${'refs/notes/intents'} as last fetched (${warnings.map((w) => (w.commit ?? '').slice(0, 12)).join(', ')}): ` +
                `a server running intent gate refuses them. Next: ${warnings[0].next}, or run intent sync first.\n`
              : '',
          };
        }
        return {
          code: 1,
          stderr: `intent: push refused: the server's authority check (intent gate) would refuse it:\n${findings.map((f) => `  ${f.code} ${(f.commit ?? '-').slice(0, 12)} ${f.message}\n      next: ${f.next}`).join('\n')}\n` +
            'intent: nothing was pushed; docs/threat-model.md ("Honest flows") says what the server accepts.\n',
        };
      } catch (e) {
        return { code: 1, stderr: `${describe(e)}\nintent: push blocked.\n` };
      }
    default:
      return { code: 1, stderr: `intent: unknown hook "${hook}"; re-run \`intent init\` to reinstall the hooks.\n` };
  }
}

/**
 * A hook that checks the commit about to be made: it fails closed (any error blocks, with its
 * message and then `blocked`); when the check passes, its warnings (conflicts ahead) go to stderr.
 */
async function commitCheck(check: () => Promise<{ governed: boolean; warnings?: string[]; inProcess?: boolean }>, blocked: string | (() => string), traced = false): Promise<HookOutcome> {
  try {
    const r = await check();
    const stderr = r.governed && r.warnings?.length ? r.warnings.join('\n') + '\n' : '';
    return traced && r.governed ? { code: 0, stderr, trace: { stagedInProcess: !!r.inProcess } } : { code: 0, stderr };
  } catch (e) {
    return { code: 1, stderr: `${describe(e)}\n${typeof blocked === 'string' ? blocked : blocked()}\n` };
  }
}

/** Whether the commit being checked is made by a git command other than `git commit` (cherry-pick, revert; unknown: yes). */
function sequencerCommit(): boolean {
  const argv = hookGitArgv();
  if (!argv) return true;
  // git's own options before the command: -c and -C take the next word.
  for (let i = 1; i < argv.length; i++) {
    if (argv[i] === '-c' || argv[i] === '-C') i++;
    else if (!argv[i].startsWith('-')) return argv[i] !== 'commit';
  }
  return true;
}

/** The warning when a commit's note was written and only its local ledger line failed; else null. */
function ledgerOnly(e: unknown): string | null {
  if (!(e instanceof IntentError) || e.code !== 'WRITE_FAILED' || e.data.stage !== 'ledger') return null;
  return `intent: WARNING: ${e.message}\n` +
    'intent: the commit and its note are fine; `intent verify` reports the missing ledger line and `intent repair` appends it once the ledger is writable.\n';
}

function describe(e: unknown): string {
  if (e instanceof IntentError) return e.message;
  const err = e as Error;
  return `intent: internal error in the hook: ${err?.stack ?? String(e)}`;
}
