import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve, isAbsolute } from 'node:path';
import { IntentError } from '../core/errors.js';

/** Settings read from `intent.config.*`, `.intentrc*` or the `intent` key of package.json. */
export interface Config {
  /** Every commit, also a human's in the main worktree, must name an intent (`INTENT_ID=…`). */
  requireIntent: boolean;
  /** Where `intent checkout` puts worktrees; relative to the main worktree. */
  worktreeDir: string | null;
  /** `intent checkout` refuses (SCOPE_OVERLAP) instead of warning when scopes overlap. Default false. */
  strictOverlap?: boolean;
  /** Refused commits within the window that open an intent's circuit breaker. Default 5. */
  breakerMaxRejections?: number;
  /** The circuit breaker's window in minutes. Default 10. */
  breakerWindowMinutes?: number;
  /**
   * What `intent checkout` does to a new worktree so the project runs there: files to copy from the
   * main worktree (`copy`, paths in it, e.g. ".env") and commands to run in it (`run`); `false`
   * for nothing. Default: the lockfile's install (npm ci, pnpm, yarn, bun) when there is a
   * package.json and no node_modules.
   */
  worktreeSetup?: false | { copy: string[]; run: string[] };
  /** The file the settings came from, or null for the defaults. */
  source: string | null;
}

const DEFAULTS: Config = { requireIntent: false, worktreeDir: null, source: null };
const KEYS: Record<string, 'boolean' | 'string' | 'number' | 'setup'> = {
  requireIntent: 'boolean', worktreeDir: 'string', strictOverlap: 'boolean', breakerMaxRejections: 'number', breakerWindowMinutes: 'number',
  worktreeSetup: 'setup',
};

/**
 * Finds the nearest configuration from `startDir` up to and including `stopDir` (the repository
 * root, never above it). A file that does not parse or has unknown or mistyped keys is an error,
 * never "no config".
 */
export function loadConfig(startDir: string, stopDir: string): Config {
  let explorer: ReturnType<typeof import('cosmiconfig').cosmiconfigSync> | null = null;
  let dir = resolve(startDir);
  const stop = resolve(stopDir);
  for (;;) {
    let found;
    try {
      // cosmiconfig costs a hook more than everything else it loads: only load it where a
      // candidate file exists.
      if (mayHaveConfig(dir)) {
        explorer ??= (require('cosmiconfig') as typeof import('cosmiconfig')).cosmiconfigSync('intent', { searchStrategy: 'none', cache: false });
        found = explorer.search(dir);
      }
    } catch (e) {
      throw new IntentError('CONFIG_INVALID', `Cannot read the intent configuration in ${dir}: ${(e as Error).message}`, { dir });
    }
    if (found && !found.isEmpty) return validate(found.config, found.filepath);
    const rel = relative(stop, dir);
    if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) return { ...DEFAULTS };
    dir = dirname(dir);
  }
}

const require = createRequire(import.meta.url);

/** cosmiconfig's search places for the module name "intent" (package.json is checked by key). */
const PLACES = [
  '.intentrc', '.intentrc.json', '.intentrc.yaml', '.intentrc.yml', '.intentrc.js', '.intentrc.ts', '.intentrc.cjs', '.intentrc.mjs',
  '.config/intentrc', '.config/intentrc.json', '.config/intentrc.yaml', '.config/intentrc.yml', '.config/intentrc.js',
  '.config/intentrc.ts', '.config/intentrc.cjs', '.config/intentrc.mjs',
  'intent.config.js', 'intent.config.ts', 'intent.config.cjs', 'intent.config.mjs',
];

function mayHaveConfig(dir: string): boolean {
  if (process.platform === 'linux' ? placesListed(dir) : PLACES.some((p) => existsSync(join(dir, p)))) return true;
  const pkg = join(dir, 'package.json');
  const st = statSync(pkg, { throwIfNoEntry: false, bigint: true });
  if (!st) return false;
  // package.json's "intent" key, read again only when the file changed (it is read on every commit).
  const id = `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
  const known = pkgKey.get(pkg);
  if (known?.id === id) return known.has;
  let has = false;
  try {
    has = Object.prototype.hasOwnProperty.call(JSON.parse(readFileSync(pkg, 'utf8')), 'intent');
  } catch {
    // A package.json that does not parse is the project's problem, not a broken intent config:
    // blocking commits on it would block the commit that fixes it.
  }
  pkgKey.set(pkg, { id, has });
  return has;
}

/** Whether package.json has an "intent" key, by file and its identity when read. */
const pkgKey = new Map<string, { id: string; has: boolean }>();

/**
 * Whether one of cosmiconfig's places is there, from the folder's listing (and `.config/`'s) rather
 * than a look-up per place: one call, not twenty, on every commit. Linux only (a case-insensitive
 * file system finds `.IntentRC` by the look-up, not in a listing); a name listed is looked up to
 * be sure (a dangling link is not a config, as before).
 */
function placesListed(dir: string): boolean {
  let names: Set<string>;
  try {
    names = new Set(readdirSync(dir));
  } catch {
    return PLACES.some((p) => existsSync(join(dir, p)));
  }
  let inConfig: Set<string> | null = null;
  return PLACES.some((p) => {
    if (!p.startsWith('.config/')) return names.has(p) && existsSync(join(dir, p));
    if (!names.has('.config')) return false;
    if (inConfig === null) {
      try {
        inConfig = new Set(readdirSync(join(dir, '.config')));
      } catch {
        inConfig = new Set();
      }
    }
    return inConfig.has(p.slice('.config/'.length)) && existsSync(join(dir, p));
  });
}

function validate(raw: unknown, file: string): Config {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new IntentError('CONFIG_INVALID', `${file}: the intent configuration must be an object, e.g. { "requireIntent": true }.`, { file });
  }
  const out: Config = { ...DEFAULTS, source: file };
  for (const [k, v] of Object.entries(raw)) {
    const want = KEYS[k];
    if (!want) {
      throw new IntentError('CONFIG_INVALID', `${file}: unknown key "${k}"; known keys are ${Object.keys(KEYS).join(', ')}.`, { file, key: k });
    }
    if (want === 'setup') {
      (out as unknown as Record<string, unknown>)[k] = setupOf(v, file);
      continue;
    }
    if (typeof v !== want) {
      throw new IntentError('CONFIG_INVALID', `${file}: "${k}" must be a ${want}, got ${JSON.stringify(v)}.`, { file, key: k });
    }
    if (want === 'number' && (!Number.isSafeInteger(v) || (v as number) < 1)) {
      throw new IntentError('CONFIG_INVALID', `${file}: "${k}" must be a whole number of at least 1, got ${JSON.stringify(v)}.`, { file, key: k });
    }
    (out as unknown as Record<string, unknown>)[k] = v;
  }
  return out;
}

/** `worktreeSetup`: false, or `{ copy?: string[], run?: string | string[] }` with paths inside the worktree. */
function setupOf(v: unknown, file: string): false | { copy: string[]; run: string[] } {
  const bad = (why: string) => new IntentError('CONFIG_INVALID', `${file}: "worktreeSetup" ${why}, e.g. { "copy": [".env"], "run": "npm ci" }, or false for nothing.`, { file, key: 'worktreeSetup' });
  if (v === false) return false;
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw bad(`must be false or an object, got ${JSON.stringify(v)}`);
  const o = v as Record<string, unknown>;
  for (const k of Object.keys(o)) if (k !== 'copy' && k !== 'run') throw bad(`has an unknown key "${k}" (known: copy, run)`);
  const list = (x: unknown, name: string): string[] => {
    if (x === undefined) return [];
    const arr = typeof x === 'string' && name === 'run' ? [x] : x;
    if (!Array.isArray(arr) || arr.some((s) => typeof s !== 'string' || !s.trim())) throw bad(`"${name}" must be a list of non-empty strings`);
    return arr as string[];
  };
  const copy = list(o.copy, 'copy');
  const outside = copy.find((p) => isAbsolute(p) || p.split(/[\\/]/).includes('..') || p.split(/[\\/]/).includes('.git'));
  if (outside) throw bad(`"copy" names ${JSON.stringify(outside)}, which is not a path inside the worktree`);
  return { copy, run: list(o.run, 'run') };
}
