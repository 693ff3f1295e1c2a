/**
 * Loads the TypeScript compiler with a V8 code cache. `require('typescript')` compiles 9 MB of
 * JavaScript on every load (about 0.25 s here, most of a refactor commit's post-commit); with the
 * bytecode V8 produced in an earlier process, loading it costs a fraction of that (numbers in
 * docs/decisions.md). Node 22's `module.enableCompileCache()` does the same for every module but
 * does not exist in Node 20, so this is the same mechanism by hand: `vm.Script` with `cachedData`.
 *
 * The cache lives in a folder the caller names (the hooks use `<git-common-dir>/intent/`, owned by
 * whoever owns the repository), one file per V8 version, architecture and typescript.js (size and
 * modification time); V8 itself rejects data from another build or with other flags, and then the
 * file is compiled as usual and the cache written again. Any failure falls back to `require`.
 */
import { isAscii } from 'node:buffer';
import { readFileSync, statSync } from 'node:fs';
import { replaceFile } from '../core/files.js';
import Module, { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Script } from 'node:vm';

/** Where to keep the code cache; null: load TypeScript with a plain `require`. */
let cacheDir: string | null = null;

/** Turns the code cache on for later loads of TypeScript in this process (null turns it off). */
export function useTypeScriptCodeCache(dir: string | null): void {
  cacheDir = dir;
}

/**
 * The `typescript` module: through the code cache when a folder was given, else `require`. When
 * the cache was missing or rejected, a new one is written when the process exits (by then the
 * classification has compiled the functions it uses, so the next process gets those too).
 */
export function requireTypeScript<T>(from: string): T {
  const req = createRequire(from);
  if (!cacheDir) return req('typescript') as T;
  try {
    return viaCodeCache<T>(req, cacheDir);
  } catch {
    return req('typescript') as T;
  }
}

function viaCodeCache<T>(req: NodeJS.Require, dir: string): T {
  const file = req.resolve('typescript');
  const st = statSync(file);
  const cacheFile = join(dir, `typescript-${process.versions.v8}-${process.arch}-${st.size}-${Math.floor(st.mtimeMs)}.v8cache`);
  let cachedData: Buffer | undefined;
  try {
    cachedData = readFileSync(cacheFile);
  } catch { /* first time */ }
  // typescript.js is ASCII: latin1 reads it without UTF-8 decoding (a third of the read time).
  const bytes = readFileSync(file);
  const source = bytes.toString(isAscii(bytes) ? 'latin1' : 'utf8');
  const script = new Script(Module.wrap(source), { filename: file, cachedData });
  const module = { exports: {} as T };
  const fn = script.runInThisContext() as (e: unknown, r: NodeJS.Require, m: unknown, f: string, d: string) => void;
  fn.call(module.exports, module.exports, createRequire(file), module, file, dirname(file));
  if (!cachedData || script.cachedDataRejected) {
    unsaved = () => {
      unsaved = null;
      try {
        replaceFile(cacheFile, script.createCachedData());
      } catch { /* no cache */ }
    };
    process.once('exit', () => unsaved?.());
  }
  return module.exports;
}

/** Writes the code cache a load found missing or rejected, if not yet written. */
let unsaved: (() => void) | null = null;

/**
 * Writes the TypeScript code cache now rather than when the process exits (a process that stays,
 * like the hook server, or one whose last writes must come before it tells
 * others it is done); nothing when there is nothing to write.
 */
export function saveTypeScriptCodeCache(): void {
  unsaved?.();
}
