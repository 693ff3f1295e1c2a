#!/usr/bin/env node
// The real Gemini CLI for the end-to-end tests (test/e2e/gemini.test.ts): one pinned version from
// npm (it runs on Node 20), installed into a cache directory outside this package's dependencies.
//
//   node scripts/gemini-e2e.mjs install   installs it when it is not there yet, prints the binary
//   node scripts/gemini-e2e.mjs path      prints where the binary is (installed or not)
//
// INTENT_E2E_GEMINI_DIR overrides the cache directory (default: $XDG_CACHE_HOME or ~/.cache, then
// intent-e2e/gemini-cli-<version>).
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pinnedCli, pinnedCliMain } from './pinned-cli.mjs';

/** The Gemini CLI version the end-to-end tests run (its hook payloads are what we test against). */
export const GEMINI_CLI_VERSION = '0.61.0';

export const gemini = pinnedCli({ name: 'gemini-cli', pkg: '@google/gemini-cli', version: GEMINI_CLI_VERSION, envDir: 'INTENT_E2E_GEMINI_DIR', bin: '.bin/gemini' });

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) pinnedCliMain(gemini, 'scripts/gemini-e2e.mjs');
