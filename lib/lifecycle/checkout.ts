import { existsSync, readFileSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { BRANCH_PREFIX, recordActiveIntent } from '../intents/active.js';
import { loadConfig } from '../intents/config.js';
import { prepareWorktree, type SetupResult } from './worktree-setup.js';
import { registryCommitMessage } from '../intents/commit-style.js';
import { assertNotAgent } from '../core/agent-env.js';
import { IntentError } from '../core/errors.js';
import { git, gitRaw, gitRawAsync } from '../git/process.js';
import { installWorktreeHooks } from '../hooks/worktree-hooks.js';
import { withLock, withLockAsync } from '../core/lock.js';
import { setIntentStatus } from '../intents/registry-edit.js';
import { expiredError, isExpired } from '../guardrails/budget.js';
import { describeOverlap, findOverlaps, trackedFiles, type Overlap } from '../intents/overlap.js';
import { committedIntent } from '../intents/committed.js';
import { findIntent, intentsWithStatus, loadRegistry, readRegistry, type Intent } from '../intents/registry.js';
import { headOid, openRepo, orchestrationPath, refOid, stateDir, type Repo } from '../git/repo.js';
import { listWorktrees, readWorktrees } from '../git/worktrees.js';

/** What `intent checkout` did. */
export interface CheckoutResult {
  intent: string;
  path: string;
  branch: string;
  /** False when the intent's worktree already existed. */
  created: boolean;
  /** True when the registry was changed to IN_PROGRESS. */
  started: boolean;
  /** Other IN_PROGRESS intents whose scope can match a path this one owns. */
  overlaps: Overlap[];
  /** Whether the worktree has Claude Code's hooks (intent init --agent claude-code): a session must start at its root to load them. */
  claudeHooks: boolean;
  /** What was done to make a new worktree run the project (worktree-setup.ts); null for a worktree that existed. */
  setup: SetupResult | null;
}

export interface CheckoutOptions {
  /** Revision the new branch starts from (default: HEAD of the current worktree). */
  base?: string;
  /** Where to create the worktree (default: `<repo>.worktrees/<ID>` beside the main worktree). */
  path?: string;
  /** Refuse (SCOPE_OVERLAP) instead of warning when the scope overlaps another IN_PROGRESS intent's (also config `strictOverlap`). */
  strict?: boolean;
  /** The current time (tests); decides whether the budget has expired. */
  now?: Date;
  /** The environment that tells an agent process (refused: checkout is a human's decision). */
  env?: NodeJS.ProcessEnv;
  /** Go on when the intent's entry (or its scope) is not committed on the base (see uncommittedError). */
  allowUncommitted?: boolean;
  /** false: leave a new worktree as git made it (no worktreeSetup, no install). */
  setup?: boolean;
  /** Where the set-up commands' output goes (default: nowhere). */
  setupOutput?: 'stderr' | 'ignore';
  /** Told what the set-up runs, as it starts each command. */
  progress?: (line: string) => void;
}

/**
 * Opens the worktree of intent `id` on branch `intent/<id>` (or reports the one that exists),
 * records it as that worktree's active intent and marks the intent IN_PROGRESS.
 */
export async function checkout(cwd: string, id: string, opts: CheckoutOptions = {}): Promise<CheckoutResult> {
  assertNotAgent(`checkout ${id}`, opts.env);
  const repo = openRepo(cwd);
  const registryFile = orchestrationPath(repo, 'active_intents.yaml');
  if (!existsSync(registryFile)) loadRegistry(registryFile); // REGISTRY_MISSING, before any lock or state
  // Concurrent checkouts race inside git (`worktree list` fails while another `worktree add` is
  // half-way; `git config` fails on a held lock instead of waiting): serialise them. The registry
  // is read once, under the lock, where another checkout cannot have started an intent meanwhile.
  const r = await withLockAsync(join(stateDir(repo), 'checkout.lock'), () => checkoutLocked(repo, id, opts, cwd));
  if (!r.created) return { ...r, setup: null };
  // Outside the lock: an install takes a minute, and other checkouts need not wait for it.
  const setting = loadConfig(repo.mainRoot, repo.mainRoot).worktreeSetup;
  const setup = await prepareWorktree(repo, r.path, setting, { skip: opts.setup === false, output: opts.setupOutput, progress: opts.progress });
  return { ...r, setup };
}

async function checkoutLocked(repo: Repo, id: string, opts: CheckoutOptions, cwd: string): Promise<CheckoutResult> {
  const registryFile = orchestrationPath(repo, 'active_intents.yaml');
  const branch = BRANCH_PREFIX + id;
  const main = repo.mainRoot;
  // The committed registry for the uncommitted-entry check (assertCommitted), read while the rest is decided.
  const committedPath = relative(main, registryFile).split(sep).join('/');
  const committed = opts.allowUncommitted || /[\r\n]/.test(opts.base ?? '') ? null : gitRawAsync(['cat-file', 'blob', `${opts.base ?? 'HEAD'}:${committedPath}`], { cwd: main });
  const read = readRegistry(registryFile);
  const { registry } = read;
  const intent = findIntent(registry, id);
  if (!intent) {
    throw new IntentError('UNKNOWN_INTENT', `Unknown intent ${id}: it is not in ${registryFile}. Add it first (intent new ${id} --name "…" --scope "<glob>"), commit the registry, then check it out.`, { intent: id });
  }
  if (intent.status === 'COMPLETED' || intent.status === 'ABANDONED' || intent.status === 'BLOCKED') {
    throw new IntentError(
      'INTENT_NOT_CHECKABLE',
      `Intent ${id} is ${intent.status}; only PENDING or IN_PROGRESS intents can be checked out.` +
        (intent.status === 'BLOCKED' ? ' A human must unblock it in the registry first.' : ' Create a new intent for new work.'),
      { intent: id, status: intent.status },
    );
  }
  const now = opts.now ?? new Date();
  if (isExpired(intent.budget, now)) throw expiredError(intent, registryFile, now, 'checking it out');
  const config = loadConfig(main, main);
  // Only IN_PROGRESS intents can overlap: the others' lines of a cached registry are not read.
  const overlapsNow = (): Overlap[] => findOverlaps(intent, intentsWithStatus(registry, 'IN_PROGRESS'), trackedFiles(main));
  const strict = !!(opts.strict || config.strictOverlap);
  let path = existingWorktree(repo, branch);
  const created = path === null;
  // Refusing must come before anything changes; a warning can wait: without --strict the check
  // runs while `git worktree add` writes the files (below), on another core.
  let overlaps: Overlap[] | null = strict || !created ? overlapsNow() : null;
  if (overlaps?.length && strict && (created || intent.status !== 'IN_PROGRESS')) {
    const why = opts.strict ? '--strict' : `strictOverlap in ${config.source}`;
    throw new IntentError(
      'SCOPE_OVERLAP',
      `Refused (${why}): ${overlaps.map((o) => describeOverlap(id, o)).join('\n')}\n` +
        `Nothing was changed. Narrow one of the scopes in ${registryFile}, finish the other intent first, or check out without ${opts.strict ? '--strict' : 'strictOverlap'} to accept the overlap.`,
      { intent: id, overlaps },
    );
  }
  if (path !== null && opts.base) {
    // The worktree exists: its branch has its base already, and --base would be silently ignored.
    const [, base] = resolveRefs(repo, branch, opts.base);
    if (base === null) throw baseError(opts.base);
    throw new IntentError('WORKTREE_CONFLICT', `The worktree of ${id} exists already (${path}, on ${branch}); --base applies only to a new branch. Nothing was changed. Run without --base to use it.`, { intent: id, path, branch, base: opts.base });
  }
  if (path === null) {
    const parent = config.worktreeDir ? resolve(main, config.worktreeDir) : join(dirname(main), `${basename(main)}.worktrees`);
    path = opts.path ? resolve(cwd, opts.path) : join(parent, id);
    if (existsSync(path) && readdirSync(path).length > 0) {
      throw new IntentError('WORKTREE_CONFLICT', `Cannot create the worktree of ${id}: ${path} exists and is not empty. Pass --path to choose another place.`, { path });
    }
    const [hasBranch, base] = resolveRefs(repo, branch, opts.base ?? 'HEAD');
    if (hasBranch && opts.base) throw new IntentError('WORKTREE_CONFLICT', `Branch ${branch} already exists; --base applies only to a new branch.`, { branch });
    if (!hasBranch && base === null) throw baseError(opts.base ?? 'HEAD');
    if (!hasBranch && committed) assertCommitted(await committed, base!, opts.base ?? 'HEAD', intent, read.text, registryFile, relative(realpathSync(cwd), registryFile));
    const args = hasBranch ? ['worktree', 'add', path, branch] : ['worktree', 'add', '-b', branch, path, base!];
    const adding = gitRawAsync(args, { cwd: main });
    let failed: { error: unknown } | null = null;
    try {
      overlaps ??= overlapsNow();
    } catch (error) {
      failed = { error }; // reported once git is done (the registry validated every glob: not expected)
    }
    const added = await adding;
    if (added.status !== 0) {
      throw new IntentError('GIT_FAILED', `git ${args.join(' ')} failed (exit ${added.status}): ${added.stderr.trim() || 'no message'}`, { args, status: added.status, stderr: added.stderr });
    }
    if (failed) throw failed.error;
  }
  overlaps ??= overlapsNow();
  recordActiveIntent(worktreeGitDir(path), id);
  installWorktreeHooks(repo, path);
  const started = withLock(join(stateDir(repo), 'registry.lock'), () => setIntentStatus(registryFile, id, 'IN_PROGRESS', new Date(), read));
  const claude = join(path, '.claude', 'settings.json');
  const claudeHooks = existsSync(claude) && readFileSync(claude, 'utf8').includes('intent/bin/agent');
  return { intent: id, path, branch, created, started, overlaps, claudeHooks, setup: null };
}

/**
 * Whether `refs/heads/<branch>` exists, and the commit `rev` names (null: none): from the ref files
 * when `rev` is HEAD and they tell, else in one process.
 * (cat-file reads one name per line: a name with a line break cannot be asked about, nor exist.)
 */
function resolveRefs(repo: Repo, branch: string, rev: string): [boolean, string | null] {
  if (/[\r\n]/.test(rev)) return [false, null];
  // The usual case without a process: HEAD's commit and the branch's ref from the ref files.
  const head = rev === 'HEAD' ? headOid(repo) : null;
  if (head !== null) return [refOid(repo, `refs/heads/${branch}`) !== null, head];
  const out = git(['cat-file', '--batch-check=%(objectname) %(objecttype)'], { cwd: repo.root, input: `refs/heads/${branch}\n${rev}^{commit}\n` });
  const [ref, base] = out.split('\n');
  const oid = (line: string | undefined) => (line && / commit$/.test(line) ? line.split(' ')[0] : null);
  return [oid(ref) !== null, oid(base)];
}

/**
 * Refuses (REGISTRY_UNCOMMITTED) a new intent branch whose base commit does not have the intent in
 * its registry with the scope the working registry gives it. intent verify, the pre-push hook and
 * the server judge a commit's recorded scope by the registry in the history up to it: work begun
 * before the entry was committed is refused after the merge (SCOPE_NOT_IN_REGISTRY), and
 * committing the registry later does not change that history. `shown`: `git cat-file blob
 * <base>:<registry>`, run while checkout decides the rest; the working text equal to the committed
 * one (the usual case) needs no parse.
 */
function assertCommitted(shown: { status: number; stdout: string }, base: string, label: string, intent: Intent, text: string, registryFile: string, fromCwd: string): void {
  if (shown.status === 0 && shown.stdout === text) return;
  const committed = shown.status === 0 ? committedIntent(shown.stdout, intent.id) : null;
  if (committed && JSON.stringify(committed.owned_scope) === JSON.stringify(intent.owned_scope)) return;
  const at = `${label} (${base.slice(0, 12)})`;
  const what = committed
    ? `The owned_scope of ${intent.id} in ${registryFile} (${intent.owned_scope.join(', ')}) is not the one committed on ${at} (${committed.owned_scope.join(', ')}).`
    : `${intent.id} is in ${registryFile} but not in the registry committed on ${at}.`;
  throw new IntentError(
    'REGISTRY_UNCOMMITTED',
    `${what} intent verify, the pre-push hook and the server judge every commit by the registry in the history, so this work would be refused after the merge (SCOPE_NOT_IN_REGISTRY). Nothing was changed.\n` +
      `Commit the registry first${label === 'HEAD' ? '' : ` on ${label}`}, then check out again:\n` +
      `  git add ${fromCwd} && git commit -m "${registryCommitMessage(dirname(dirname(registryFile)), 'register', intent.id)}"\n` +
      `  intent checkout ${intent.id}\n` +
      `(--allow-uncommitted goes on without it.)`,
    { intent: intent.id, base: label, commit: base, path: registryFile, committed: committed ? committed.owned_scope : null, scope: intent.owned_scope },
  );
}

function baseError(rev: string): IntentError {
  // No commits yet is the repository's state, not a usage mistake: exit 1, not 2.
  return rev === 'HEAD'
    ? new IntentError('INVALID_INPUT', 'The repository has no commits yet: make a first commit, then check out intents from it.', { base: rev })
    : new IntentError('USAGE', `--base ${rev} is not a commit in this repository.`, { base: rev });
}

/** The git dir of the linked worktree at `path`, from its `.git` file (`gitdir: <dir>`). */
function worktreeGitDir(path: string): string {
  const dotGit = join(path, '.git');
  if (statSync(dotGit).isFile()) {
    const m = /^gitdir: (.+?)\r?\n?$/.exec(readFileSync(dotGit, 'utf8'));
    if (m) return resolve(path, m[1]);
  }
  return git(['rev-parse', '--path-format=absolute', '--git-dir'], { cwd: path }).trim();
}

/**
 * The worktree that has `branch` checked out, if any. Worktrees whose folder is gone are pruned
 * first (only when `git worktree list` marks one prunable), so their branch can be checked out again.
 */
function existingWorktree(repo: Repo, branch: string): string | null {
  const cwd = repo.mainRoot;
  const list = () => readWorktrees(repo.commonDir, repo.mainRoot) ?? listWorktrees(cwd);
  let worktrees = list();
  if (worktrees.some((w) => w.prunable)) {
    gitRaw(['worktree', 'prune'], { cwd });
    worktrees = list();
  }
  return worktrees.find((w) => w.branch === `refs/heads/${branch}`)?.path ?? null;
}
