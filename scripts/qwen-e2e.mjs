#!/usr/bin/env node
// The real Qwen Code CLI for the end-to-end tests (test/e2e/qwen.test.ts): one pinned version from
// npm, installed into a cache directory outside this package's dependencies.
//
//   node scripts/qwen-e2e.mjs install   installs it when it is not there yet, prints the binary
//   node scripts/qwen-e2e.mjs path      prints where the binary is (installed or not)
//
// INTENT_E2E_QWEN_DIR overrides the cache directory (default: $XDG_CACHE_HOME or ~/.cache, then
// intent-e2e/qwen-code-<version>).
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pinnedCli, pinnedCliMain } from './pinned-cli.mjs';

/** The Qwen Code version the end-to-end tests run (its hook payloads are what we test against). */
export const QWEN_CODE_VERSION = '0.24.4';

export const qwen = pinnedCli({ name: 'qwen-code', pkg: '@qwen-code/qwen-code', version: QWEN_CODE_VERSION, envDir: 'INTENT_E2E_QWEN_DIR', bin: '.bin/qwen' });

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) pinnedCliMain(qwen, 'scripts/qwen-e2e.mjs');
