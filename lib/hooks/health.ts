/**
 * The quick health check that every `intent` command and every intent hook runs: are the main
 * worktree's hooks still intent's? A hook manager installed, re-installed or uninstalled after
 * `intent init` can move core.hooksPath (husky), rename or rewrite hook files (lefthook, the
 * pre-commit framework) or delete them (simple-git-hooks), and governance would end silently.
 * Cheap on purpose (it runs on every commit): no git process and no file read while the files'
 * sizes and times are what the install record says, only a stat of the git config and of each
 * hook file; anything that moved is then read, and the record brought up to date when it still
 * holds intent's block.
 */
import { hostEnv } from '../core/settings.js';
import { hookGitProcess } from '../core/hook-parent.js';
import { keptStore } from '../core/hook-context.js';
import { lstatSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { hooksPathOverridesRemoved } from '../git/hooks-env.js';
import { gitRaw } from '../git/process.js';
import { hasBlock, managerOf } from './hook-file.js';
import { HOOKS } from './install.js';
import { readRecord, saveRecord, sigOf } from './install-record.js';

/** One problem of the main worktree's hooks. */
export interface HookProblem {
  hook: string;
  /** missing: no file; replaced: a file without intent's block (by `manager` when recognised); not-run: git does not run it; moved: core.hooksPath points elsewhere. */
  kind: 'missing' | 'replaced' | 'not-run' | 'moved';
  file: string;
  manager?: string;
}

/**
 * The common git dir around `cwd`, from the `.git` entries on disk (no git process); null when it
 * cannot be told that way (then no check is made: the check only ever warns).
 */
export function findCommonDir(cwd: string, env: NodeJS.ProcessEnv = hostEnv()): string | null {
  try {
    if (env.GIT_COMMON_DIR) return resolve(cwd, env.GIT_COMMON_DIR);
    let gitDir: string | null = env.GIT_DIR ? resolve(cwd, env.GIT_DIR) : null;
    for (let d = cwd; !gitDir; d = dirname(d)) {
      const p = join(d, '.git');
      const st = lstatSync(p, { throwIfNoEntry: false });
      if (st?.isDirectory()) gitDir = p;
      else if (st?.isFile()) {
        const m = /^gitdir: (.+)$/m.exec(readFileSync(p, 'utf8'));
        if (!m) return null;
        gitDir = resolve(d, m[1].trim());
      }
      if (!gitDir && dirname(d) === d) return null;
    }
    const common = statSync(join(gitDir, 'commondir'), { throwIfNoEntry: false })
      ? resolve(gitDir, readFileSync(join(gitDir, 'commondir'), 'utf8').trim())
      : gitDir;
    return common;
  } catch {
    return null;
  }
}

/**
 * Checks the main worktree's hooks against the install record (see the top of this file). Returns
 * null when this clone has no record (never initialised, or uninstalled), else the problems.
 */
export function checkMainHooks(commonDir: string): HookProblem[] | null {
  const record = readRecord(commonDir);
  // (A record from `intent checkout` alone, before any `intent init`, has no hooks to check.)
  if (!record || !record.hooksDir || !record.runDir) return null;
  const problems: HookProblem[] = [];
  let dirty = false;
  const config = sigOf(join(commonDir, 'config'));
  if (!sameSig(config, record.configSig)) {
    // The repository's own setting: an agent's shell that blanks core.hooksPath through the
    // environment (Gemini CLI) is guarded by the agent hooks, not reported as a moved hooks folder.
    const res = gitRaw(['rev-parse', '--git-path', 'hooks'], { cwd: record.mainRoot, env: hooksPathOverridesRemoved(hostEnv()) });
    const raw = res.stdout.trim();
    const runDir = isAbsolute(raw) ? raw : resolve(record.mainRoot, raw);
    if (res.status === 0 && runDir !== record.runDir) {
      return HOOKS.map((hook) => ({ hook, kind: 'moved', file: join(runDir, hook) }));
    }
    record.configSig = config;
    dirty = true;
  }
  for (const hook of HOOKS) {
    const file = join(record.hooksDir, hook);
    const legacy = `${file}.legacy`;
    const entry = record.hooks[file] ?? record.hooks[legacy];
    const run = statSync(join(record.runDir, hook), { throwIfNoEntry: false });
    if (!run || !run.isFile()) {
      problems.push({ hook, kind: 'missing', file: join(record.runDir, hook) });
      continue;
    }
    if (!(run.mode & 0o111)) {
      problems.push({ hook, kind: 'not-run', file: join(record.runDir, hook) });
      continue;
    }
    if (entry && sameSig(sigOf(entry.file), entry)) continue;
    // Moved since intent wrote it: read it (and the pre-commit framework's `.legacy`, which it runs).
    const text = readText(file);
    const at = hasBlock(text) ? file : managerOf(text) === 'pre-commit' && hasBlock(readText(legacy)) ? legacy : null;
    if (at === null) {
      problems.push(text === null && !statSync(file, { throwIfNoEntry: false }) ? { hook, kind: 'missing', file } : { hook, kind: 'replaced', file, ...(managerOf(text) ? { manager: managerOf(text)! } : {}) });
      continue;
    }
    const rec = record.hooks[at];
    const sig = sigOf(at);
    if (rec && sig) {
      rec.size = sig.size;
      rec.mtimeMs = sig.mtimeMs;
      dirty = true;
    }
  }
  if (dirty) {
    try {
      saveRecord(commonDir, record);
    } catch { /* a read-only git dir: the check just reads again next time */ }
  }
  return problems;
}

function readText(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

function sameSig(a: { size: number; mtimeMs: number } | null, b: { size: number; mtimeMs: number } | null): boolean {
  return !!a && !!b && a.size === b.size && a.mtimeMs === b.mtimeMs;
}

/** The one warning line for `problems` (empty when there are none). */
export function hooksWarning(problems: HookProblem[] | null): string {
  if (!problems?.length) return '';
  const what = problems[0].kind === 'moved'
    ? `core.hooksPath now points at ${dirname(problems[0].file)}, where intent's hooks are not`
    : problems.map((p) => `${p.hook} ${p.kind === 'replaced' ? `replaced${p.manager ? ` by ${p.manager}` : ''}` : p.kind === 'not-run' ? 'not executable' : 'missing'}`).join(', ');
  return `intent: WARNING: the main worktree's hooks lost intent (${what}): its commits are not checked or recorded. Run \`intent doctor --fix\`.\n`;
}

/** The last warning the hook server computed, for the git process and worktree it was for. */
let last: { key: string; text: string } | null = null;

/**
 * `mainHooksWarning`, computed once per git process in the hook server: post-commit takes what
 * prepare-commit-msg of the same commit found (milliseconds before; a few stats and a file read less
 * on the commit's path). Elsewhere (a hook's own node, one hook) as `mainHooksWarning`.
 */
export function mainHooksWarningOnce(cwd: string, env: NodeJS.ProcessEnv = hostEnv()): string {
  return mainHooksWarningFor(cwd, env, keptStore() ? hookGitProcess() : null);
}

/**
 * `mainHooksWarning` for the git process `git` (`<pid> <start time>`, core/hook-parent.ts
 * hookGitProcess) committing in `cwd`: computed once per git process (null: every time).
 */
export function mainHooksWarningFor(cwd: string, env: NodeJS.ProcessEnv, git: string | null): string {
  const key = git && `${cwd}\0${env.GIT_DIR ?? ''}\0${git}`;
  if (key && last?.key === key) return last.text;
  const text = mainHooksWarning(cwd, env);
  if (key) last = { key, text };
  return text;
}

/**
 * The hook server, an intent worktree's check allowed: `mainHooksWarningOnce` for this git
 * process as a job for after the answer (a few stats and a file read less on the commit's path),
 * its text for the post-commit hook of the same commit to print. Null when not served.
 */
export function mainHooksWarningLater(cwd: string, env: NodeJS.ProcessEnv): (() => void) | null {
  const git = keptStore() ? hookGitProcess() : null;
  return git ? () => void mainHooksWarningFor(cwd, env, git) : null;
}

/** The warning for the repository around `cwd`, or '' (never throws: it is only a warning). */
export function mainHooksWarning(cwd: string, env: NodeJS.ProcessEnv = hostEnv()): string {
  try {
    const common = findCommonDir(cwd, env);
    return common ? hooksWarning(checkMainHooks(common)) : '';
  } catch {
    return '';
  }
}
