#!/usr/bin/env node
// The real Cline CLI for the end-to-end test (test/e2e/cline.test.ts) and the fixture capture
// (scripts/cline-capture.mjs): one pinned version from npm, installed into a cache directory
// outside this package's dependencies, so a user's `npm ci` stays small. `.ci/run` runs
// `node scripts/cline-e2e.mjs install` first.
//
//   node scripts/cline-e2e.mjs install   installs it when it is not there yet, prints the binary
//   node scripts/cline-e2e.mjs path      prints where the binary is (installed or not)
//
// INTENT_E2E_CLINE_DIR overrides the cache directory (default: $XDG_CACHE_HOME or ~/.cache, then
// intent-e2e/cline-<version>).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The Cline CLI version the end-to-end test runs (its hook payloads are what we test against). */
export const CLINE_VERSION = '3.0.65';

/** The directory the pinned version is installed into (`npm install --prefix`). */
export function clineDir() {
  if (process.env.INTENT_E2E_CLINE_DIR) return resolve(process.env.INTENT_E2E_CLINE_DIR);
  const cache = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(cache, 'intent-e2e', `cline-${CLINE_VERSION}`);
}

/**
 * The `cline` binary of the pinned version: the compiled binary of this platform's package (it
 * does not depend on the wrapper's postinstall, which npm may not run), else the wrapper.
 */
export function clineBin() {
  const modules = join(clineDir(), 'node_modules');
  const exe = process.platform === 'win32' ? 'cline.exe' : 'cline';
  const native = join(modules, '@cline', `cli-${process.platform}-${process.arch}`, 'bin', exe);
  if (existsSync(native)) return native;
  return join(modules, '.bin', process.platform === 'win32' ? 'cline.cmd' : 'cline');
}

/** Whether the binary is there and reports the pinned version. */
export function clineReady() {
  if (!existsSync(clineBin())) return false;
  const r = spawnSync(clineBin(), ['--version'], { encoding: 'utf8', timeout: 60_000, env: { ...process.env, CLINE_DIR: join(clineDir(), 'version-home') } });
  return r.status === 0 && r.stdout.trim().startsWith(CLINE_VERSION);
}

/** Installs the pinned version (about 430 MB: the wrapper, the SDK packages and this platform's binary). */
export function installCline() {
  if (clineReady()) return clineBin();
  const dir = clineDir();
  mkdirSync(dir, { recursive: true });
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const r = spawnSync(npm, ['install', '--prefix', dir, '--no-audit', '--no-fund', '--no-save', `cline@${CLINE_VERSION}`], { stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`npm install cline@${CLINE_VERSION} into ${dir} failed (exit ${r.status}).`);
  if (!clineReady()) throw new Error(`${clineBin()} does not run or is not version ${CLINE_VERSION} after the install.`);
  return clineBin();
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const cmd = process.argv[2];
  if (cmd === 'install') console.log(installCline());
  else if (cmd === 'path') console.log(clineBin());
  else {
    console.error('usage: node scripts/cline-e2e.mjs install|path');
    process.exit(2);
  }
}
