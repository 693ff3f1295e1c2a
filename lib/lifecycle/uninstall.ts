/**
 * `intent uninstall`: puts every hook file intent changed back as it was, byte for byte (content,
 * mode, symlink), from the install record; takes intent's hooks out of the intent worktrees and
 * removes the config it set and its runners. The notes, the ledger and intent's state (requests,
 * budgets, breakers) stay unless `removeData`; work-tree files `intent init` created are listed
 * for the user, who may have committed them. `intent init` afterwards gives the same state again.
 * The repository's resident processes (the hook server) are stopped first.
 * Nothing else stays: what does (data, intent worktrees still open, files of the user's) is listed.
 */
import { chmodSync, existsSync, readdirSync, readFileSync, renameSync, rmSync, unlinkSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { writeFileAtomic } from '../core/files.js';
import { NOTES_REF } from '../core/version.js';
import { git, gitRaw } from '../git/process.js';
import { openRepo, stateDir, type Repo } from '../git/repo.js';
import { hasBlock, readHookFile, replaceBlock, sha256 } from '../hooks/hook-file.js';
import { lexists, restoreCopy } from '../hooks/install.js';
import { originalsDir, readRecord, recordFile, type HookRecord } from '../hooks/install-record.js';
import { worktreeHooksPath } from '../hooks/worktree-hooks.js';
import { chainCacheFiles } from '../hooks/chain-cache.js';
import { ledgerPath } from '../trace/record-commit.js';
import { activeIntentFile } from '../intents/active.js';
import { loadConfig } from '../intents/config.js';
import { stopResidents } from '../hooks/residents.js';

/** What happened to one hook file. */
export interface HookRestore {
  file: string;
  /** restored: the original's bytes and mode are back; unchained: the chained original moved back; removed: intent had created it; stripped: changed since, intent's lines taken out; gone: intent's file was no longer there. */
  action: 'restored' | 'unchained' | 'removed' | 'stripped' | 'gone';
  /** For gone: where a chained original still is, for the user to put back. */
  note?: string;
}

export interface UninstallResult {
  root: string;
  hooks: HookRestore[];
  /** Intent worktrees whose core.hooksPath no longer points at intent's hooks. */
  worktrees: string[];
  /** Config removed, as `key -= value`. */
  config: string[];
  /** Intent's files removed from the git dir. */
  removed: string[];
  /** Work-tree files intent created or wrote into: the user removes them (they may be committed). */
  yours: string[];
  /** What was kept (notes, ledger, state, each intent worktree's record of its intent) or, with removeData, removed. */
  data: { kept: string[]; removed: string[] };
  /** The resident processes (the hook server) that were running and were stopped. */
  stopped: number[];
  /** Linked worktrees still open on an intent branch: they stay (intent done / abandon, or git worktree remove). */
  openWorktrees: string[];
  /** What would install intent again (a package.json script that runs `intent init`, as the README's team set-up has `prepare`): `<file>: <where>`. */
  reinstalls: string[];
}

/** Uninstalls intent from the repository around `cwd` (see the top of this file). */
export function uninstall(cwd: string, opts: { removeData?: boolean } = {}): UninstallResult {
  const repo = openRepo(cwd);
  const record = readRecord(repo.commonDir);
  const hooks = Object.values(record?.hooks ?? {}).map((r) => restoreHook(r, repo));
  const worktrees = unsetWorktreeHooks(repo);
  const config: string[] = [];
  const unset = (key: string, value: string) => {
    if (gitRaw(['config', '--fixed-value', '--unset', key, value], { cwd: repo.mainRoot }).status === 0) config.push(`${key} -= ${value}`);
  };
  for (const v of record?.config.rewriteRef ?? []) unset('notes.rewriteRef', v);
  for (const f of record?.config.fetch ?? []) unset(f.key, f.value);
  const merge = record?.config.mergeStrategy;
  if (merge) {
    unset(merge.key, merge.value);
    const section = merge.key.slice(0, merge.key.lastIndexOf('.'));
    if (!gitRaw(['config', '--get-regexp', `^${section.replace(/\./g, '\\.')}\\.`], { cwd: repo.mainRoot }).stdout.trim()) {
      gitRaw(['config', '--remove-section', section], { cwd: repo.mainRoot });
    }
  }
  if (config.some((c) => c.startsWith('notes.')) && !gitRaw(['config', '--get-regexp', '^notes\\.'], { cwd: repo.mainRoot }).stdout.trim()) {
    gitRaw(['config', '--remove-section', 'notes'], { cwd: repo.mainRoot });
  }
  if (record?.config.worktreeConfig) {
    if (worktreeConfigFiles(repo).every((f) => !configKeys(repo, f))) {
      for (const f of worktreeConfigFiles(repo)) rmSync(f, { force: true });
      unset('extensions.worktreeConfig', 'true');
      if (!gitRaw(['config', '--get-regexp', '^extensions\\.'], { cwd: repo.mainRoot }).stdout.trim()) gitRaw(['config', '--remove-section', 'extensions'], { cwd: repo.mainRoot });
    }
  }
  const state = stateDir(repo);
  // First: a server or worker still running would write into what is removed below.
  const stopped = stopResidents(state);
  const removed: string[] = [];
  // pre-commit's marks for prepare-commit-msg (lib/hooks/install.ts), beside each worktree's index.
  for (const gitDir of [repo.commonDir, ...linkedGitDirs(repo)]) {
    const mark = join(gitDir, 'intent-pre-commit-ran');
    if (lexists(mark)) {
      rmSync(mark, { force: true });
      removed.push(mark);
    }
  }
  // The folder `intent checkout` makes intent worktrees in, once none is left in it.
  const parent = worktreeParent(repo);
  if (parent && existsSync(parent) && readdirSync(parent).length === 0) {
    rmSync(parent, { recursive: true, force: true });
    removed.push(parent);
  }
  // The hook server's folder too: without it the server leaves within a second (lib/hooks/server.ts).
  for (const p of [join(state, 'bin'), join(state, 'server'), join(state, 'object-files') /* made by versions before session 20 */, worktreeHooksPath(repo), join(state, 'hooks.ref'), ...chainCacheFiles(repo), join(state, 'hooks.displaced'), originalsDir(repo.commonDir), recordFile(repo.commonDir)]) {
    if (lexists(p)) {
      rmSync(p, { recursive: true, force: true });
      removed.push(p);
    }
  }
  const yours = [...new Set([...(record?.created ?? []), ...(record?.agentFiles ?? [])])].filter((f) => existsSync(join(repo.mainRoot, f)));
  const data = opts.removeData ? removeData(repo) : { kept: keptData(repo), removed: [] };
  return { root: repo.mainRoot, hooks, worktrees, config, removed, yours, data, stopped, openWorktrees: openIntentWorktrees(repo), reinstalls: reinstallers(repo.mainRoot) };
}

/** Puts back one hook file intent wrote (also when an installer renamed it to `.old` or `.legacy` since). */
function restoreHook(r: HookRecord, repo: Repo): HookRestore {
  for (const at of [r.file, `${r.file}.old`, `${r.file}.legacy`]) {
    const f = readHookFile(at);
    if (!f.bytes || f.symlink || sha256(f.bytes) !== r.written) continue;
    if (r.action === 'created') {
      unlinkSync(at);
      return { file: at, action: 'removed' };
    }
    if (r.action === 'inserted' && r.backup && existsSync(join(originalsDir(repo.commonDir), r.backup))) {
      restoreCopy(join(originalsDir(repo.commonDir), r.backup), at, r.mode ?? f.mode);
      return { file: at, action: 'restored' };
    }
    if (r.action === 'chained' && r.chainedTo && lexists(r.chainedTo)) {
      renameSync(r.chainedTo, at);
      return { file: at, action: 'unchained' };
    }
    break;
  }
  // Changed since intent wrote it (or written by an older version without a copy of the original):
  // take intent's lines out, keep the rest.
  const f = readHookFile(r.file);
  if (!f.symlink && hasBlock(f.text)) {
    if (r.action === 'chained' && r.chainedTo && lexists(r.chainedTo)) {
      renameSync(r.chainedTo, r.file);
      return { file: r.file, action: 'unchained' };
    }
    const rest = replaceBlock(f.text!, '')!;
    if (rest === '#!/bin/sh\n' || rest === '') {
      unlinkSync(r.file);
      return { file: r.file, action: 'removed' };
    }
    writeFileAtomic(r.file, rest);
    chmodSync(r.file, f.mode); // (writeFileAtomic makes a new file)
    return { file: r.file, action: 'stripped' };
  }
  if (r.action === 'chained' && r.chainedTo && lexists(r.chainedTo)) {
    if (!lexists(r.file)) {
      renameSync(r.chainedTo, r.file);
      return { file: r.file, action: 'unchained' };
    }
    return { file: r.file, action: 'gone', note: `your original hook is at ${r.chainedTo}; ${r.file} is another installer's now` };
  }
  return { file: r.file, action: 'gone' };
}

/** Unsets core.hooksPath in every worktree config that points at intent's hooks; returns those worktrees. */
function unsetWorktreeHooks(repo: Repo): string[] {
  const dir = worktreeHooksPath(repo);
  const done: string[] = [];
  for (const file of worktreeConfigFiles(repo)) {
    const v = gitRaw(['config', '--file', file, '--get', 'core.hooksPath'], { cwd: repo.mainRoot }).stdout.trim();
    if (v !== dir) continue;
    git(['config', '--file', file, '--unset', 'core.hooksPath'], { cwd: repo.mainRoot });
    if (!gitRaw(['config', '--file', file, '--get-regexp', '^core\\.'], { cwd: repo.mainRoot }).stdout.trim()) {
      gitRaw(['config', '--file', file, '--remove-section', 'core'], { cwd: repo.mainRoot });
    }
    done.push(file === join(repo.commonDir, 'config.worktree') ? repo.mainRoot : worktreeOf(file));
  }
  return done;
}

function worktreeOf(configFile: string): string {
  try {
    const gitdir = join(configFile, '..', 'gitdir');
    return existsSync(gitdir) ? join(readFileSync(gitdir, 'utf8').trim(), '..') : configFile;
  } catch {
    return configFile;
  }
}

/** Every worktree's own config file (`config.worktree`) that exists. */
function worktreeConfigFiles(repo: Repo): string[] {
  const files = [join(repo.commonDir, 'config.worktree')];
  const wts = join(repo.commonDir, 'worktrees');
  if (existsSync(wts)) for (const id of readdirSync(wts)) files.push(join(wts, id, 'config.worktree'));
  return files.filter((f) => existsSync(f));
}

function configKeys(repo: Repo, file: string): string {
  return gitRaw(['config', '--file', file, '--list'], { cwd: repo.mainRoot }).stdout.trim();
}

/** Every linked worktree's own git folder (`<common>/worktrees/<id>`). */
function linkedGitDirs(repo: Repo): string[] {
  const wts = join(repo.commonDir, 'worktrees');
  return existsSync(wts) ? readdirSync(wts).map((id) => join(wts, id)) : [];
}

/** Where `intent checkout` puts worktrees by default (config worktreeDir, else `<repo>.worktrees`). */
function worktreeParent(repo: Repo): string | null {
  try {
    const config = loadConfig(repo.mainRoot, repo.mainRoot);
    return config.worktreeDir ? resolve(repo.mainRoot, config.worktreeDir) : join(dirname(repo.mainRoot), `${basename(repo.mainRoot)}.worktrees`);
  } catch {
    return join(dirname(repo.mainRoot), `${basename(repo.mainRoot)}.worktrees`);
  }
}

/** The linked worktrees still checked out on an intent branch (their work tree paths). */
function openIntentWorktrees(repo: Repo): string[] {
  return linkedGitDirs(repo).filter((d) => {
    try {
      return readFileSync(join(d, 'HEAD'), 'utf8').startsWith('ref: refs/heads/intent/');
    } catch {
      return false;
    }
  }).map((d) => worktreeOf(join(d, 'config.worktree')));
}

/** The data uninstall keeps by default. */
function keptData(repo: Repo): string[] {
  const kept: string[] = [];
  for (const d of linkedGitDirs(repo)) if (existsSync(activeIntentFile(d))) kept.push(activeIntentFile(d));
  if (gitRaw(['rev-parse', '-q', '--verify', NOTES_REF], { cwd: repo.mainRoot }).status === 0) kept.push(NOTES_REF);
  if (existsSync(ledgerPath(repo))) kept.push(relative(repo.mainRoot, ledgerPath(repo)));
  if (existsSync(stateDir(repo))) kept.push(stateDir(repo));
  return kept;
}

/** Deletes the notes (local and fetched), the ledger and intent's state dir. */
function removeData(repo: Repo): { kept: string[]; removed: string[] } {
  const removed: string[] = [];
  const refs = git(['for-each-ref', '--format=%(refname)', NOTES_REF, 'refs/notes/remotes/'], { cwd: repo.mainRoot })
    .split('\n')
    .filter((r) => r === NOTES_REF || /^refs\/notes\/remotes\/[^/]+\/intents$/.test(r));
  for (const ref of refs) {
    git(['update-ref', '-d', ref], { cwd: repo.mainRoot });
    removed.push(ref);
  }
  if (existsSync(ledgerPath(repo))) {
    rmSync(ledgerPath(repo));
    removed.push(relative(repo.mainRoot, ledgerPath(repo)));
  }
  if (existsSync(stateDir(repo))) {
    rmSync(stateDir(repo), { recursive: true, force: true });
    removed.push(stateDir(repo));
  }
  for (const d of linkedGitDirs(repo)) {
    if (!existsSync(activeIntentFile(d))) continue;
    rmSync(activeIntentFile(d), { force: true });
    removed.push(activeIntentFile(d));
  }
  return { kept: [], removed };
}

/** The scripts of the main worktree's package.json that run `intent init` (npm install would bring intent back). */
function reinstallers(root: string): string[] {
  const file = join(root, 'package.json');
  let scripts: unknown;
  try {
    scripts = (JSON.parse(readFileSync(file, 'utf8')) as { scripts?: unknown }).scripts;
  } catch {
    return [];
  }
  if (!scripts || typeof scripts !== 'object') return [];
  return Object.entries(scripts as Record<string, unknown>)
    .filter(([, v]) => typeof v === 'string' && /(?:^|[\s;&|(])(?:npx\s+)?intent\s+init\b/.test(v))
    .map(([k]) => `package.json: scripts.${k}`);
}
