#!/usr/bin/env node
// The real GitHub Copilot CLI for the end-to-end tests (test/e2e/copilot.test.ts): one pinned
// version from npm, installed into a cache directory outside this package's dependencies.
//
//   node scripts/copilot-e2e.mjs install   installs it when it is not there yet, prints the binary
//   node scripts/copilot-e2e.mjs path      prints where the binary is (installed or not)
//
// INTENT_E2E_COPILOT_DIR overrides the cache directory (default: $XDG_CACHE_HOME or ~/.cache, then
// intent-e2e/copilot-<version>).
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pinnedCli, pinnedCliMain } from './pinned-cli.mjs';

/** The Copilot CLI version the end-to-end tests run (its hook payloads are what we test against). */
export const COPILOT_VERSION = '1.0.102';

export const copilot = pinnedCli({ name: 'copilot', pkg: '@github/copilot', version: COPILOT_VERSION, envDir: 'INTENT_E2E_COPILOT_DIR', bin: '.bin/copilot' });

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) pinnedCliMain(copilot, 'scripts/copilot-e2e.mjs');
