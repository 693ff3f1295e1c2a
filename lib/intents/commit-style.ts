/**
 * The commit messages intent suggests (register an intent, mark it in progress, record it done),
 * in the project's own convention: a repository with a commitlint configuration gets Conventional
 * Commits (`chore: register INT-001`), which commitlint's usual presets accept; others get plain
 * sentences (`Register INT-001`).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const COMMITLINT_FILES = [
  'commitlint.config.js', 'commitlint.config.cjs', 'commitlint.config.mjs', 'commitlint.config.ts', 'commitlint.config.cts', 'commitlint.config.mts',
  '.commitlintrc', '.commitlintrc.json', '.commitlintrc.yaml', '.commitlintrc.yml', '.commitlintrc.js', '.commitlintrc.cjs', '.commitlintrc.mjs',
  '.commitlintrc.ts', '.commitlintrc.cts',
];

/** Whether the project at `root` lints its commit messages with commitlint (a config file, or package.json's "commitlint" key). */
export function usesCommitlint(root: string): boolean {
  if (COMMITLINT_FILES.some((f) => existsSync(join(root, f)))) return true;
  try {
    return Object.prototype.hasOwnProperty.call(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')), 'commitlint');
  } catch {
    return false;
  }
}

const PLAIN = { register: (id: string) => `Register ${id}`, start: (id: string) => `${id} in progress`, done: (id: string) => `${id} done` };
const CONVENTIONAL = { register: (id: string) => `chore: register ${id}`, start: (id: string) => `chore: mark ${id} in progress`, done: (id: string) => `chore: mark ${id} done` };

/** The message intent suggests for a registry commit of `kind` about intent `id`, in the convention of the project at `root`. */
export function registryCommitMessage(root: string, kind: keyof typeof PLAIN, id: string): string {
  return (usesCommitlint(root) ? CONVENTIONAL : PLAIN)[kind](id);
}
