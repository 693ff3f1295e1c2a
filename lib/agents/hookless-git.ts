/**
 * Commits made where git's hooks are off. Gemini CLI's shell runs git with `core.hooksPath` set to
 * an empty value through the environment (lib/git/hooks-env.ts), so intent's hooks never see a
 * `git commit` made there: no scope check, no Agent Trace note. Two guards, for agents whose
 * `ToolCall` says `gitHooksOff`:
 * - before the command: a git command that would run commit hooks (commit, merge, pull, am,
 *   cherry-pick, revert, rebase) is refused with the way to commit: `intent commit`, which runs
 *   git commit with the hooks on. The command text is searched, quotes and all, so `sh -c "git
 *   commit …"` is caught too; what no text search sees (a script, an alias) is left to the second:
 * - after the command: commits it added to the intent branch without a note are undone
 *   (`git reset --soft` to where the branch was: the changes stay staged) and the model is told to
 *   commit with `intent commit`.
 * (This module is separate from the shell policy on purpose: the policy judges commands for every
 * agent, these rules exist only for agents that turn the hooks off.)
 */
import { NOTES_REF } from '../core/version.js';
import { gitRaw } from '../git/process.js';
import { BRANCH_PREFIX } from '../intents/active.js';

/** Git subcommands that make commits and so run commit hooks (pre-commit, commit-msg, post-commit, pre-merge-commit, post-rewrite). */
const COMMITTING = ['commit', 'merge', 'pull', 'am', 'cherry-pick', 'revert', 'rebase'];

// `git`, a path ending in /git, then git's own options (-C dir, -c k=v, --opt[=v], -p …), then the subcommand.
const GIT_RE = new RegExp(
  String.raw`(?:^|[^\w.@/-]|/)git["']?(?:\s+(?:-[Cc]\s*(?:"[^"]*"|'[^']*'|\S+)|--[\w-]+(?:=(?:"[^"]*"|'[^']*'|\S*))?|-[A-Za-z]+))*\s+["']?(` +
    COMMITTING.join('|') + String.raw`)(?=["']?(?:\s|$|[;&|)]))`,
  'g',
);

/** The committing git subcommand the command line runs (found anywhere in its text), or undefined. */
export function committingGitCommand(command: string): string | undefined {
  for (const m of command.matchAll(GIT_RE)) {
    // `intent commit` is no git command (GIT_RE needs "git" as a word of its own).
    return m[1];
  }
  return undefined;
}

/** The reason a committing git command is refused in a shell that turns the hooks off. */
export function hooklessCommitReason(agent: string, sub: string): string {
  const how = sub === 'commit'
    ? 'Commit with `intent commit` instead, with the same arguments (for example `intent commit -m "…"`): it runs git commit with the hooks on.'
    : `Leave git ${sub} to a human (outside ${agent}), or commit your own work with \`intent commit -m "…"\`.`;
  return `${agent} runs git with its hooks turned off (core.hooksPath is blanked in its shell), so git ${sub} here would skip intent's scope check and Agent Trace note. ${how}`;
}

// A whole command line `intent commit <args>`: words without shell syntax, or quoted strings without expansions.
const WORD = String.raw`(?:[A-Za-z0-9_@%+=:,./-]+|'[^']*'|"[^"$\x60\\]*")+`;
const INTENT_COMMIT_RE = new RegExp(String.raw`^\s*(?:npx\s+(?:--no-install\s+)?)?intent\s+commit((?:\s+${WORD})*)\s*$`);

/** Whether the command line is exactly `intent commit …` with literal arguments that keep the hooks on (no -n, --no-verify, --amend). */
export function isIntentCommit(command: string): boolean {
  const m = INTENT_COMMIT_RE.exec(command);
  if (!m) return false;
  const words = [...m[1].matchAll(new RegExp(WORD, 'g'))].map((w) => w[0].replace(/^['"]|['"]$/g, ''));
  return !words.some((w) => w === '--amend' || (w.startsWith('--') && w.length >= 6 && '--no-verify'.startsWith(w)) || /^-[a-zA-Z]*n/.test(w.split(/[mFCcSt]/)[0]));
}

/**
 * Commits on the current intent branch since `before` that have no note (oldest first); [] when
 * HEAD did not move forward from `before`, or is not on an intent branch (only intent branches'
 * commits carry notes: on another branch a commit without one is no sign of skipped hooks).
 */
export function unnotedCommitsSince(root: string, before: string | null): string[] {
  if (!before) return [];
  const branch = gitRaw(['symbolic-ref', '-q', '--short', 'HEAD'], { cwd: root }).stdout.trim();
  if (!branch.startsWith(BRANCH_PREFIX)) return [];
  const head = gitRaw(['rev-parse', '-q', '--verify', 'HEAD^{commit}'], { cwd: root }).stdout.trim();
  if (!head || head === before) return [];
  if (gitRaw(['merge-base', '--is-ancestor', before, head], { cwd: root }).status !== 0) return [];
  const commits = gitRaw(['rev-list', '--reverse', `${before}..${head}`], { cwd: root }).stdout.split('\n').filter(Boolean);
  const noted = new Set(gitRaw(['notes', `--ref=${NOTES_REF}`, 'list'], { cwd: root }).stdout.split('\n').map((l) => l.split(' ')[1]).filter(Boolean));
  return commits.filter((c) => !noted.has(c));
}

/** Moves the branch back to `before`, keeping the work staged (`git reset --soft`); the error text, or null. */
export function undoCommits(root: string, before: string): string | null {
  const r = gitRaw(['reset', '-q', '--soft', before], { cwd: root });
  return r.status === 0 ? null : r.stderr.trim() || `git reset --soft exited ${r.status}`;
}
