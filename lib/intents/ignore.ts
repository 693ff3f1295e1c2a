/**
 * The scope exemptions of a repository: `.orchestration/.intentignore` of the main worktree
 * (lockfiles, generated files), read by the commit hooks and the agents' write checks alike.
 */
import { keptRead, type Kept } from '../core/kept.js';
import { keptMap } from '../core/hook-context.js';
import { existsSync, readFileSync } from 'node:fs';
import { IntentError } from '../core/errors.js';
import { orchestrationPath, type Repo } from '../git/repo.js';
import { compileScope, globProblem, parseIgnoreFile, type Scope } from './scope.js';

/** Loads `.orchestration/.intentignore` of the main worktree; a bad glob is an error. */
export function loadIgnore(repo: Repo): Scope | null {
  const file = orchestrationPath(repo, '.intentignore');
  // The hook server compiles the globs once per version of the file (each hook asks twice).
  const kept = keptMap<string, Kept<Scope | null>>('intentignore');
  return kept ? keptRead(kept, file, () => readIgnore(file)) : readIgnore(file);
}

function readIgnore(file: string): Scope | null {
  if (!existsSync(file)) return null;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    // A folder or an unreadable file in its place: a clear refusal, not a hook's internal error.
    const code = (e as NodeJS.ErrnoException).code ?? 'unreadable';
    const what = code === 'EISDIR' ? 'is a directory' : `cannot be read (${code})`;
    throw new IntentError('CONFIG_INVALID', `${file} ${what}: make it a file of globs, one a line, or remove it.`, { file });
  }
  const globs = parseIgnoreFile(text);
  for (const g of globs) {
    const problem = globProblem(g);
    if (problem) throw new IntentError('CONFIG_INVALID', `${file}: "${g}" ${problem}.`, { file, glob: g });
  }
  return globs.some((g) => !g.startsWith('!')) ? compileScope(globs) : null;
}
