/**
 * What the hook server learns about a commit between its pre-commit and its post-commit (issue 28,
 * docs/decisions.md "Post-commit's git work, done ahead"). Once pre-commit has allowed a commit,
 * the server answers git at once and then, while git writes the commit and runs its other hooks,
 * diffs what it will commit: the tree of the index as staged (`git write-tree` of a copy) against
 * HEAD, with post-commit's own pinned options. post-commit takes the diff only when the commit it
 * records has exactly that parent and that tree (read from the loose commit object): then it is
 * the commit's own diff, byte for byte; otherwise post-commit runs git. Only in the hook server: a
 * hook's own node exits when it has answered. The classes are decided here too, the syntax
 * comparison included (the server keeps the TypeScript compiler loaded once a change needed it).
 */
import { randomBytes } from 'node:crypto';
import { copyFileSync, linkSync, readdirSync, readFileSync, rmSync, statSync, watch, type FSWatcher } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { activeHookContext, withHookContextSync, type HookContext } from '../core/hook-context.js';
import { residentTreeDiff, treeDiffAsync } from '../git/diff.js';
import { gitRawAsync } from '../git/process.js';
import { differingDirs, readIndex, stagedPathsFrom, type FlatTree, type IndexSnapshot } from '../git/index-file.js';
import type { FileChange } from '../git/hunks.js';
import { buildTrees, flatWithTrees, writeMissingTrees, type BuiltTrees } from '../git/tree-build.js';
import { commitHeaders, readLoose, readObjectsPreferLooseAsync } from '../git/loose.js';
import { cheapClasses, syntaxClasses, unchangedTreeClasses, type FileClasses } from '../mutation/classify.js';
import { useTypeScriptCodeCache } from '../mutation/ts-cache.js';
import { hostEnv } from '../core/settings.js';
import { headOid, openHookRepo, refOid, stateDir, type Repo } from '../git/repo.js';
import { sharedRepository } from '../git/notes-write.js';
import { keepObject, keptObject } from '../git/object-cache.js';
import { readObjectsResident, type GitObject } from '../git/blobs.js';
import { prepareRecord, type Prefetched, type PreparedRecord, type SettledBy } from '../trace/record-commit.js';
import { recordMadeNow } from './post-commit.js';
import { epochMs, type HookOutcome } from './outcome.js';
import { hookGitProcess } from '../core/hook-parent.js';
import { mainHooksWarningFor } from './health.js';
import { recordedMarker } from './record-marker.js';

/** How long post-commit waits for the work still under way before it runs git itself. */
const WAIT_MS = 3000;
/** A commit refused after pre-commit (commit-msg, a hook after ours) leaves its work unused this long at most. */
const KEEP_MS = 60_000;

/** What a job read ahead, with the flat tree of the index it committed: HEAD's, once the commit is made from it. */
export interface ReadAhead extends Prefetched {
  /**
   * The index's entries with their trees, when those are the tree committed (null otherwise):
   * built when first asked (after post-commit's answer: only the next commit's check needs them).
   */
  flat: () => FlatTree | null;
  /** For the server's trace: how the job went (its phases in ms from the answer to git, the paths it took). */
  trace: Record<string, number | boolean>;
}

const jobs = new Map<string, { at: number; done: Promise<ReadAhead | null> }>();
/**
 * HEAD's flat tree by commit id, for the staged paths of the next pre-commit (readIndex +
 * stagedPathsFrom: no `git diff --cached`): the index each recorded commit was made from. Objects
 * never change, so an entry is right for as long as it is kept: each worktree's last (8 agents
 * committing at once each find their own), within a budget.
 */
const heads = new Map<string, FlatTree>();
/** The commit whose flat tree is kept for each worktree (by git folder). */
const headOf = new Map<string, string>();
const HEADS = 16;
const HEADS_BYTES = 24 * 1024 * 1024;

/**
 * The index as it is now, at `to`: a hard link (git never writes an index file in place: it
 * writes a lock file and renames it over, so the linked file keeps these bytes), else a copy (another
 * file system). A link costs nothing whatever the index's size; a copy of a 100k-file index, 9 MB.
 */
function snapshot(from: string, to: string): void {
  try {
    linkSync(from, to);
  } catch {
    copyFileSync(from, to);
  }
}

/**
 * Removes index snapshots made more than KEEP_MS ago (their job is long over: a server killed
 * during one), by the time in their name (a link has the index's own mtime).
 */
function sweepCopies(dir: string): void {
  for (const n of readdirSync(dir)) {
    const made = /^index\.([0-9]+)\./.exec(n);
    if (made && Date.now() - Number(made[1]) > KEEP_MS) rmSync(join(dir, n), { force: true });
  }
}

/** The index file git commits from: GIT_INDEX_FILE (relative to the hook's directory), else the worktree's own. */
function indexFile(repo: Repo, env: NodeJS.ProcessEnv, cwd: string): string {
  return env.GIT_INDEX_FILE ? resolve(cwd, env.GIT_INDEX_FILE) : join(repo.gitDir, 'index');
}

/**
 * pre-commit, served: the staged paths, read from the index in this process when the server holds
 * `head`'s flat tree (the commit before was recorded here); null when not (the caller asks git).
 */
export function stagedPathsInProcess(repo: Repo, env: NodeJS.ProcessEnv, head: string | null): string[] | null {
  const ctx = activeHookContext();
  const tree = head && ctx?.defer ? heads.get(head) : undefined;
  if (!tree || !ctx) return null;
  const file = indexFile(repo, env, ctx.cwd);
  const before = fileId(file);
  const index = readIndex(file);
  if (!index) return null;
  const at: number[] = [];
  const staged = stagedPathsFrom(index, tree, at);
  if (index.tree && head && before && fileId(file) === before) {
    checked.set(repo.gitDir, { file, id: before, index, parent: head, diff: diffEarly(repo, env, head, index.tree), blobs: blobsEarly(repo, index, at) });
  }
  return staged;
}

/** At most this many new sides are asked for while the check runs (a larger change reads them after). */
const EARLY_BLOBS = 32;

/**
 * The check, served: asks the resident `git cat-file` for the staged files' new sides (the index's
 * blob ids of the entries `at` names) while the check runs. cat-file is another process: it reads
 * and inflates them on the core git leaves idle while it waits for this hook, where the read-ahead
 * would read them on the server's one thread after the answer. Ids name their bytes, so the
 * read-ahead takes any it needs from here whatever the commit turns out to be.
 */
function blobsEarly(repo: Repo, index: IndexSnapshot, at: number[]): Promise<Map<string, GitObject> | null> | null {
  const oids: string[] = [];
  for (const i of at) {
    // A file's (or a symlink's) blob; not a submodule's commit.
    if (i < 0 || (index.entries.modes[i] & 0o170000) === 0o160000) continue;
    const oid = index.entries.entry(i).oid;
    if (!keptObject(repo.commonDir, oid)) oids.push(oid);
  }
  if (!oids.length || oids.length > EARLY_BLOBS) return null;
  return readObjectsResident({ cwd: repo.root, commonDir: repo.commonDir, gitDir: repo.gitDir }, oids).catch(() => null);
}

/**
 * What the check read, by worktree, for the read-ahead: the index (with its cache tree's root) and
 * the identity of its file then, which the read-ahead takes while the file is that one still; and
 * the resident git's diff of the parent against that root, asked then (null: not asked).
 */
const checked = new Map<string, { file: string; id: string; index: IndexSnapshot; parent: string; diff: Promise<FileChange[] | null> | null; blobs: Promise<Map<string, GitObject> | null> | null }>();

/** A file's identity (device, inode, size, change time in ns), or null when it cannot be read. */
function fileId(file: string): string | null {
  const st = statSync(file, { bigint: true, throwIfNoEntry: false });
  return st ? `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}` : null;
}

/**
 * The check, served: asks the resident `git diff-tree` for the diff the read-ahead will need (the
 * parent's tree, a loose commit, against the tree git will commit: the cache tree's root) while
 * the check itself runs, instead of after its answer; null when the parent is not loose. The
 * read-ahead takes it only for that very parent and index (prefetch); a refused commit leaves it unused.
 */
function diffEarly(repo: Repo, env: NodeJS.ProcessEnv, parent: string, tree: string): Promise<FileChange[] | null> | null {
  const commit = readLoose(repo.commonDir, parent, env);
  const from = commit?.type === 'commit' ? commitHeaders(commit.data)?.tree : null;
  if (!from) return null;
  return residentTreeDiff({ cwd: repo.root, commonDir: repo.commonDir, gitDir: repo.gitDir }, from, tree).catch(() => null);
}

/** post-commit, served: `commit` was made from the index read ahead (`pre.flat()`): keep its flat tree. */
export function rememberHead(commit: string, pre: ReadAhead): void {
  if (!/^[0-9a-f]{40}$/.test(commit)) return;
  const entries = pre.flat();
  if (!entries) return;
  const worktree = pre.repo?.gitDir;
  if (worktree !== undefined) {
    // The worktree's commit before this one goes, unless another worktree is there too.
    const before = headOf.get(worktree);
    headOf.delete(worktree);
    headOf.set(worktree, commit);
    if (before !== undefined && before !== commit && ![...headOf.values()].includes(before)) heads.delete(before);
  }
  heads.delete(commit);
  heads.set(commit, entries);
  let bytes = 0;
  for (const t of heads.values()) bytes += t.paths.length;
  for (const [k, t] of heads) {
    if (heads.size <= HEADS && bytes <= HEADS_BYTES) break;
    heads.delete(k);
    bytes -= t.paths.length;
  }
  for (const [w, k] of headOf) if (!heads.has(k)) headOf.delete(w);
}

/**
 * pre-commit, served, the commit allowed: keeps the index git commits from (a temporary one for
 * `commit -a` is gone once the commit is made) and has the rest done after the answer.
 */
export function prefetchCommit(repo: Repo, env: NodeJS.ProcessEnv, parent: string | null): void {
  const ctx = activeHookContext();
  if (!ctx?.defer || !parent || !/^[0-9a-f]{40}$/.test(parent)) return;
  for (const [k, j] of jobs) if (Date.now() - j.at > KEEP_MS) jobs.delete(k);
  // The index the check read, when its file is still the one read (no snapshot needed); else a
  // snapshot in the server's folder (uninstall removes it; a copy a killed server left is swept later).
  const file = indexFile(repo, env, ctx.cwd);
  const read = checked.get(repo.gitDir);
  checked.delete(repo.gitDir);
  // (Kept only with the cache tree's root: without it the trees may need `git write-tree` of a snapshot.)
  const given = read && read.parent === parent && read.file === file && fileId(file) === read.id ? read : null;
  let copy: string | null = null;
  if (!given) {
    const dir = join(stateDir(repo), 'server');
    copy = join(dir, `index.${Date.now()}.${process.pid}.${randomBytes(6).toString('hex')}`);
    try {
      sweepCopies(dir);
      snapshot(file, copy);
    } catch {
      rmSync(copy, { force: true });
      return;
    }
  }
  let start: () => void = () => {};
  const done = new Promise<ReadAhead | null>((res) => {
    start = () => void prefetch(ctx, repo, parent, copy, given?.index ?? null, given?.diff ?? null, read?.blobs ?? null).catch(() => null).then(res);
  });
  jobs.set(repo.gitDir, { at: Date.now(), done });
  ctx.defer(start);
  // The git process making the commit (the check's): its post-commit finds the record's marker by it.
  const git = hookGitProcess();
  void done.then((pre) => { if (pre) recordWhenMade(ctx, repo, done, pre, git); });
}

/**
 * Commits recorded as soon as git made them (recordWhenMade): post-commit's outcome, by the
 * directory and GIT_DIR the check ran with (git runs a commit's hooks in the same place, with the
 * same environment: post-commit finds it without opening the repository again).
 */
const recorded = new Map<string, { sha: string; outcome: HookOutcome; remember: (() => void) | null; repo: Repo; marker: string | null }>();
const recordedKey = (cwd: string, env: NodeJS.ProcessEnv) => `${cwd}\0${env.GIT_DIR ?? ''}`;

/**
 * post-commit, served: the outcome of recording the commit at HEAD when that was done as soon as git
 * made it (recordWhenMade), or null. Taken once.
 */
export function takeRecorded(cwd: string, env: NodeJS.ProcessEnv): HookOutcome | null {
  const key = recordedKey(cwd, env);
  const r = recorded.get(key);
  if (!r) return null;
  recorded.delete(key);
  if (r.marker) rmSync(r.marker, { force: true });
  if (headOid(r.repo) !== r.sha) return null;
  // HEAD's flat tree for the next check, once post-commit has its answer.
  if (r.remember) deferOrNow(r.remember);
  return r.outcome;
}

/** Runs `job` after the answer of the hook being served (in the server), else now. */
export function deferOrNow(job: () => void): void {
  const ctx = activeHookContext();
  if (ctx?.defer) ctx.defer(job);
  else job();
}

/** The branch HEAD of `repo`'s worktree names (`refs/heads/…`), or null (detached, unreadable). */
function headRef(repo: Repo): string | null {
  try {
    const head = readFileSync(join(repo.gitDir, 'HEAD'), 'utf8').trim();
    return /^ref: refs\/heads\/[^\0]+$/.test(head) && !head.includes('..') ? head.slice(5) : null;
  } catch {
    return null;
  }
}

/**
 * Records the commit read ahead as soon as git has made it, while git goes on to its post-commit
 * hook (renaming the index, starting the hook's shell: some milliseconds), instead of when that
 * hook asks: a watch on the folder of the branch HEAD names sees git move it. Only a commit whose
 * only parent and tree are those the work was done for (its loose commit object), on the branch the
 * worktree was on: the commit made from that index. post-commit then answers with what this wrote;
 * when it asks first, it takes the work itself (the job is gone from `jobs`) and this does nothing.
 * Any failure here leaves the commit to post-commit, as before.
 */
function recordWhenMade(ctx: HookContext, repo: Repo, done: Promise<ReadAhead | null>, pre: ReadAhead, git: string | null): void {
  const key = repo.gitDir;
  const mine = () => jobs.get(key)?.done === done;
  const branch = headRef(repo);
  if (!branch || !mine()) return;
  let watcher: FSWatcher | null = null;
  let timer: NodeJS.Timeout | undefined;
  let prepared: PreparedRecord | null = null;
  const stop = () => {
    watcher?.close();
    watcher = null;
    clearTimeout(timer);
  };
  const check = () => {
    if (!mine()) return stop();
    if (headRef(repo) !== branch) return stop();
    const sha = refOid(repo, branch);
    if (!sha || sha === pre.parent) return;
    stop();
    const commit = readLoose(repo.commonDir, sha, ctx.env);
    const headers = commit?.type === 'commit' ? commitHeaders(commit.data) : null;
    if (!headers || headers.tree !== pre.tree || headers.parents.length !== 1 || headers.parents[0] !== pre.parent) return;
    jobs.delete(key);
    let written = '';
    const own: HookContext = { env: ctx.env, cwd: ctx.cwd, warn: (text) => { written += text; }, kept: ctx.kept };
    try {
      const t0 = performance.now();
      const done = withHookContextSync(own, () => recordMadeNow(ctx.cwd, ctx.env, own.warn, pre, 0, prepared));
      if (!done.record || done.record.vcs.revision !== sha) return;
      const trace = { ...done.trace, commit: sha, ahead: pre.trace, early: Math.round((performance.now() - t0) * 100) / 100, earlyAt: epochMs(t0) };
      const once = done.readAhead ? onceOnly(() => rememberHead(sha, pre)) : null;
      const stderr = written + done.stderr;
      // Nothing to say (nor the warning post-commit adds when the main worktree's hooks lost intent,
      // health.ts): post-commit's hook need not ask (the marker, below), and HEAD's flat tree is
      // kept a little later whether or not it asks.
      const marker = stderr || mainHooksWarningFor(ctx.cwd, ctx.env, git) ? null : recordedMarker(join(stateDir(repo), 'server'), git, sha);
      // The work left for after (HEAD's flat tree kept), traced as a served post-commit's is (`post-commit:after`).
      if (marker && once) setTimeout(() => { once(); ctx.trace?.({ hook: 'post-commit:after', at: epochMs(), ...trace }); }, REMEMBER_MS).unref();
      recorded.set(recordedKey(ctx.cwd, ctx.env), { sha, outcome: { code: 0, stderr, trace }, remember: once, repo, marker });
      // Traced: the record as made (its post-commit may not ask: the marker).
      ctx.trace?.({ hook: 'post-commit:early', at: epochMs(), marker: !!marker, ...trace });
    } catch {
      // post-commit records it, and says what went wrong.
    }
  };
  try {
    const dir = dirname(join(repo.commonDir, branch));
    watcher = watch(dir, { persistent: false }, () => check());
    watcher.on('error', stop);
  } catch {
    return;
  }
  timer = setTimeout(stop, KEEP_MS);
  timer.unref();
  // While git writes the commit: what its record takes that does not need its id (the record
  // finishes it, or does it all when the commit is not this one).
  const t0 = performance.now();
  try {
    prepared = withHookContextSync(ctx, () => prepareRecord(repo, ctx.env, { parents: [pre.parent], changes: pre.changes, pre }));
  } catch {
    prepared = null;
  }
  pre.trace.prepared = Math.round((performance.now() - t0) * 100) / 100;
  check();
}

/** How long after the marker HEAD's flat tree is kept when post-commit did not ask (past the commit's end). */
const REMEMBER_MS = 15;

/** `job`, run at most once however often it is called. */
function onceOnly(job: () => void): () => void {
  let ran = false;
  return () => {
    if (ran) return;
    ran = true;
    job();
  };
}

/**
 * post-commit, served: what pre-commit's job learnt for this worktree (waiting for it a while), or
 * null. Taken once.
 */
export async function takePrefetched(cwd: string, env: NodeJS.ProcessEnv): Promise<ReadAhead | null> {
  if (!jobs.size) return null;
  const key = openHookRepo(cwd, env).gitDir;
  const job = jobs.get(key);
  if (!job) return null;
  jobs.delete(key);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((res) => { timer = setTimeout(() => res(null), WAIT_MS); });
  try {
    return await Promise.race([job.done, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** The tree of commit `parent` (loose, or from the resident `cat-file`); null when not known here. */
async function parentTree(repo: Repo, parent: string): Promise<string | null> {
  const c = (await readObjectsPreferLooseAsync(repo, [parent], hostEnv())).get(parent);
  return c?.type === 'commit' ? (commitHeaders(c.data)?.tree ?? null) : null;
}

/** Whether this process may write objects into the repository's own object folder, as git would. */
function writesObjects(repo: Repo, env: NodeJS.ProcessEnv): boolean {
  return !env.GIT_OBJECT_DIRECTORY && !env.GIT_QUARANTINE_PATH && !sharedRepository(repo.commonDir);
}

async function prefetch(ctx: HookContext, repo: Repo, parent: string, copy: string | null, given: IndexSnapshot | null, early: Promise<FileChange[] | null> | null, earlyBlobs: Promise<Map<string, GitObject> | null> | null): Promise<ReadAhead | null> {
  // Each git process starts with the hook's environment (the server may be serving another hook by then).
  const inCtx = <T>(fn: () => T): T => withHookContextSync(ctx, fn);
  const where = { cwd: repo.root, commonDir: repo.commonDir, gitDir: repo.gitDir };
  const t0 = performance.now();
  const trace: ReadAhead['trace'] = { at: epochMs(t0) };
  const lap = (name: string) => { trace[name] = Math.round((performance.now() - t0) * 100) / 100; };
  let index: IndexSnapshot | null;
  let built: BuiltTrees | null;
  let tree: string | null;
  let diffing: Promise<FileChange[] | null> | null = null;
  const base = heads.get(parent);
  // The trees of the entries as staged, from the entries alone (never the cache tree's ids): the
  // parent's directories below which no entry differs are its trees as they are.
  const build = (entries: IndexSnapshot['entries']) => {
    const changed = base ? differingDirs(entries, base) : null;
    return buildTrees(entries, changed && base ? { base, changed } : undefined);
  };
  const from = await inCtx(() => parentTree(repo, parent));
  lap('parent');
  try {
    index = given ?? (copy ? readIndex(copy) : null);
    lap('index');
    // git commit brought the cache tree up to date (and wrote its trees) before running the
    // hooks: its root is the tree the commit will name (post-commit checks that it does). The
    // diff starts at once, in the resident git, while the trees are built here.
    tree = index?.tree ?? null;
    // Asked already while the check ran (diffEarly: this parent, this index); else now. Handled at
    // once: a failure here is git's diff below, never an unhandled rejection in the server.
    if (tree && from) {
      diffing = early ?? inCtx(() => residentTreeDiff(where, from, tree!)).catch(() => null);
      trace.earlyDiff = !!early;
    }
    // With the cache tree's root to diff, the trees are built only when HEAD's flat tree is asked
    // for (flat, below).
    built = index && !tree ? build(index.entries) : null;
    lap('differ');
    if (!tree && built && base && writesObjects(repo, ctx.env)) {
      // What `git write-tree` would do, without a process: the trees not already there, written
      // loose (the parent's directories with the same ids are there).
      trace.treesWritten = writeMissingTrees(join(repo.commonDir, 'objects'), built, base, from);
      tree = built.root;
    } else if (!tree) {
      if (!copy) return null;
      const res = await inCtx(() => gitRawAsync(['write-tree'], { cwd: repo.root, inheritRepoEnv: true, env: { GIT_INDEX_FILE: copy! } }));
      tree = res.stdout.trim();
      if (res.status !== 0 || !/^[0-9a-f]{40}$/.test(tree)) return null;
    }
  } finally {
    if (copy) rmSync(copy, { force: true });
  }
  lap('tree');
  // `diff-tree --stdin` takes two ids as trees only when the first is one (else: a commit and its
  // parents). The resident is asked once (the early diff, else now); when it cannot answer, git runs.
  const to = tree;
  const resident = diffing ? await diffing : from ? await inCtx(() => residentTreeDiff(where, from, to)).catch(() => null) : null;
  trace.residentDiff = !!resident;
  const changes = resident ?? (await inCtx(() => treeDiffAsync(repo.root, parent, to)));
  lap('diff');
  // The index's entries as HEAD's flat tree for after the commit, when they are the tree written:
  // git takes the cache tree's valid nodes as they are, and an agent can write them; the trees
  // built from the entries alone are the tree written only when the cache tree is right.
  const staged = index;
  let flatTree: FlatTree | null | undefined;
  const flat = (): FlatTree | null => {
    if (flatTree !== undefined) return flatTree;
    const trees = staged ? (built ?? build(staged.entries)) : null;
    flatTree = staged && trees && trees.root === to ? flatWithTrees(staged.entries, trees, base) : null;
    trace.entries = !!flatTree;
    return flatTree;
  };
  // Both sides of every change (loose objects, in-process), for post-commit and for the classes.
  // (The new sides the check asked for, when they came: any id among them is that object.)
  const asked = earlyBlobs ? await earlyBlobs : null;
  const wanted = changes.flatMap((c) => [c.oldOid, c.newOid]);
  const objects = await inCtx(() => readObjectsPreferLooseAsync(repo, asked ? wanted.filter((o) => !asked.has(o)) : wanted, ctx.env));
  if (asked) for (const o of wanted) if (asked.has(o)) objects.set(o, asked.get(o)!);
  trace.earlyBlobs = asked?.size ?? 0;
  lap('objects');
  // Each new side, for the next commit, whose old side it is when an agent edits the same file again.
  for (const c of changes) {
    const o = objects.get(c.newOid);
    if (o?.type === 'blob') inCtx(() => keepObject(repo.commonDir, o));
  }
  const blobs = new Map([...objects].map(([k, o]) => [k, o.data]));
  // The classes (what post-commit's classification does; a claim in the message is post-commit's
  // to check): the cheap rules; what survives them and only reformats (comments, layout: the same
  // parse trees) by parsing; the rest by the syntax comparison, in this process (git is writing the
  // commit meanwhile).
  const cheap = cheapClasses(changes, blobs);
  const same = cheap.survivors.length ? unchangedTreeClasses(cheap.out, cheap.survivors) : null;
  let settled: { classes: FileClasses; settledBy: SettledBy };
  if (!cheap.survivors.length) settled = { classes: cheap.out, settledBy: 'no-syntax' };
  else if (same) settled = { classes: same, settledBy: 'same-tree' };
  else {
    useTypeScriptCodeCache(stateDir(repo));
    settled = { classes: syntaxClasses(cheap.out, cheap.survivors), settledBy: 'syntax' };
  }
  lap('classes');
  return { parent, tree, changes, objects, ...settled, flat, trace, repo };
}
