/**
 * The chain cache of intent worktrees' hooks, `<git-common-dir>/intent/hooks-chain.sh`. Each hook
 * of an intent worktree (git-hooks/worktree-hook.sh) passes on to the repository's own hook, found
 * in the core.hooksPath the main worktree uses; asking git for it costs one `git config` process
 * per hook, four or five per commit. The cache holds the answer and what it depends on, so the
 * shell checks it with builtins only: the hook sources it (`.`, read in blocks: the shell's `read`
 * takes a byte a call, about 0.5 ms of CPU a hook for the 700 bytes of a plain line format):
 *
 *   line 1  `# intent-chain 2 …`
 *   line 2  `# <JSON>`: what follows, for node (readChainCache)
 *   line 3  `intent_v=2 intent_k=<key> orig=<folder> intent_skip=<hooks>`, quoted for the shell:
 *           the variables that move git's config files (GIT_CONFIG_GLOBAL, GIT_CONFIG_SYSTEM,
 *           GIT_CONFIG_NOSYSTEM, HOME, XDG_CONFIG_HOME), `|`-joined, as the hook sees them; the
 *           repository's own hooks folder (absolute); the hooks there that are intent's block and
 *           nothing else (chaining them does nothing)
 *   then    a loop over every file the answer depends on (the config files git reads: system,
 *           global, local; the hooks folder itself, as a hook added, removed or renamed changes its
 *           mtime; each hook of intent_skip) that empties intent_v when one is as new as the cache
 *           (`$intent_cache`, the file itself)
 *
 * The cache holds while none of those files is as new as the cache file, whose mtime is set to just
 * before the config was read (STAMP_MARGIN_MS); a file changed in that moment counts as changed. A hook that finds it stale, or runs with settings on the command line
 * (`git -c`, GIT_CONFIG_COUNT/KEY/VALUE) that name hooksPath or an include, asks git as before. A configuration with include directives is
 * not cached (their files and conditions are not followed): every hook asks git. Written by
 * `intent checkout` and refreshed by pre-commit when stale; never load-bearing for enforcement
 * (intent's own hook runs before the chain either way).
 */
import { readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { gitRaw } from '../git/process.js';
import { stateDir, type Repo } from '../git/repo.js';
import { CHAINED_HOOKS, createdText, shQuote, type HookDirKind } from './install.js';

const VERSION = '# intent-chain 2';
/**
 * How far before the config was read the cache's mtime is set: file times come from the kernel's
 * coarse clock (a jiffy, up to 10 ms, behind the real time), so a file changed just after the read
 * may be stamped a little before it; with the margin it is still as new as the cache (stale).
 */
const STAMP_MARGIN_MS = 50;
const KINDS: HookDirKind[] = ['git-dir', 'work-tree', 'outside'];

/** The cache file of the repository `repo`. */
export function chainCachePath(repo: Repo): string {
  return join(stateDir(repo), 'hooks-chain.sh');
}

/** The cache files of `repo`, this one and the line format's before it (`hooks-chain`, never sourced). */
export function chainCacheFiles(repo: Repo): string[] {
  return [chainCachePath(repo), join(stateDir(repo), 'hooks-chain')];
}

/** The `|`-joined variables that decide which config files git reads (line 2). */
export function chainKey(env: NodeJS.ProcessEnv): string {
  return ['GIT_CONFIG_GLOBAL', 'GIT_CONFIG_SYSTEM', 'GIT_CONFIG_NOSYSTEM', 'HOME', 'XDG_CONFIG_HOME'].map((k) => env[k] ?? '').join('|');
}

/** What the cache says, parsed (null: no cache, or another version). */
export interface ChainCache {
  key: string;
  orig: string;
  skip: string[];
  files: string[];
}

export function readChainCache(file: string): ChainCache | null {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return null;
  }
  const [v, json] = text.split('\n');
  if (!v?.startsWith(`${VERSION}:`) || !json?.startsWith('# ')) return null;
  try {
    const c = JSON.parse(json.slice(2)) as ChainCache;
    return typeof c.key === 'string' && typeof c.orig === 'string' && Array.isArray(c.skip) && Array.isArray(c.files) ? c : null;
  } catch {
    return null;
  }
}

const DECISIVE = /hookspath|include/i;

/**
 * Whether settings given on the command line (`git -c`: GIT_CONFIG_PARAMETERS; GIT_CONFIG_COUNT
 * with GIT_CONFIG_KEY_<n>) may decide the hooks folder: any that names hooksPath or an include
 * (worktree-hook.sh makes the same test).
 */
export function commandScopeDecides(env: NodeJS.ProcessEnv): boolean {
  if (DECISIVE.test(env.GIT_CONFIG_PARAMETERS ?? '')) return true;
  const count = env.GIT_CONFIG_COUNT ?? '';
  if (count === '') return false;
  if (!/^[0-9]{1,4}$/.test(count)) return true;
  for (let i = 0; i < Number(count); i++) if (DECISIVE.test(env[`GIT_CONFIG_KEY_${i}`] ?? '')) return true;
  return false;
}

/** Whether the shell would take the cache for a hook running with `env` (the same test, in node). */
export function chainCacheHolds(file: string, env: NodeJS.ProcessEnv): boolean {
  if (commandScopeDecides(env)) return false;
  const cache = readChainCache(file);
  if (!cache || cache.key !== chainKey(env)) return false;
  const own = statSync(file, { bigint: true, throwIfNoEntry: false });
  if (!own) return false;
  return cache.files.every((f) => {
    const s = statSync(f, { bigint: true, throwIfNoEntry: false });
    return !s || own.mtimeNs > s.mtimeNs;
  });
}

/**
 * Brings the cache up to date for hooks that run with `env` in the worktree `cwd` of `repo`
 * (nothing when it holds). Returns whether it wrote it. Throws only on a failed write; a
 * configuration it cannot cache removes the file (hooks then ask git).
 */
export function refreshChainCache(repo: Repo, cwd: string, env: NodeJS.ProcessEnv): boolean {
  if (commandScopeDecides(env)) return false;
  const file = chainCachePath(repo);
  if (chainCacheHolds(file, env)) return false;
  // The time the config is read, by the file system's own clock (the one that stamps the files
  // the cache depends on): the new file's mtime.
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, '');
  try {
    const readAt = statSync(tmp).mtimeMs;
    const text = chainCacheText(repo, cwd, env);
    if (text === null) {
      rmSync(file, { force: true });
      return false;
    }
    writeFileSync(tmp, text);
    const stamp = (readAt - STAMP_MARGIN_MS) / 1000;
    utimesSync(tmp, stamp, stamp);
    renameSync(tmp, file);
    for (const old of chainCacheFiles(repo).slice(1)) rmSync(old, { force: true });
    return true;
  } finally {
    rmSync(tmp, { force: true });
  }
}

const configEnv = (env: NodeJS.ProcessEnv) => ({ GIT_CONFIG_GLOBAL: env.GIT_CONFIG_GLOBAL, GIT_CONFIG_SYSTEM: env.GIT_CONFIG_SYSTEM, GIT_CONFIG_NOSYSTEM: env.GIT_CONFIG_NOSYSTEM, HOME: env.HOME, XDG_CONFIG_HOME: env.XDG_CONFIG_HOME });

/**
 * The repository's own hooks folder, which the hooks of intent worktrees run with `env` in `cwd`
 * pass on to (what worktree-hook.sh reads when the cache does not hold: the last core.hooksPath of
 * a scope other than the worktree's, else `<git-common-dir>/hooks`), or null when git cannot tell
 * or settings on the command line decide it (commandScopeDecides).
 */
export function chainTarget(repo: Repo, cwd: string, env: NodeJS.ProcessEnv): string | null {
  if (commandScopeDecides(env)) return null;
  const got = gitRaw(['config', '--show-scope', '--type=path', '--get-all', 'core.hooksPath'], { cwd, inheritRepoEnv: true, env: configEnv(env) });
  if (got.status !== 0 && got.status !== 1) return null;
  let orig = '';
  for (const line of got.stdout.split('\n')) {
    if (!line || line.startsWith('worktree')) continue;
    orig = line.slice(line.indexOf('\t') + 1);
  }
  return orig === '' ? join(repo.commonDir, 'hooks') : isAbsolute(orig) ? orig : `${repo.mainRoot}/${orig}`;
}

/** Whether hook `hook` of the hooks folder `dir` is a file intent created, its block and nothing else (chaining it does nothing). */
export function onlyIntentsBlock(dir: string, hook: string): boolean {
  let text: string;
  try {
    text = readFileSync(join(dir, hook), 'utf8');
  } catch {
    return false;
  }
  return KINDS.some((k) => text === createdText(hook, k));
}

/** The cache's text for hooks run with `env` in `cwd`, or null when the configuration cannot be cached. */
function chainCacheText(repo: Repo, cwd: string, env: NodeJS.ProcessEnv): string | null {
  const gitEnv = configEnv(env);
  const orig = chainTarget(repo, cwd, env);
  if (orig === null) return null;
  const files = configFiles(repo, env);
  // Every file a setting came from must be one the cache watches (else: an include).
  const listed = gitRaw(['config', '--list', '--show-origin', '--show-scope', '-z'], { cwd, inheritRepoEnv: true, env: gitEnv });
  if (listed.status !== 0) return null;
  const fields = listed.stdout.split('\0');
  for (let i = 0; i + 2 < fields.length; i += 3) {
    const [scope, origin] = [fields[i], fields[i + 1]];
    if (scope === 'worktree' || scope === 'command') continue;
    if (!origin.startsWith('file:') || !files.includes(origin.slice(5))) return null;
  }
  const skip = CHAINED_HOOKS.filter((h) => onlyIntentsBlock(orig, h));
  const cache: ChainCache = { key: chainKey(env), orig, skip, files: [...files, orig, ...skip.map((h) => join(orig, h))] };
  if ([cache.key, ...cache.files].some((l) => l.includes('\n'))) return null;
  return [
    `${VERSION}: the chain cache of intent worktrees' hooks, sourced by them (lib/hooks/chain-cache.ts)`,
    `# ${JSON.stringify(cache)}`,
    `intent_v=2 intent_k=${shQuote(cache.key)} orig=${shQuote(orig)} intent_skip=${shQuote(skip.join(' '))}`,
    `for intent_f in ${cache.files.map(shQuote).join(' ')}; do`,
    '  if [ -e "$intent_f" ] && ! [ "$intent_cache" -nt "$intent_f" ]; then intent_v=; fi',
    'done',
    '',
  ].join('\n');
}

/** The config files git reads for a hook run with `env` (system, global, local), existing or not. */
function configFiles(repo: Repo, env: NodeJS.ProcessEnv): string[] {
  const out: string[] = [];
  const truthy = (v: string | undefined) => !!v && !/^(0|false|no|off)$/i.test(v);
  if (!truthy(env.GIT_CONFIG_NOSYSTEM)) {
    if (env.GIT_CONFIG_SYSTEM !== undefined) out.push(env.GIT_CONFIG_SYSTEM);
    else out.push('/etc/gitconfig', '/usr/local/etc/gitconfig', '/opt/homebrew/etc/gitconfig');
  }
  if (env.GIT_CONFIG_GLOBAL !== undefined) out.push(env.GIT_CONFIG_GLOBAL);
  else {
    if (env.HOME) out.push(join(env.HOME, '.gitconfig'));
    const xdg = env.XDG_CONFIG_HOME || (env.HOME ? join(env.HOME, '.config') : '');
    if (xdg) out.push(join(xdg, 'git', 'config'));
  }
  out.push(join(repo.commonDir, 'config'));
  return out.filter((f) => f !== '' && f !== '/dev/null');
}
