/**
 * The scope exemptions of a repository: `.orchestration/.intentignore` of the main worktree
 * (lockfiles, generated files), read by the commit hooks and the agents' write checks alike.
 */
import { existsSync, readFileSync } from 'node:fs';
import { IntentError } from '../core/errors.js';
import { orchestrationPath, type Repo } from '../git/repo.js';
import { compileScope, globProblem, parseIgnoreFile, type Scope } from './scope.js';

/** Loads `.orchestration/.intentignore` of the main worktree; a bad glob is an error. */
export function loadIgnore(repo: Repo): Scope | null {
  const file = orchestrationPath(repo, '.intentignore');
  if (!existsSync(file)) return null;
  const globs = parseIgnoreFile(readFileSync(file, 'utf8'));
  for (const g of globs) {
    const problem = globProblem(g);
    if (problem) throw new IntentError('CONFIG_INVALID', `${file}: "${g}" ${problem}.`, { file, glob: g });
  }
  return globs.some((g) => !g.startsWith('!')) ? compileScope(globs) : null;
}
