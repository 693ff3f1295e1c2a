#!/usr/bin/env node
// The real Codex CLI for the end-to-end tests (test/e2e/codex.test.ts): one pinned version from
// npm (a native binary in a per-platform package; the wrapper runs on Node 16+), installed into a
// cache directory outside this package's dependencies.
//
//   node scripts/codex-e2e.mjs install   installs it when it is not there yet, prints the binary
//   node scripts/codex-e2e.mjs path      prints where the binary is (installed or not)
//
// INTENT_E2E_CODEX_DIR overrides the cache directory (default: $XDG_CACHE_HOME or ~/.cache, then
// intent-e2e/codex-<version>).
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pinnedCli, pinnedCliMain } from './pinned-cli.mjs';

/** The Codex CLI version the end-to-end tests run (its hook payloads are what we test against). */
export const CODEX_VERSION = '0.171.0';

export const codex = pinnedCli({ name: 'codex', pkg: '@openai/codex', version: CODEX_VERSION, envDir: 'INTENT_E2E_CODEX_DIR', bin: '.bin/codex' });

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) pinnedCliMain(codex, 'scripts/codex-e2e.mjs');
