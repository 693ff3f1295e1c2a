import { copyFileSync, existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { installAgentConfig, type AgentConfigResult } from '../agents/config-files.js';
import { IntentError } from '../core/errors.js';
import { gitRaw, git } from '../git/process.js';
import { HOOKS, hookTargets, installHook, installRunner, worktreeHooksDir, writeWorktreeHooks, type HookInstall } from '../hooks/install.js';
import { openRepo, type Repo } from '../git/repo.js';
import { addNotesFetchRefspecs } from '../trace/sync.js';
import { NOTES_REF, PKG_ROOT } from '../core/version.js';

const TEMPLATES = join(PKG_ROOT, 'templates', 'orchestration');

/**
 * The `.orchestration/` file a template becomes. npm never packs a file named `.gitignore` (it
 * would be missing from the installed package), so that template ships as `gitignore`.
 */
export function scaffoldName(template: string): string {
  return template === 'gitignore' ? '.gitignore' : template;
}

/** Everything `intent init` did; `changed` is false when a second run found all in place. */
export interface InitResult {
  root: string;
  created: string[];
  kept: string[];
  hooks: HookInstall[];
  hooksDir: string;
  runnerChanged: boolean;
  config: string[];
  /** Agent hook registrations written with `--agent`. */
  agents: AgentConfigResult[];
  changed: boolean;
}

/**
 * Sets a repository up for governed commits, from any folder inside it: scaffolds
 * `.orchestration/` (never overwriting a file), installs the hook runner and the hooks (chaining
 * to what is there), and makes notes follow amend and rebase. Idempotent.
 */
export function init(cwd: string, opts: { agents?: string[] } = {}): InitResult {
  const repo = openRepo(cwd);
  const dir = join(repo.mainRoot, '.orchestration');
  if (existsSync(dir) && !statSync(dir).isDirectory()) {
    throw new IntentError('CONFIG_INVALID', `${dir} exists and is not a folder: move that file away, then run intent init again.`, { path: dir });
  }
  mkdirSync(dir, { recursive: true });
  const created: string[] = [];
  const kept: string[] = [];
  for (const template of readdirSync(TEMPLATES)) {
    const name = scaffoldName(template);
    const target = join(dir, name);
    const rel = `.orchestration/${name}`;
    if (existsSync(target)) kept.push(rel);
    else {
      copyFileSync(join(TEMPLATES, template), target);
      created.push(rel);
    }
  }
  const runnerChanged = installRunner(repo);
  const targets = hookTargets(repo);
  if (existsSync(targets.dir) && !statSync(targets.dir).isDirectory()) {
    throw new IntentError(
      'CONFIG_INVALID',
      `core.hooksPath points at ${targets.dir}, which is not a folder, so git runs no hooks here and commits cannot be governed. Unset it (git config --unset core.hooksPath) or point it at a folder, then run intent init again.`,
      { hooksPath: targets.dir },
    );
  }
  mkdirSync(targets.dir, { recursive: true });
  const hooks = HOOKS.map((h) => installHook(targets.dir, h, targets.where));
  // Intent worktrees made by an earlier version get this version's hooks too.
  if (worktreeHooksDir(repo)) writeWorktreeHooks(repo);
  const config = [...configureNotes(repo), ...addNotesFetchRefspecs(repo)];
  const agents = [...new Set(opts.agents ?? [])].map((a) => installAgentConfig(repo, a));
  const changed = created.length > 0 || runnerChanged || config.length > 0 || hooks.some((h) => h.action !== 'unchanged')
    || agents.some((a) => a.changed);
  return { root: repo.mainRoot, created, kept, hooks, hooksDir: targets.dir, runnerChanged, config, agents, changed };
}

/**
 * Makes notes on refs/notes/intents follow `commit --amend` and rebase (the post-rewrite hook then
 * replaces each copied note with a record of the new commit). Returns what it set.
 */
function configureNotes(repo: Repo): string[] {
  const cwd = repo.mainRoot;
  const set: string[] = [];
  const refs = gitRaw(['config', '--get-all', 'notes.rewriteRef'], { cwd }).stdout.split('\n').filter(Boolean);
  if (!refs.some((r) => r === NOTES_REF || r === 'refs/notes/*')) {
    git(['config', '--add', 'notes.rewriteRef', NOTES_REF], { cwd });
    set.push(`notes.rewriteRef += ${NOTES_REF}`);
  }
  return set;
}
