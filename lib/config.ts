import { dirname, relative, resolve, isAbsolute } from 'node:path';
import { cosmiconfigSync } from 'cosmiconfig';
import { IntentError } from './errors.js';

/** Settings read from `intent.config.*`, `.intentrc*` or the `intent` key of package.json. */
export interface Config {
  /** Every commit, also a human's in the main worktree, must name an intent (`INTENT_ID=…`). */
  requireIntent: boolean;
  /** Where `intent checkout` puts worktrees; relative to the main worktree. */
  worktreeDir: string | null;
  /** The file the settings came from, or null for the defaults. */
  source: string | null;
}

const DEFAULTS: Config = { requireIntent: false, worktreeDir: null, source: null };
const KEYS: Record<string, 'boolean' | 'string'> = { requireIntent: 'boolean', worktreeDir: 'string' };

/**
 * Finds the nearest configuration from `startDir` up to and including `stopDir` (the repository
 * root, never above it). A file that does not parse or has unknown or mistyped keys is an error,
 * never "no config".
 */
export function loadConfig(startDir: string, stopDir: string): Config {
  const explorer = cosmiconfigSync('intent', { searchStrategy: 'none', cache: false });
  let dir = resolve(startDir);
  const stop = resolve(stopDir);
  for (;;) {
    let found;
    try {
      found = explorer.search(dir);
    } catch (e) {
      throw new IntentError('CONFIG_INVALID', `Cannot read the intent configuration in ${dir}: ${(e as Error).message}`, { dir });
    }
    if (found && !found.isEmpty) return validate(found.config, found.filepath);
    const rel = relative(stop, dir);
    if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) return { ...DEFAULTS };
    dir = dirname(dir);
  }
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
    if (typeof v !== want) {
      throw new IntentError('CONFIG_INVALID', `${file}: "${k}" must be a ${want}, got ${JSON.stringify(v)}.`, { file, key: k });
    }
    (out as unknown as Record<string, unknown>)[k] = v;
  }
  return out;
}
