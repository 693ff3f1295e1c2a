import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { replaceFile } from '../core/files.js';
import { join } from 'node:path';
import { IntentError } from '../core/errors.js';
import { gitRaw } from '../git/process.js';
import { recordPath, splitNulBytes } from '../git/paths.js';
import type { Budget, Intent } from '../intents/registry.js';
import { stateDir, type Repo } from '../git/repo.js';
import { noteRecord } from '../trace/note-records.js';
import { METADATA_KEY, NOTES_REF } from '../core/version.js';

/** What an intent has used so far: governed commits and changed lines (added + deleted) from the notes. */
export interface Usage {
  commits: number;
  changed_lines: number;
}

/** What is left of a budget; null where the budget sets no limit. */
export interface BudgetLeft {
  commits: number | null;
  changed_lines: number | null;
  expires_at: string | null;
  expired: boolean;
}

const SEP = '\x01';
const FS = '\x02';
const INTENT_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** The commit count and changed lines a note contributes to `id` (zero when it is another intent's). */
export function noteUsage(text: string, id: string): Usage | null {
  // trace/note-records needs nothing else: pre-commit does not load verify for this.
  const record = noteRecord(text);
  if (!record) return null;
  const meta = record?.metadata?.[METADATA_KEY];
  if (!meta || meta.intent_id !== id) return null;
  let lines = 0;
  for (const f of Object.values(meta.files ?? {})) {
    const a = Number(f?.added_lines);
    const d = Number(f?.deleted_lines);
    lines += (Number.isFinite(a) ? a : 0) + (Number.isFinite(d) ? d : 0);
  }
  return { commits: 1, changed_lines: lines };
}

/** Where the usage count of intent `id` is cached (keyed by HEAD and the notes tip). */
export function budgetCacheFile(repo: Repo, id: string): string {
  return join(stateDir(repo), 'budget', `${id}.json`);
}

interface Cache {
  head: string;
  notes: string | null;
  commits: number;
  changed_lines: number;
}

/**
 * HEAD of the worktree and the notes tip, read from the ref files (no process); with
 * `git rev-parse` when the repository uses reftable or a ref cannot be read that way. Null where
 * they do not exist.
 */
export function headAndNotes(repo: Repo): { head: string | null; notes: string | null } {
  const fromFs = existsSync(join(repo.commonDir, 'reftable')) ? null : readRefsFs(repo);
  if (fromFs) return fromFs;
  const res = gitRaw(['rev-parse', 'HEAD', NOTES_REF], { cwd: repo.root });
  const [h, n] = res.stdout.split('\n');
  return { head: hex(h), notes: hex(n) };
}

function hex(s: string | undefined): string | null {
  return s && /^[0-9a-f]{40,64}$/.test(s) ? s : null;
}

/** Resolves HEAD (one level of symref) and the notes ref from loose ref files and packed-refs; null when unsure. */
function readRefsFs(repo: Repo): { head: string | null; notes: string | null } | null {
  let packed: string | null = null;
  const lookup = (ref: string): string | null | undefined => {
    try {
      const v = readFileSync(join(repo.commonDir, ref), 'utf8').trim();
      return hex(v) ?? undefined; // a symref or junk: let git decide
    } catch { /* not loose */ }
    if (packed === null) {
      try {
        packed = readFileSync(join(repo.commonDir, 'packed-refs'), 'utf8');
      } catch {
        packed = '';
      }
    }
    const line = packed.split('\n').find((l) => l.endsWith(` ${ref}`) && !l.startsWith('#') && !l.startsWith('^'));
    return line ? hex(line.split(' ')[0]) ?? undefined : null;
  };
  let headText: string;
  try {
    headText = readFileSync(join(repo.gitDir, 'HEAD'), 'utf8').trim();
  } catch {
    return null;
  }
  let head: string | null | undefined;
  if (headText.startsWith('ref: ')) {
    const ref = headText.slice(5);
    if (!ref.startsWith('refs/heads/')) return null;
    head = lookup(ref);
  } else head = hex(headText) ?? undefined;
  const notes = lookup(NOTES_REF);
  if (head === undefined || notes === undefined) return null;
  return { head, notes };
}

/**
 * The governed commits and changed lines of intent `id` among the commits reachable from `head`
 * (notes whose `intent_id` is `id`). Cached in `<git-common-dir>/intent/budget/<id>.json`: an exact
 * hit (same HEAD, same notes tip) costs nothing; when the cached HEAD is an ancestor of `head`, only
 * the new commits are read; otherwise the whole history is counted with one `git log`.
 */
export function intentUsage(repo: Repo, id: string, at: { head: string | null; notes: string | null }): Usage {
  if (!at.head || !at.notes) return { commits: 0, changed_lines: 0 };
  const file = budgetCacheFile(repo, id);
  let cache: Cache | null = null;
  try {
    const c = JSON.parse(readFileSync(file, 'utf8')) as Cache;
    if (typeof c.head === 'string' && Number.isSafeInteger(c.commits) && Number.isSafeInteger(c.changed_lines)) cache = c;
  } catch { /* no cache yet, or a torn one: count */ }
  if (cache && cache.head === at.head && cache.notes === at.notes) return { commits: cache.commits, changed_lines: cache.changed_lines };

  let usage: Usage | null = null;
  if (cache && cache.head !== at.head && INTENT_ID.test(id)) {
    const commits = logWithNotes(repo.root, [`${cache.head}..${at.head}`]);
    // The cached HEAD is an ancestor of HEAD exactly when one of the new commits has it as a parent.
    if (commits && commits.some((c) => c.parents.includes(cache!.head))) {
      usage = { commits: cache.commits, changed_lines: cache.changed_lines };
      for (const c of commits) add(usage, c.note, id);
    }
  }
  if (!usage) {
    const commits = logWithNotes(repo.root, [at.head]);
    if (!commits) throw new IntentError('GIT_FAILED', `cannot list the commits of ${at.head} to count ${id}'s budget.`, { head: at.head });
    usage = { commits: 0, changed_lines: 0 };
    for (const c of commits) add(usage, c.note, id);
  }
  try {
    mkdirSync(join(stateDir(repo), 'budget'), { recursive: true });
    // A lost cache only means counting again.
    replaceFile(file, JSON.stringify({ head: at.head, notes: at.notes, ...usage }) + '\n');
  } catch { /* the cache is an optimisation only */ }
  return usage;
}

function add(usage: Usage, note: string, id: string): void {
  if (!note) return;
  const u = noteUsage(note, id);
  if (!u) return;
  usage.commits += u.commits;
  usage.changed_lines += u.changed_lines;
}

/** Commits of `revs` with their parents and their note on refs/notes/intents: one process. */
function logWithNotes(cwd: string, revs: string[]): { sha: string; parents: string[]; note: string }[] | null {
  const res = gitRaw(['log', '--no-color', `--notes=${NOTES_REF}`, `--format=${SEP}%H${FS}%P${FS}%N`, ...revs, '--'], { cwd });
  if (res.status !== 0) return null;
  const out: { sha: string; parents: string[]; note: string }[] = [];
  for (const chunk of res.stdout.split(SEP)) {
    if (!chunk) continue;
    const [sha, parents, note] = chunk.split(FS);
    out.push({ sha, parents: parents ? parents.split(' ') : [], note: (note ?? '').replace(/\n+$/, '\n') });
  }
  return out;
}

/**
 * The paths the commit being prepared changes (both sides of a rename, like `stagedPaths`) and the
 * lines it adds and deletes, from one `git diff --cached --numstat` on the index the hook's
 * environment names (renames detected at 50% like the post-commit diff; binaries count 0).
 */
export function stagedNumstat(cwd: string): { paths: string[]; lines: number } {
  const res = gitRaw(
    ['-c', 'core.quotePath=true', 'diff', '--cached', '--numstat', '-z', '--find-renames=50%', '--no-relative', '--no-ext-diff', '--no-textconv', '--ignore-submodules=none'],
    { cwd, inheritRepoEnv: true, binary: true },
  );
  if (res.status !== 0) {
    throw new IntentError('GIT_FAILED', `git diff --cached --numstat failed: ${res.stderr.trim()}`, {});
  }
  // NUL-separated fields whose names are bytes (lib/git/paths.ts): split the bytes, not a decoded string.
  const toks = splitNulBytes(res.stdoutBuf!);
  const paths: string[] = [];
  let lines = 0;
  for (let i = 0; i < toks.length; i++) {
    const m = /^(\d+|-)\t(\d+|-)\t/.exec(toks[i].toString('latin1'));
    if (!m) continue;
    lines += (m[1] === '-' ? 0 : Number(m[1])) + (m[2] === '-' ? 0 : Number(m[2]));
    if (toks[i].length > m[0].length) paths.push(recordPath(toks[i].subarray(m[0].length)));
    else {
      // A rename: the old and the new path follow as their own fields.
      if (toks[i + 1] !== undefined) paths.push(recordPath(toks[i + 1]));
      if (toks[i + 2] !== undefined) paths.push(recordPath(toks[i + 2]));
      i += 2;
    }
  }
  return { paths, lines };
}

/** True when the budget has an `expires_at` at or before `now`. */
export function isExpired(budget: Budget | undefined, now: Date): boolean {
  return !!budget?.expires_at && Date.parse(budget.expires_at) <= now.getTime();
}

/** What is left of `intent`'s budget after `usage`. */
export function budgetLeft(intent: Intent, usage: Usage, now: Date): BudgetLeft {
  const b = intent.budget;
  return {
    commits: b?.max_commits !== undefined ? b.max_commits - usage.commits : null,
    changed_lines: b?.max_changed_lines !== undefined ? b.max_changed_lines - usage.changed_lines : null,
    expires_at: b?.expires_at ?? null,
    expired: isExpired(b, now),
  };
}

/** The BUDGET_EXCEEDED error for an expired intent (commits and checkout). */
export function expiredError(intent: Intent, registryPath: string, now: Date, action: string): IntentError {
  return new IntentError(
    'BUDGET_EXCEEDED',
    `Budget exceeded: ${intent.id}'s budget expired at ${intent.budget!.expires_at} (now ${now.toISOString()}); ${action} is refused.\n` +
      `A human extends budget.expires_at for ${intent.id} in ${registryPath} (or removes it) to continue.`,
    { intent: intent.id, limit: 'expires_at', expires_at: intent.budget!.expires_at, now: now.toISOString() },
  );
}

/**
 * The pre-commit budget check for `intent`: refuses (BUDGET_EXCEEDED) a commit after `expires_at`,
 * one more commit than `max_commits`, or one whose staged lines (`stagedLines`, else counted here)
 * take the total past `max_changed_lines`. Does no git work when the intent has no budget.
 */
export function checkCommitBudget(repo: Repo, intent: Intent, registryPath: string, now: Date = new Date(), stagedLines?: number): void {
  const b = intent.budget;
  if (!b) return;
  if (isExpired(b, now)) throw expiredError(intent, registryPath, now, 'every commit');
  if (b.max_commits === undefined && b.max_changed_lines === undefined) return;
  const usage = intentUsage(repo, intent.id, headAndNotes(repo));
  const how = `Finish the intent (intent done ${intent.id}), or ask a human to raise budget.${'%s'} for ${intent.id} in ${registryPath}.`;
  if (b.max_commits !== undefined && usage.commits + 1 > b.max_commits) {
    throw new IntentError(
      'BUDGET_EXCEEDED',
      `Budget exceeded: ${intent.id} has ${usage.commits} governed commit${usage.commits === 1 ? '' : 's'} so far and max_commits is ${b.max_commits}; this commit would be number ${usage.commits + 1}.\n` +
        how.replace('%s', 'max_commits'),
      { intent: intent.id, limit: 'max_commits', max: b.max_commits, used: usage.commits, would_be: usage.commits + 1 },
    );
  }
  if (b.max_changed_lines !== undefined) {
    const staged = stagedLines ?? stagedNumstat(repo.root).lines;
    if (usage.changed_lines + staged > b.max_changed_lines) {
      throw new IntentError(
        'BUDGET_EXCEEDED',
        `Budget exceeded: ${intent.id} has ${usage.changed_lines} changed lines so far + ${staged} staged = ${usage.changed_lines + staged}, over max_changed_lines ${b.max_changed_lines}.\n` +
          `Stage less (at most ${Math.max(0, b.max_changed_lines - usage.changed_lines)} more lines), or: ` + how.replace('%s', 'max_changed_lines'),
        { intent: intent.id, limit: 'max_changed_lines', max: b.max_changed_lines, used: usage.changed_lines, staged, would_be: usage.changed_lines + staged },
      );
    }
  }
}
