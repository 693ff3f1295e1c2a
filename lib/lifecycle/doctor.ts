/**
 * `intent doctor`: is everything intent needs in place and current? The runners and the Node.js
 * they start, every hook of the main worktree (intent's block there, current, run by git; a
 * chained original's target), the hooks of intent worktrees and each worktree's core.hooksPath,
 * the notes config, and the agent hook configs (committed, and present in each worktree).
 * `fix` repeats the install (`intent init`'s hooks, runners and config; each intent worktree's
 * core.hooksPath) and checks again; what it cannot do (commit a file) it says.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { codexTrustChecks, copilotTrustChecks, geminiTrustChecks, qwenTrustChecks } from '../agents/agent-trust.js';
import { openCodeChecks } from '../agents/opencode.js';
import { PKG_ROOT } from '../core/version.js';
import { gitRaw } from '../git/process.js';
import { openRepo, stateDir, type Repo } from '../git/repo.js';
import { listWorktrees } from '../git/worktrees.js';
import { BRANCH_PREFIX } from '../intents/active.js';
import { checkMainHooks, hooksWarning } from '../hooks/health.js';
import { hasBlock, managerOf, readHookFile } from '../hooks/hook-file.js';
import { block, HOOKS, hookTargets, RUNNERS, runnerText } from '../hooks/install.js';
import { readRecord } from '../hooks/install-record.js';
import { inspectWorktreeHooks, installWorktreeHooks, worktreeHooksDir, worktreeHooksPath } from '../hooks/worktree-hooks.js';
import { missingNotesFetchRefspecs } from '../trace/sync.js';
import { installAll, REWRITE_REF, type InstallResult } from './init.js';

/** One finding. */
export interface Check {
  /** What was checked: `runner`, `node`, `hook pre-commit`, `worktree hooks`, `worktree <path>`, `notes`, `agent <file>`. */
  subject: string;
  ok: boolean;
  message: string;
}

export interface DoctorReport {
  root: string;
  ok: boolean;
  checks: Check[];
  /** With `fix`: what the repair did (then `checks` are those after it). */
  fixed?: { install: InstallResult; worktrees: string[] };
}

/** Checks (and with `fix`, repairs) the repository around `cwd`. */
export function doctor(cwd: string, opts: { fix?: boolean } = {}): DoctorReport {
  const repo = openRepo(cwd);
  let fixed: DoctorReport['fixed'];
  if (opts.fix) {
    const install = installAll(repo);
    const worktrees = intentWorktrees(repo).filter((w) => worktreeHooksPathOf(w) !== worktreeHooksPath(repo));
    for (const w of worktrees) installWorktreeHooks(repo, w);
    fixed = { install, worktrees };
  }
  const checks = [...runnerChecks(repo), ...hookChecks(repo), ...worktreeChecks(repo), ...notesChecks(repo), ...agentChecks(repo), ...trustChecks(repo)];
  return { root: repo.mainRoot, ok: checks.every((c) => c.ok), checks, ...(fixed ? { fixed } : {}) };
}

function runnerChecks(repo: Repo): Check[] {
  const checks: Check[] = [];
  for (const [name, entry] of RUNNERS) {
    const file = join(stateDir(repo), 'bin', name);
    const text = existsSync(file) ? readFileSync(file, 'utf8') : null;
    if (text === null) {
      checks.push({ subject: `runner ${name}`, ok: false, message: `${file} is missing: every hook blocks. Run \`intent doctor --fix\` (or \`intent init\`).` });
      continue;
    }
    const node = /^node='(.*)'$/m.exec(text)?.[1]?.replace(/'\\''/g, "'");
    const prog = /^entry='(.*)'$/m.exec(text)?.[1]?.replace(/'\\''/g, "'");
    const nodeOk = !!node && isExecutable(node);
    const progOk = !!prog && existsSync(prog);
    const current = text === runnerText(entry);
    checks.push({
      subject: `runner ${name}`,
      ok: nodeOk && progOk && (statSync(file).mode & 0o111) !== 0,
      message: !nodeOk ? `the Node.js it starts (${node}) is gone: hooks block. Run \`intent doctor --fix\` with the Node.js you use now.`
        : !progOk ? `the program it starts (${prog}) is missing (package moved or removed?): hooks block. Run \`intent doctor --fix\`.`
        : current ? `${file}: Node.js ${node}, ${prog}` : dirname(prog) === join(PKG_ROOT, 'dist', 'bin') ? `${file} works, but starts an older entry of this intent (${prog}); \`intent doctor --fix\` updates it.`
        : `${file} works, but starts another installation (${prog}) than this intent; \`intent doctor --fix\` points it here.`,
    });
  }
  return checks;
}

function isExecutable(file: string): boolean {
  const st = statSync(file, { throwIfNoEntry: false });
  return !!st && st.isFile() && (st.mode & 0o111) !== 0;
}

function hookChecks(repo: Repo): Check[] {
  const record = readRecord(repo.commonDir);
  if (!record || !record.hooksDir) return [{ subject: 'hooks', ok: false, message: 'intent is not installed in this clone (no install record): run `intent init`.' }];
  const t = hookTargets(repo);
  const checks: Check[] = [];
  if (t.runDir !== record.runDir) {
    checks.push({ subject: 'hooks path', ok: false, message: `git runs hooks from ${t.runDir} now; intent installed into ${record.runDir}. Run \`intent doctor --fix\` to install there.` });
  }
  for (const hook of HOOKS) {
    const file = join(t.dir, hook);
    const f = readHookFile(file);
    const run = readHookFile(join(t.runDir, hook));
    const legacy = managerOf(f.text) === 'pre-commit' ? readHookFile(`${file}.legacy`) : null;
    const at = hasBlock(f.text) && !f.symlink ? f : legacy && hasBlock(legacy.text) ? legacy : null;
    const subject = `hook ${hook}`;
    if (!at) {
      const by = managerOf(f.text);
      checks.push({ subject, ok: false, message: `${file} ${f.exists ? `has no intent block${by ? ` (${by}'s hook)` : ''}` : 'is missing'}: ${hook} is not governed. Run \`intent doctor --fix\`.` });
      continue;
    }
    const problems: string[] = [];
    if (!at.text!.includes(block(hook, t.where))) problems.push('its intent block is from another version (`intent doctor --fix` updates it)');
    if (!run.executable) problems.push(`git does not run it: ${run.path} ${run.exists ? 'is not executable' : 'is missing'}${t.husky ? ' (husky: run `npx husky`)' : ''}`);
    const chained = `${file}.intent-chained`;
    let chain = '';
    if (at === f && f.text!.includes('.intent-chained')) {
      const c = readHookFile(chained);
      chain = !c.exists ? `; chains to ${chained}, which is gone` : c.executable ? `; then runs ${chained}${c.symlink ? ' (a symlink)' : ''}` : `; ${chained} is not executable: stays disabled, as it was`;
    }
    checks.push({
      subject,
      ok: problems.length === 0,
      message: problems.length ? `${at.path}: ${problems.join('; ')}` : `${at.path}${at === legacy ? ' (run by the pre-commit framework)' : ''}${chain}`,
    });
  }
  return checks;
}

/** Intent worktrees: linked worktrees on an `intent/*` branch whose folder exists. */
function intentWorktrees(repo: Repo): string[] {
  return listWorktrees(repo.mainRoot)
    .filter((w) => w.branch?.startsWith(`refs/heads/${BRANCH_PREFIX}`) && !w.prunable && existsSync(w.path))
    .map((w) => w.path);
}

function worktreeHooksPathOf(worktree: string): string {
  return gitRaw(['config', '--worktree', '--get', 'core.hooksPath'], { cwd: worktree }).stdout.trim();
}

function worktreeChecks(repo: Repo): Check[] {
  const wts = intentWorktrees(repo);
  if (!wts.length && !worktreeHooksDir(repo)) return [];
  const checks: Check[] = [];
  const state = inspectWorktreeHooks(repo);
  const bad = [...state.changed.map((c) => `${c.hook}${c.manager && c.manager !== 'intent' ? ` (${c.manager}'s)` : ''}`), ...state.foreign];
  const lacks = state.missing.length
    ? `${worktreeHooksPath(repo)} lacks ${state.missing.join(', ')}, which the repository's own hooks folder has: intent worktrees run ${state.missing.length === 1 ? 'it' : 'them'} from their next hook on; \`intent doctor --fix\` adds ${state.missing.length === 1 ? 'it' : 'them'} now.`
    : '';
  checks.push({
    subject: 'worktree hooks',
    ok: bad.length === 0 && !lacks,
    message: bad.length ? `${worktreeHooksPath(repo)} is not intent's: ${bad.join(', ')}. The next commit in an intent worktree restores it (and is refused once); \`intent doctor --fix\` restores it now.${lacks ? ` ${lacks}` : ''}`
      : lacks || `${worktreeHooksPath(repo)}: intent's, each hook then runs the repository's own`,
  });
  for (const w of wts) {
    const p = worktreeHooksPathOf(w);
    checks.push({
      subject: `worktree ${w}`,
      ok: p === worktreeHooksPath(repo),
      message: p === worktreeHooksPath(repo) ? 'core.hooksPath: intent worktree hooks' : `its core.hooksPath is ${p || 'not set'}, so intent's hooks do not run there. Run \`intent doctor --fix\`.`,
    });
  }
  return checks;
}

function notesChecks(repo: Repo): Check[] {
  const refs = gitRaw(['config', '--get-all', 'notes.rewriteRef'], { cwd: repo.mainRoot }).stdout.split('\n').filter(Boolean);
  const rewrite = refs.some((r) => r === REWRITE_REF || r === 'refs/notes/*');
  const fetch = missingNotesFetchRefspecs(repo);
  return [
    {
      subject: 'notes rewrite',
      ok: rewrite,
      message: rewrite ? 'notes.rewriteRef: amend and rebase carry the notes' : `notes.rewriteRef does not include ${REWRITE_REF}: amend and rebase would lose the notes. Run \`intent doctor --fix\`.`,
    },
    {
      subject: 'notes fetch',
      ok: fetch.length === 0,
      message: fetch.length ? `${fetch.map((f) => f.key).join(', ')} lack the notes refspec: \`git fetch\` does not bring the notes. Run \`intent doctor --fix\`.` : 'every remote fetches the notes',
    },
  ];
}

const AGENT_MARK = 'intent/bin/agent';

/**
 * The agent hook configs (files in the repository's dot-folders that call intent's agent runner):
 * committed, and present with the same content in every intent worktree (an agent reads its
 * config from its own worktree).
 */
function agentChecks(repo: Repo): Check[] {
  const found = gitRaw(['grep', '-l', '-I', '--untracked', '-F', AGENT_MARK, '--', ':(glob).*/**'], { cwd: repo.mainRoot });
  const files = found.stdout.split('\n').filter(Boolean);
  const checks: Check[] = [];
  for (const file of files) {
    const committed = gitRaw(['cat-file', '-e', `HEAD:${file}`], { cwd: repo.mainRoot }).status === 0;
    const text = readFileSync(join(repo.mainRoot, file), 'utf8');
    const missingIn = intentWorktrees(repo).filter((w) => {
      const p = join(w, file);
      return !existsSync(p) || readFileSync(p, 'utf8') !== text;
    });
    const problems = [
      ...(committed ? [] : ['not committed: commit it so that intent worktrees (and clones) get it']),
      ...(missingIn.length ? [`missing or different in ${missingIn.join(', ')} (commit it, then rebase or merge it into those branches)`] : []),
    ];
    checks.push({ subject: `agent ${file}`, ok: problems.length === 0, message: problems.length ? problems.join('; ') : 'committed, the same in every intent worktree' });
  }
  return checks;
}

/**
 * Whether Gemini CLI, Codex and GitHub Copilot CLI (when their hooks are registered) will run them
 * in the intent worktrees: all skip untrusted project hooks without a word. Read from the user's own config.
 */
function trustChecks(repo: Repo): Check[] {
  const worktrees = intentWorktrees(repo);
  // New worktrees go beside the existing ones (intent checkout's folder); trusting it covers them all.
  const folder = worktrees.length ? dirname(worktrees[0]) : join(dirname(repo.mainRoot), `${basename(repo.mainRoot)}.worktrees`);
  return [...geminiTrustChecks(repo.mainRoot, [...worktrees, folder]), ...qwenTrustChecks(repo.mainRoot, [...worktrees, folder]), ...codexTrustChecks(repo.mainRoot), ...copilotTrustChecks(repo.mainRoot), ...openCodeChecks(repo.mainRoot)];
}

/** The one-line health warning for `intent status` (empty when the main worktree's hooks are intent's). */
export function hooksHealthLine(repo: Repo): string {
  return hooksWarning(checkMainHooks(repo.commonDir));
}
