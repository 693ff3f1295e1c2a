/**
 * Records one commit: its trace record as a git note and a ledger line, under one lock. Used by
 * the post-commit, post-merge and post-rewrite hooks and by `intent repair`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { resolveIntentId } from '../intents/active.js';
import { authorsOfCommitted, readAttribution, updateAttribution, type AiAuthor, type LineAuthors, type PathAttribution } from './line-credit.js';
import { commitHeaders, readLoose, readObjectsPreferLoose } from '../git/loose.js';
import { touchedPaths, type FileChange } from '../git/hunks.js';
import type { GitObject } from '../git/blobs.js';
import type { FileClasses } from '../mutation/classify.js';
import { noteObjectNames, writeNoteInProcess } from '../git/notes-write.js';
import { NOTES_REF } from '../core/version.js';
import { applyPool, creditPool } from './credit-carry.js';
import { classifyCommitChanges, traceClasses } from '../mutation/classify-commit.js';
import { claimsRefactor, unmetClaimWarning } from '../mutation/claim.js';
import { git } from '../git/process.js';
import { useTypeScriptCodeCache } from '../mutation/ts-cache.js';
import { commitDiff, type CommitDiff } from '../git/diff.js';
import { IntentError } from '../core/errors.js';
import { noteRecord } from './note-records.js';
import { appendLedger, ledgerLine } from './ledger.js';
import { withLock } from '../core/lock.js';
import { readNote, writeNote } from '../git/notes.js';
import { loadIgnore } from '../intents/ignore.js';
import { findIntent, readRegistry, registrySha256, type Intent } from '../intents/registry.js';
import { headOid, openHookRepo, orchestrationPath, stateDir, type Repo } from '../git/repo.js';
import { basePathsOfMerge, localBaseTips, resultOfChanges } from '../git/update-merge.js';
import { compileScope, outOfScope } from '../intents/scope.js';
import { advanceConflictsCache, rememberMadeCommit } from '../intents/conflicts-cache.js';
import { buildRecord, noteText, type TraceRecord } from './record.js';
import { warn as warnActive } from '../core/hook-context.js';
import { hostEnv, readSettings } from '../core/settings.js';

/**
 * What the hook server read ahead for the commit being made (lib/hooks/prefetch.ts): HEAD and the
 * tree of the index as pre-commit allowed it, their diff with commitDiff's options, both sides of
 * each change, and their classes when no syntax comparison is needed.
 */
/** How the read-ahead settled a commit's classes: the cheap rules, the same parse trees, or the syntax comparison. */
export type SettledBy = 'no-syntax' | 'same-tree' | 'syntax';

export interface Prefetched {
  parent: string;
  tree: string;
  changes: FileChange[];
  /** Both sides of every change, by id. */
  objects: Map<string, GitObject>;
  /** The classes, when the read-ahead settled every change (no claim): by the cheap rules, the same parse trees or the syntax comparison. */
  classes?: FileClasses;
  settledBy?: SettledBy;
  /** The repository as the check of the same commit opened it (the same git process and worktree): not opened again. */
  repo?: Repo;
}

/** Path of the shared ledger (in the main worktree, one for all worktrees). */
export function ledgerPath(repo: Repo): string {
  return orchestrationPath(repo, 'agent_trace.jsonl');
}

/**
 * What recording a commit takes that does not depend on the commit's id (prepareRecord): the
 * intent and registry, the changes' bytes, the models' credit, the scope's verdict and, when the
 * classes were settled ahead, the record itself but for its id. The hook server makes it while git
 * writes the commit (lib/hooks/prefetch.ts); recordCommit finishes it once the commit is there.
 */
export interface PreparedRecord {
  repo: Repo;
  intent: Intent;
  registry: { path: string; sha256: string };
  parents: string[];
  changes: FileChange[];
  /** Both sides of every change and the credited blobs, by id. */
  objects: Map<string, GitObject>;
  blobs: Map<string, Buffer>;
  credited: (readonly [string, PathAttribution])[];
  authorship: Map<string, { authors: AiAuthor[]; lines: LineAuthors }>;
  violations: string[];
  /** The classes settled ahead (no claim), and the record built with them, its id not yet set. */
  settled: { classes: FileClasses; settledBy: SettledBy; record: TraceRecord } | null;
}

/**
 * The part of recording a commit of `parents` → `changes` (the commit made from what was read
 * ahead, `pre`, when given) that does not need its id. Null when the worktree names no intent.
 */
export function prepareRecord(
  repo: Repo,
  env: NodeJS.ProcessEnv,
  src: {
    intentId?: string;
    parents: string[];
    changes: FileChange[];
    pre?: Prefetched | null;
    /** Old commits (and their records) whose model credit this one inherits; default: the cherry-pick in progress. */
    carry?: { sha: string; record: TraceRecord }[];
    /** Objects read along with the changes' (one `git cat-file` when they are not loose): in `objects`, not in `blobs`. */
    also?: string[];
  },
  lap: (phase: string) => void = () => {},
): PreparedRecord | null {
  const named = src.intentId ? { id: src.intentId } : resolveIntentId(repo, env.INTENT_ID);
  if (!named) return null;
  const registryFile = orchestrationPath(repo, 'active_intents.yaml');
  const { text: registryText, registry } = readRegistry(registryFile);
  const intent: Intent = findIntent(registry, named.id) ?? {
    id: named.id, name: '(not in the registry)', status: 'PENDING', owned_scope: [],
    constraints: [], acceptance_criteria: [], related_specs: [],
  };
  lap('registry');
  const { changes, pre } = src;
  const pending = readAttribution(repo);
  const credited = changes.flatMap((c) => (pending[c.path] ? [[c.path, pending[c.path]] as const] : []));
  const wanted = [...changes.flatMap((c) => [c.oldOid, c.newOid]), ...credited.map(([, e]) => e.blob)];
  const also = new Set(src.also);
  // What was read ahead is not read again.
  const objects = readObjectsPreferLoose(repo, [...(pre ? wanted.filter((n) => !pre.objects.has(n)) : wanted), ...also], env);
  if (pre) for (const [k, o] of pre.objects) objects.set(k, o);
  lap('objects');
  const blobs = new Map([...objects].flatMap(([name, o]) => (also.has(name) ? [] : [[name, o.data] as const])));
  const fresh = new Map(
    credited.flatMap(([path, entry]) => {
      const committed = blobs.get(changes.find((c) => c.path === path)!.newOid);
      return committed ? [[path, { authors: entry.authors, lines: authorsOfCommitted(entry, blobs.get(entry.blob), committed) }] as const] : [];
    }),
  );
  const carry = src.carry ?? cherryPicked(repo);
  const authorship = carry.length ? applyPool(creditPool(repo.root, carry), changes, blobs, fresh) : fresh;
  // A refactor-like change loads the TypeScript compiler: from the repository's code cache.
  useTypeScriptCodeCache(stateDir(repo));
  // A merge of the base into the intent's branch: what it takes from the base is not the intent's.
  const fromBase = repo.isMainWorktree || src.parents.length < 2 ? new Set<string>() : basePathsOfMerge(repo.root, src.parents, localBaseTips(repo.root), () => resultOfChanges(changes));
  const touched = touchedPaths(changes).filter((p) => !fromBase.has(p));
  const violations = outOfScope(touched, compileScope(intent.owned_scope), loadIgnore(repo), !repo.isMainWorktree);
  const prepared: PreparedRecord = {
    repo, intent, registry: { path: relative(repo.mainRoot, registryFile).split('\\').join('/'), sha256: registrySha256(registryText) },
    parents: src.parents, changes, objects, blobs, credited, authorship, violations, settled: null,
  };
  // Classes settled ahead hold unless the commit's message claims a refactor (told when it is there).
  if (pre?.classes) prepared.settled = { classes: pre.classes, settledBy: pre.settledBy ?? 'no-syntax', record: build(prepared, '', pre.classes) };
  return prepared;
}

/** The record of `p` for commit `sha` with `classes`. */
function build(p: PreparedRecord, sha: string, classes: FileClasses): TraceRecord {
  return buildRecord({
    sha, parents: p.parents, changes: p.changes, blobs: p.blobs, intent: p.intent, registry: p.registry,
    scopeViolations: p.violations, authorship: p.authorship, classes,
  });
}

/**
 * Records the commit `rev` (HEAD after a commit) of the worktree at `cwd`: builds its trace
 * record, writes the note and appends the ledger under one lock, so notes and ledger lines of
 * concurrent commits in many worktrees are neither lost nor torn and the ledger order is the
 * order of the notes. Returns null when the commit is not governed (no intent named).
 */
export function recordCommit(
  cwd: string,
  env: NodeJS.ProcessEnv = hostEnv(),
  opts: {
    rev?: string;
    intentId?: string;
    /** Old commits (and their records) whose model credit this one inherits. */
    carry?: { sha: string; record: TraceRecord }[];
    /**
     * post-commit: HEAD is a commit `git commit` just made, so what pre-commit learnt about the
     * other intents' branches holds for it too (lib/intents/conflicts-cache.ts). Not for other
     * hooks, which record commits that may have existed before (a fast-forward).
     */
    madeNow?: boolean;
    /** Where warnings go as they happen (the hook's context, core/hook-context.ts); default: the active hook's, else the process's stderr. */
    warn?: (text: string) => void;
    /** post-commit in the hook server: what was read ahead, used when HEAD is the commit it was read for. */
    prefetched?: Prefetched | null;
    /** With `prefetched`: what prepareRecord made of it (used with it). */
    prepared?: PreparedRecord | null;
    /** Told whether `prefetched` was the commit's (its diff used). */
    readAhead?: (used: boolean) => void;
    /** Told as each phase ends (the hook server's trace). */
    lap?: (phase: string) => void;
  } = {},
): TraceRecord | null {
  const repo = (opts.rev === undefined ? opts.prefetched?.repo : undefined) ?? openHookRepo(cwd, env);
  const named = opts.intentId ? { id: opts.intentId } : resolveIntentId(repo, env.INTENT_ID);
  if (!named) return null;
  const lap = opts.lap ?? (() => {});
  const ahead = opts.prefetched && opts.rev === undefined ? readAhead(repo, env, opts.prefetched) : null;
  opts.readAhead?.(!!ahead);
  const diff = ahead ?? commitDiff(repo.root, opts.rev ?? 'HEAD');
  lap('diff');
  // The commit object (its message says whether the commit claims a refactor), and the notes
  // commit and trees on the new note's path, for writing it in-process: read in this process where
  // they are loose objects, with the changes' objects by one `git cat-file --batch` otherwise.
  const inProcess = readSettings(env).notesInProcess;
  const noteNames = inProcess ? noteObjectNames(NOTES_REF, diff.sha) : [];
  const given = ahead && opts.prepared?.intent.id === named.id ? opts.prepared : null;
  const p = given ?? prepareRecord(repo, env, {
    intentId: named.id, parents: diff.parents, changes: diff.changes, pre: ahead ? opts.prefetched : null,
    carry: opts.carry ?? (opts.rev === undefined ? undefined : []), also: ahead ? noteNames : [diff.sha, ...noteNames],
  }, lap);
  if (!p) return null;
  const objects = given ? readObjectsPreferLoose(repo, noteNames, env) : p.objects;
  const commitObject = ahead ? ahead.commit.data : objects.get(diff.sha)?.data;
  lap('note objects');
  // The decision the commit-msg hook held a claimed refactor to (lib/mutation/claim.ts); without a
  // claim, the classes the read-ahead settled.
  const claimed = claimsRefactor(commitMessage(repo.root, diff.sha, commitObject));
  const settled = p.settled && !claimed ? p.settled : null;
  if (settled) traceClasses(env, { outcome: settled.settledBy });
  const classes = settled ? settled.classes : classifyCommitChanges(p.changes, p.blobs, env, claimed);
  lap('classes');
  const warn = opts.warn ?? warnActive;
  if (claimed) warn(unmetClaimWarning(diff.sha, p.changes, p.blobs, classes));
  // Built ahead with the classes settled then: only its id (and time) to set.
  const record = settled ? { ...settled.record, timestamp: new Date().toISOString(), vcs: { ...settled.record.vcs, revision: diff.sha } } : build(p, diff.sha, classes);
  lap('record');
  withLock(join(stateDir(repo), 'record.lock'), () => {
    lap('lock');
    const text = noteText(record);
    const ident = commitObject && notesIdent(commitObject, env);
    if (!(inProcess && ident && writeNoteInProcess(repo.commonDir, env, NOTES_REF, diff.sha, text, objects, ident))) writeNote(repo.root, diff.sha, text);
    lap('note');
    const ledger = ledgerPath(repo);
    try {
      appendLedger(ledger, (prev) => ledgerLine(record, prev));
    } catch (e) {
      // The note is written: only the local ledger line is missing (`intent repair` appends it).
      const why = e instanceof IntentError ? e.message : `${ledger}: ${(e as Error)?.message ?? String(e)}`;
      throw new IntentError('WRITE_FAILED', `the trace note of ${diff.sha.slice(0, 12)} was recorded, but its ledger line was not: ${why}`, {
        commit: diff.sha, path: ledger, stage: 'ledger',
      });
    }
  });
  lap('ledger');
  if (p.credited.length) forgetCommitted(repo, p.credited);
  if (opts.madeNow) {
    advanceConflictsCache(repo, diff.sha, diff.parents);
    rememberMadeCommit(named.id, diff.sha, diff.parents, touchedPaths(diff.changes));
  }
  lap('after');
  return record;
}

/**
 * The diff of the commit HEAD names when it is the one `pre` was read for (its only parent is
 * `pre.parent`, its tree `pre.tree`, from the loose commit object): `pre.changes`, the same trees
 * diffed with the same options. Null otherwise (another commit, a hook after ours changed the
 * index): the caller runs git.
 */
function readAhead(repo: Repo, env: NodeJS.ProcessEnv, pre: Prefetched): (CommitDiff & { commit: GitObject }) | null {
  const sha = headOid(repo);
  const commit = sha ? readLoose(repo.commonDir, sha, env) : null;
  const head = commit?.type === 'commit' ? commitHeaders(commit.data) : null;
  if (!sha || !commit || !head || head.tree !== pre.tree || head.parents.length !== 1 || head.parents[0] !== pre.parent) return null;
  return { sha, parents: head.parents, changes: pre.changes, commit };
}

/**
 * The identities of the notes commit `git notes add` would make now: the committer of the commit
 * just made (the same environment and config), as author too unless GIT_AUTHOR_NAME and
 * GIT_AUTHOR_EMAIL name another (git would also read author.* config; the notes commit's author is
 * not judged anywhere). Null when the commit has no committer line to read.
 */
function notesIdent(commitObject: Buffer, env: NodeJS.ProcessEnv): { author: string; committer: string } | null {
  const head = commitObject.toString('utf8', 0, Math.max(0, commitObject.indexOf('\n\n')));
  const committer = /^committer (.+ <[^<>\n]*> \d+ [+-]\d{4})$/m.exec(head)?.[1];
  if (!committer) return null;
  const { GIT_AUTHOR_NAME: name, GIT_AUTHOR_EMAIL: email } = env;
  const when = committer.slice(committer.lastIndexOf('>') + 2);
  const author = name && email && !/[<>\n]/.test(name + email) ? `${name} <${email}> ${when}` : committer;
  return { author, committer };
}

/** A commit's message: the commit object after its headers (no user config can change it). */
function commitMessage(cwd: string, sha: string, object?: Buffer): string {
  const raw = object ? object.toString('utf8') : git(['cat-file', 'commit', sha], { cwd });
  const at = raw.indexOf('\n\n');
  return at === -1 ? '' : raw.slice(at + 2);
}

/** During `git cherry-pick`, the picked commit and its record: its model credit carries over. */
function cherryPicked(repo: Repo): { sha: string; record: TraceRecord }[] {
  const head = join(repo.gitDir, 'CHERRY_PICK_HEAD');
  if (!existsSync(head)) return [];
  const sha = readFileSync(head, 'utf8').trim();
  try {
    const record = noteRecord(readNote(repo.root, sha));
    return record && Array.isArray(record.files) ? [{ sha, record }] : [];
  } catch {
    return [];
  }
}

/** The committed paths' credit is in the note now; later writes start from the committed bytes. */
function forgetCommitted(repo: Repo, credited: (readonly [string, PathAttribution])[]): void {
  updateAttribution(repo, (paths) => {
    for (const [path, entry] of credited) if (paths[path]?.blob === entry.blob) delete paths[path];
  });
}

