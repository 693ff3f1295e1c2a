import { mainHooksWarning } from '../lib/hooks/index.js';

/** The one-line warning when the main worktree's hooks are no longer intent's ('' otherwise). */
export function warning(cwd: string): string {
  return mainHooksWarning(cwd);
}
