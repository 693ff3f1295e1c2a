import { copyFileSync, existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { installAgentConfig, type AgentConfigResult } from '../agents/config-files.js';
import { IntentError } from '../core/errors.js';
import { gitRaw, git } from '../git/process.js';
import { HOOKS, hookTargets, installHook, installRunner, type HookInstall } from '../hooks/install.js';
import { loadRecord, saveRecord, sigOf, type InstallRecord } from '../hooks/install-record.js';
import { restoreWorktreeHooks, worktreeHooksDir } from '../hooks/worktree-hooks.js';
import { openRepo, type Repo } from '../git/repo.js';
import { addNotesFetchRefspecs, NOTES_MERGE_STRATEGY } from '../trace/sync.js';
import { NOTES_REF, PKG_ROOT } from '../core/version.js';
import { loadRegistry } from '../intents/registry.js';

const TEMPLATES = join(PKG_ROOT, 'templates', 'orchestration');

/**
 * The `.orchestration/` file a template becomes. npm never packs a file named `.gitignore` (it
 * would be missing from the installed package), so that template ships as `gitignore`.
 */
export function scaffoldName(template: string): string {
  return template === 'gitignore' ? '.gitignore' : template;
}

/** Everything `intent init` did; `changed` is false when a second run found all in place. */
export interface InitResult extends InstallResult {
  root: string;
  created: string[];
  kept: string[];
  /** Agent hook registrations written with `--agent`. */
  agents: AgentConfigResult[];
  /** The intents the registry already has (a teammate's clone), for what to do next; [] for a new or unreadable one. */
  intents: { id: string; status: string }[];
  changed: boolean;
}

/**
 * Sets a repository up for governed commits, from any folder inside it: scaffolds
 * `.orchestration/` (never overwriting a file), installs the hook runner and the hooks (chaining
 * to what is there), and makes notes follow amend and rebase. Idempotent. Everything it changes
 * is written to the install record, from which `intent uninstall` restores.
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
  const inst = installAll(repo);
  const record = loadRecord(repo);
  const agents = [...new Set(opts.agents ?? [])].map((a) => installAgentConfig(repo, a));
  record.created = [...new Set([...record.created, ...created])];
  record.agentFiles = [...new Set([...(record.agentFiles ?? []), ...agents.map((a) => relative(repo.mainRoot, a.file))])];
  saveRecord(repo.commonDir, record);
  const changed = created.length > 0 || inst.changed || agents.some((a) => a.changed);
  return { root: repo.mainRoot, created, kept, agents, intents: registeredIntents(join(dir, 'active_intents.yaml')), ...inst, changed };
}

function registeredIntents(file: string): { id: string; status: string }[] {
  try {
    return loadRegistry(file).intents.map((i) => ({ id: i.id, status: i.status }));
  } catch {
    return []; // `intent doctor` and every command that reads it say what is wrong with it
  }
}

/** What installing the runner, the hooks and the notes config did (`intent init` and `intent doctor --fix`). */
export interface InstallResult {
  hooks: HookInstall[];
  hooksDir: string;
  runnerChanged: boolean;
  /** Hooks of the intent worktrees' hook folder rewritten (an older version's, or changed). */
  worktreeHooks: string[];
  config: string[];
  changed: boolean;
}

/**
 * Installs the runner, the hooks and the notes config, recording what it changed; idempotent.
 * The part of `intent init` that `intent doctor --fix` repeats.
 */
export function installAll(repo: Repo): InstallResult {
  const record = loadRecord(repo);
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
  const hooks = HOOKS.map((h) => installHook(targets, h, record, repo.commonDir));
  // Intent worktrees made by an earlier version get this version's hooks too.
  const worktreeHooks = worktreeHooksDir(repo) ? restoreWorktreeHooks(repo).restored : [];
  const notes = [...configureNotes(repo, record), ...configureNotesMerge(repo, record)];
  const fetch = addNotesFetchRefspecs(repo);
  for (const line of fetch) {
    const [key, value] = line.split(' += ');
    if (!record.config.fetch.some((f) => f.key === key && f.value === value)) record.config.fetch.push({ key, value });
  }
  record.mainRoot = repo.mainRoot;
  record.hooksDir = targets.dir;
  record.runDir = targets.runDir;
  record.configSig = sigOf(join(repo.commonDir, 'config'));
  saveRecord(repo.commonDir, record);
  const config = [...notes, ...fetch];
  const changed = runnerChanged || config.length > 0 || worktreeHooks.length > 0 || hooks.some((h) => h.action !== 'unchanged');
  return { hooks, hooksDir: targets.dir, runnerChanged, worktreeHooks, config, changed };
}

/**
 * The notes.rewriteRef value intent sets: a glob naming exactly refs/notes/intents. git copies the
 * notes of a glob's matching refs on amend and rebase like those of a plain ref, but warns
 * "notes ref refs/notes/intents is invalid" for a plain ref that does not exist yet (before the
 * first governed commit), and not for a glob that matches nothing.
 */
export const REWRITE_REF = `${NOTES_REF.slice(0, -1)}[${NOTES_REF.slice(-1)}]`;

/**
 * A plain `git notes merge` of the intents notes merges as `intent sync` does (cat_sort_uniq: one
 * valid note, the same on every clone). Sets `notes.intents.mergeStrategy` when unset; returns what it set.
 */
function configureNotesMerge(repo: Repo, record: InstallRecord): string[] {
  const cwd = repo.mainRoot;
  const key = `notes.${NOTES_REF.replace(/^refs\/notes\//, '')}.mergeStrategy`;
  if (gitRaw(['config', '--get', key], { cwd }).stdout.trim() !== '') return [];
  git(['config', key, NOTES_MERGE_STRATEGY], { cwd });
  record.config.mergeStrategy = { key, value: NOTES_MERGE_STRATEGY };
  return [`${key} = ${NOTES_MERGE_STRATEGY}`];
}

/**
 * Makes notes on refs/notes/intents follow `commit --amend` and rebase (the post-rewrite hook then
 * replaces each copied note with a record of the new commit). Returns what it set.
 */
function configureNotes(repo: Repo, record: InstallRecord): string[] {
  const cwd = repo.mainRoot;
  const refs = gitRaw(['config', '--get-all', 'notes.rewriteRef'], { cwd }).stdout.split('\n').filter(Boolean);
  if (refs.some((r) => r === REWRITE_REF || r === 'refs/notes/*')) return [];
  if (refs.includes(NOTES_REF)) {
    // What earlier versions set: replaced by the glob, which does not warn before the first note.
    git(['config', '--replace-all', 'notes.rewriteRef', REWRITE_REF, `^${NOTES_REF.replace(/\//g, '\\/')}$`], { cwd });
  } else {
    git(['config', '--add', 'notes.rewriteRef', REWRITE_REF], { cwd });
  }
  if (!record.config.rewriteRef.includes(REWRITE_REF)) record.config.rewriteRef.push(REWRITE_REF);
  return [`notes.rewriteRef += ${REWRITE_REF}`];
}
