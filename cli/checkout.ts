import { checkout } from '../lib/checkout.js';
import { emit } from './output.js';

/** `intent checkout <id>`: prints the worktree path (alone on stdout, so `cd "$(intent checkout X)"` works). */
export function run(opts: { cwd: string; id: string; base?: string; path?: string; json: boolean }): void {
  const r = checkout(opts.cwd, opts.id, { base: opts.base, path: opts.path });
  if (!opts.json) {
    process.stderr.write(
      `intent: ${r.created ? 'created' : 'reusing'} worktree of ${r.intent} on branch ${r.branch}` +
        `${r.started ? '; marked IN_PROGRESS' : ''}\n`,
    );
  }
  emit(opts.json, { intent: r.intent, path: r.path, branch: r.branch, created: r.created }, () => r.path + '\n');
}
