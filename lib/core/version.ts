import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package root: the nearest folder above this module with our package.json (from lib/ or dist/lib/). */
export const PKG_ROOT: string = (() => {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg) && (JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'intent-governance') return dir;
    const up = dirname(dir);
    if (up === dir) throw new Error('cannot find the intent-governance package.json');
    dir = up;
  }
})();

/** This package's version, read once from its package.json. */
export const TOOL_VERSION: string = (JSON.parse(readFileSync(join(PKG_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

/** The `tool.name` written into every trace record. */
export const TOOL_NAME = 'intent';

/** The `metadata` key of this toolkit's fields in trace records. */
export const METADATA_KEY = 'dev.intent';

/** The notes ref that carries trace records. */
export const NOTES_REF = 'refs/notes/intents';
/** Records `intent import` made from another tool's notes: credited as imported, never as checked by the gate. */
export const IMPORTED_NOTES_REF = 'refs/notes/intents-imported';
