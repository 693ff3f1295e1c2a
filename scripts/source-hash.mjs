// The fingerprint of what `npm run build` builds dist/ from: a SHA-256 over the build's inputs
// (path and bytes of each file, in a fixed order). scripts/bundle.mjs writes it to dist/ as the
// last step of a build; the tests' global setup (test/global-setup.ts) compares it with the
// sources and rebuilds when they differ, so no test runs a dist/ older than lib/ and cli/.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/** What the build reads (besides node_modules): folders are read whole. */
export const BUILD_INPUTS = ['lib', 'cli', 'schemas', 'scripts/bundle.mjs', 'scripts/source-hash.mjs', 'tsconfig.json', 'package.json'];

/** Where a build records the fingerprint of its inputs (left out of the package, like .tsbuildinfo). */
export const STAMP = 'dist/.build-inputs';

function files(root, path) {
  const abs = join(root, path);
  let st;
  try {
    st = statSync(abs);
  } catch {
    return [];
  }
  if (!st.isDirectory()) return [path];
  return readdirSync(abs).sort().flatMap((e) => files(root, `${path}/${e}`));
}

/** The fingerprint of the build inputs under `root` (the repository). */
export function sourceHash(root) {
  const h = createHash('sha256');
  for (const f of BUILD_INPUTS.flatMap((p) => files(root, p))) {
    h.update(relative(root, join(root, f)).split('\\').join('/'));
    h.update('\0');
    h.update(readFileSync(join(root, f)));
    h.update('\0');
  }
  return h.digest('hex');
}
