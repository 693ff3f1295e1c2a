import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { removeTree } from './remove-tree.js';

/** Integration tests install hooks that run dist/bin/hook.cjs: the build must exist. */
export default function setup(): () => void {
  const hook = fileURLToPath(new URL('../dist/bin/hook.cjs', import.meta.url));
  if (!existsSync(hook)) throw new Error(`${hook} is missing: run \`npm run build\` (or use \`npm test\`, which builds first).`);
  // The run's own temporary folder (vitest.config.ts, test/temp-root.ts) goes with what tests left
  // in it (a tool's own temporary files, a hook server still running in a repository).
  return () => {
    const t = process.env.INTENT_TEST_TMP;
    if (t?.startsWith('made:')) removeTree(t.slice('made:'.length));
  };
}
