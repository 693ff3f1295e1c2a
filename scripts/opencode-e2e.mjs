#!/usr/bin/env node
// The real OpenCode for the end-to-end tests (test/e2e/opencode.test.ts): one pinned version from
// npm (`opencode-ai`: a native binary in a per-platform package, `opencode-linux-x64` and the like,
// which its postinstall links to bin/opencode.exe), installed into a cache directory outside this
// package's dependencies. OpenCode installs a provider's npm package (`@ai-sdk/openai-compatible`)
// at run time; `install` also puts it into the cache directory (npm-cache/ under it) so a run needs
// no registry of its own: the test points OpenCode's cache there.
//
//   node scripts/opencode-e2e.mjs install   installs it when it is not there yet, prints the binary
//   node scripts/opencode-e2e.mjs path      prints where the binary is (installed or not)
//
// INTENT_E2E_OPENCODE_DIR overrides the cache directory (default: $XDG_CACHE_HOME or ~/.cache, then
// intent-e2e/opencode-<version>).
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pinnedCli, pinnedCliMain } from './pinned-cli.mjs';

/** The OpenCode version the end-to-end tests run (its plugin hook inputs are what we test against). */
export const OPENCODE_VERSION = '1.18.33';

export const opencode = pinnedCli({ name: 'opencode', pkg: 'opencode-ai', version: OPENCODE_VERSION, envDir: 'INTENT_E2E_OPENCODE_DIR', bin: '.bin/opencode' });

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) pinnedCliMain(opencode, 'scripts/opencode-e2e.mjs');
