#!/usr/bin/env node
// The real Claude Code CLI for the end-to-end tests (test/e2e/claude-code.test.ts): one pinned
// version from npm, installed into a cache directory outside this package's dependencies, so a
// user's `npm ci` stays small. `.ci/run` runs `node scripts/claude-code-e2e.mjs install` first.
//
//   node scripts/claude-code-e2e.mjs install   installs it when it is not there yet, prints the binary
//   node scripts/claude-code-e2e.mjs path      prints where the binary is (installed or not)
//
// INTENT_E2E_CLAUDE_DIR overrides the cache directory (default: $XDG_CACHE_HOME or ~/.cache,
// then intent-e2e/claude-code-<version>).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The Claude Code version the end-to-end tests run (its hook payloads are what we test against). */
export const CLAUDE_CODE_VERSION = '2.1.330';

/** The directory the pinned version is installed into (`npm install --prefix`). */
export function claudeCodeDir() {
  if (process.env.INTENT_E2E_CLAUDE_DIR) return resolve(process.env.INTENT_E2E_CLAUDE_DIR);
  const cache = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(cache, 'intent-e2e', `claude-code-${CLAUDE_CODE_VERSION}`);
}

/**
 * The `claude` binary of the pinned version: the native binary of this platform's package (it does
 * not depend on the wrapper's postinstall, which npm may not run), else the wrapper's bin link.
 */
export function claudeCodeBin() {
  const modules = join(claudeCodeDir(), 'node_modules');
  const exe = process.platform === 'win32' ? 'claude.exe' : 'claude';
  for (const suffix of ['', '-musl']) {
    const native = join(modules, '@anthropic-ai', `claude-code-${process.platform}-${process.arch}${suffix}`, exe);
    if (existsSync(native)) return native;
  }
  return join(modules, '.bin', process.platform === 'win32' ? 'claude.cmd' : 'claude');
}

/** Whether the binary is there and reports the pinned version. */
export function claudeCodeReady() {
  if (!existsSync(claudeCodeBin())) return false;
  const r = spawnSync(claudeCodeBin(), ['--version'], { encoding: 'utf8', timeout: 60_000 });
  return r.status === 0 && r.stdout.startsWith(CLAUDE_CODE_VERSION);
}

/** Installs the pinned version (about 370 MB: the package and its native binary for this platform). */
export function installClaudeCode() {
  if (claudeCodeReady()) return claudeCodeBin();
  const dir = claudeCodeDir();
  mkdirSync(dir, { recursive: true });
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const r = spawnSync(npm, ['install', '--prefix', dir, '--no-audit', '--no-fund', '--no-save', `@anthropic-ai/claude-code@${CLAUDE_CODE_VERSION}`], { stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`npm install @anthropic-ai/claude-code@${CLAUDE_CODE_VERSION} into ${dir} failed (exit ${r.status}).`);
  if (!claudeCodeReady()) throw new Error(`${claudeCodeBin()} does not run or is not version ${CLAUDE_CODE_VERSION} after the install.`);
  return claudeCodeBin();
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const cmd = process.argv[2];
  if (cmd === 'install') console.log(installClaudeCode());
  else if (cmd === 'path') console.log(claudeCodeBin());
  else {
    console.error('usage: node scripts/claude-code-e2e.mjs install|path');
    process.exit(2);
  }
}
