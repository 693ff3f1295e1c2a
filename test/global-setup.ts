import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Integration tests install hooks that run dist/bin/hook.cjs: the build must exist. */
export default function setup(): void {
  const hook = fileURLToPath(new URL('../dist/bin/hook.cjs', import.meta.url));
  if (!existsSync(hook)) throw new Error(`${hook} is missing: run \`npm run build\` (or use \`npm test\`, which builds first).`);
}
