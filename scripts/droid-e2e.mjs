#!/usr/bin/env node
// The real Factory droid CLI for the end-to-end tests (test/e2e/droid.test.ts): one pinned version
// of its native binary from npm, installed into a cache directory outside this package's
// dependencies. The npm package `@factory/cli` is a launcher that finds its binary in a
// per-platform optional dependency (`@factory/cli-<platform>-<arch>`); the launcher 0.225.1 names
// binary packages 0.225.1, of which the registry has none, so the binary package is installed
// directly (0.225.2, the version `droid --version` reports).
//
//   node scripts/droid-e2e.mjs install   installs it when it is not there yet, prints the binary
//   node scripts/droid-e2e.mjs path      prints where the binary is (installed or not)
//
// INTENT_E2E_DROID_DIR overrides the cache directory (default: $XDG_CACHE_HOME or ~/.cache, then
// intent-e2e/factory-droid-<version>).
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pinnedCli, pinnedCliMain } from './pinned-cli.mjs';

/** The droid version the end-to-end tests run (its hook payloads are what we test against). */
export const DROID_VERSION = '0.225.2';

const pkg = `@factory/cli-${process.platform}-${process.arch}`;

export const droid = pinnedCli({ name: 'factory-droid', pkg, version: DROID_VERSION, envDir: 'INTENT_E2E_DROID_DIR', bin: `${pkg}/bin/droid` });

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) pinnedCliMain(droid, 'scripts/droid-e2e.mjs');
