/**
 * `intent verify`: re-checks governed commits from the history alone (a fresh clone with the
 * notes fetched is enough): every governed commit has a note, the note parses and validates as
 * Agent Trace, names this commit, its ranges cover exactly the commit's added lines and hash to
 * the committed bytes, its paths stay inside the scope it recorded, and that scope is one the
 * registry's history gave the intent at the time. Also checks the ledger's hash chain. All git
 * work is batched: a fixed number of processes whatever the number of commits.
 */
import { basePathsOfMerge, isBaseUpdate, localBaseTips, resultOfChanges } from '../git/update-merge.js';
import { createRequire } from 'node:module';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isBinary, readBlobs } from '../git/blobs.js';
import { existingCommits, reachableCommits } from '../git/commits.js';
import { diffCommits } from '../git/diff.js';
import { IntentError } from '../core/errors.js';
import { git, gitRaw } from '../git/process.js';
import { hashLines, lineStarts, sha256Hex } from './hashing.js';
import { touchedPaths, type FileChange } from '../git/hunks.js';
import { checkRegistry } from '../intents/registry.js';
import { openRepo } from '../git/repo.js';
import { compileScope, outOfScope, parseIgnoreFile, type Scope } from '../intents/scope.js';
import { summaryLine, type TraceRecord } from './record.js';
import { chooseRecord, parseNote } from './note-records.js';
import { METADATA_KEY, NOTES_REF, PKG_ROOT } from '../core/version.js';
import { BRANCH_PREFIX } from '../intents/active.js';

/** One problem `verify` found. */
export interface Finding {
  /** The commit (full sha), or null for ledger findings. */
  commit: string | null;
  intent: string | null;
  code:
    | 'NOTE_MISSING' | 'NOTE_UNPARSABLE' | 'NOTE_INVALID' | 'NOTE_MISPLACED' | 'SUMMARY_MISMATCH'
    | 'RANGE_MISMATCH' | 'HASH_MISMATCH' | 'FILES_MISMATCH' | 'SCOPE_VIOLATION' | 'SCOPE_NOT_IN_REGISTRY'
    | 'LEDGER_BROKEN' | 'LEDGER_MISMATCH' | 'NOTES_ABSENT' | 'SHALLOW' | 'BLOB_TOO_LARGE';
  message: string;
  path?: string;
}

export interface VerifyResult {
  range: string[];
  commits: number;
  governed: number;
  findings: Finding[];
  ledger: { path: string; lines: number } | null;
}

const SEP = '\x1e';
const FS = '\x1f';

/** Verifies the commits of `range` (git rev-list arguments; default HEAD) and the local ledger. */
export function verify(
  cwd: string,
  range: string[] = [],
  opts: {
    ledger?: boolean;
    notes?: string;
    /** Treat every commit of the range as this intent's (a push to intent/<ID>). */
    intent?: string;
    /** One NOTE_MISSING per commit even when the clone has no notes at all (repair wants the list). */
    eachMissing?: boolean;
  } = {},
): VerifyResult {
  for (const r of range) {
    if (r.startsWith('-') && !['--all', '--branches', '--not'].includes(r) && !r.startsWith('--remotes=')) {
      throw new IntentError('USAGE', `"${r}" is not a revision range; give ranges like origin/main..HEAD.`, { range: r });
    }
  }
  const repo = locate(cwd);
  if (opts.intent) assertKnownIntent(repo, opts.intent);
  // By default also every unmerged intent branch: work waiting to be merged is governed too.
  const revs = range.length ? range : ['HEAD', '--branches=intent/*'];
  const allNotes = readNotes(repo, opts.notes ?? NOTES_REF);
  const commits = listCommits(repo, revs, allNotes);
  const onIntentBranches = intentOnlyCommits(repo);
  if (opts.intent) for (const c of commits) if (!onIntentBranches.has(c.sha)) onIntentBranches.set(c.sha, opts.intent);
  const governed = commits.filter((c) => c.note !== null || c.trailer !== null || onIntentBranches.has(c.sha));
  const findings: Finding[] = [];
  const toCheck: { commit: CommitInfo; record: TraceRecord }[] = [];
  /** The records of every governed commit's note that parses. */
  const noted = new Map<string, TraceRecord[]>();
  const validate = lazyValidator();
  for (const c of governed) {
    const intent = c.trailer ?? onIntentBranches.get(c.sha) ?? null;
    if (c.note === null) {
      // "Update branch": a merge that brings only what the base had is no one's work.
      if (c.trailer === null && c.parents.length > 1 && isBaseUpdate(repo.root, c.sha, c.parents, localBaseTips(repo.root))) continue;
      findings.push({ commit: c.sha, intent, code: 'NOTE_MISSING', message: `${short(c.sha)} is governed (${c.trailer ? `Intent-Id: ${c.trailer}` : `on ${BRANCH_PREFIX}${intent}`}) but has no note on ${NOTES_REF}.` });
      continue;
    }
    const checked = checkRecords(c, intent, validate, findings);
    if (checked.parsed) noted.set(c.sha, checked.parsed);
    for (const record of checked.valid) toCheck.push({ commit: c, record });
  }
  const shallow = shallowCommits(repo);
  for (const item of [...toCheck]) {
    if (!shallow.has(item.commit.sha)) continue;
    toCheck.splice(toCheck.indexOf(item), 1);
    findings.push({
      commit: item.commit.sha, intent: item.record.metadata[METADATA_KEY].intent_id, code: 'SHALLOW',
      message: `${short(item.commit.sha)}: its parents are not in this shallow clone, so its diff cannot be checked: deepen the fetch (git fetch --deepen=1) or verify a range that starts after it.`,
    });
  }
  checkContent(repo, toCheck, findings);
  checkRegistryHistory(repo, toCheck, findings);
  const ledger = opts.ledger === false ? null : checkLedger(repo, findings, opts.notes === undefined ? noted : null);
  explainMissing(repo, findings, allNotes.size === 0 && opts.notes === undefined && !opts.eachMissing);
  return { range: revs, commits: commits.length, governed: governed.length, findings, ledger };
}

/**
 * Checks one note against its own commit: it parses, each record in it (several when clones each
 * recorded the commit and the notes merged) is valid Agent Trace 0.1.0 with our metadata, names
 * this commit, has its summary line, and an `Intent-Id:` trailer names the same intent. Pushes
 * findings; returns the records the content checks can go on with, and every parsed record.
 */
export function checkRecords(c: CommitInfo, intent: string | null, validate: Validator, findings: Finding[]): { valid: TraceRecord[]; parsed: TraceRecord[] | null } {
  const note = c.note;
  if (note === null) return { valid: [], parsed: null };
  const parsed = parseNote(note);
  if (typeof parsed === 'string') {
    findings.push({ commit: c.sha, intent, code: 'NOTE_UNPARSABLE', message: `${short(c.sha)}: its note ${parsed}.` });
    return { valid: [], parsed: null };
  }
  const valid: TraceRecord[] = [];
  for (const record of parsed.records) {
    const meta = record.metadata?.[METADATA_KEY];
    const id = meta?.intent_id ?? intent;
    if (!validate(record)) {
      findings.push({ commit: c.sha, intent: id, code: 'NOTE_INVALID', message: `${short(c.sha)}: its record is not valid Agent Trace 0.1.0: ${validate.errorsText()}.` });
      continue;
    }
    if (!meta || typeof meta.intent_id !== 'string' || !Array.isArray(meta.scope)) {
      findings.push({ commit: c.sha, intent: id, code: 'NOTE_INVALID', message: `${short(c.sha)}: its record has no metadata["${METADATA_KEY}"] with intent_id and scope.` });
      continue;
    }
    if (record.vcs.revision !== c.sha) {
      findings.push({ commit: c.sha, intent: id, code: 'NOTE_MISPLACED', message: `${short(c.sha)}: its note records commit ${record.vcs.revision}, not this one (a note copied or moved from another commit).` });
      continue;
    }
    if (!parsed.summaries.includes(summaryOf(record) ?? '')) {
      findings.push({ commit: c.sha, intent: id, code: 'SUMMARY_MISMATCH', message: `${short(c.sha)}: the note's summary line does not match its record (expected "${summaryOf(record)}").` });
    }
    if (c.trailer && c.trailer !== meta.intent_id) {
      findings.push({ commit: c.sha, intent: id, code: 'NOTE_MISPLACED', message: `${short(c.sha)}: the commit says Intent-Id: ${c.trailer} but its note is for ${meta.intent_id}.` });
    }
    valid.push(record);
  }
  const expected = new Set(parsed.records.map(summaryOf));
  const stray = parsed.summaries.filter((l) => !expected.has(l));
  if (stray.length) {
    findings.push({ commit: c.sha, intent, code: 'SUMMARY_MISMATCH', message: `${short(c.sha)}: the note's line "${stray[0].slice(0, 120)}" is the summary of none of its records.` });
  }
  return { valid, parsed: parsed.records };
}

/** `checkRecords` for callers that need one record: the one every reader uses (trace/note-records), or null. */
export function checkRecord(c: CommitInfo, intent: string | null, validate: Validator, findings: Finding[]): TraceRecord | null {
  const { valid } = checkRecords(c, intent, validate, findings);
  return valid.length ? chooseRecord(valid) : null;
}

/** The summary line of a record, or null when its metadata is too broken to have one. */
function summaryOf(record: TraceRecord): string | null {
  try {
    return summaryLine(record);
  } catch {
    return null;
  }
}

/**
 * `--intent ID` must name an intent of the main worktree's registry: an unknown id would check
 * every commit against a scope that does not exist (hundreds of false findings). A bare
 * repository (a server's hook, where the branch name gives the id) is not checked here.
 */
function assertKnownIntent(repo: Where, id: string): void {
  const file = local(repo, 'active_intents.yaml');
  if (!file || !existsSync(file)) return;
  const known = checkRegistry(readFileSync(file, 'utf8')).intents.map((i) => i.id);
  if (!known.includes(id)) {
    throw new IntentError('UNKNOWN_INTENT', `Unknown intent "${id}" for --intent: it is not in ${file}. Known intents: ${known.join(', ') || 'none'}.`, { intent: id, path: file, known });
  }
}

/** Where verify runs: any worktree, or a bare repository (a server's pre-receive hook). */
export interface Where {
  /** The directory git runs in. */
  root: string;
  /** The main worktree (whose registry and ledger are local facts), or null in a bare repository. */
  mainRoot: string | null;
}

function locate(cwd: string): Where {
  try {
    return { root: cwd, mainRoot: openRepo(cwd).mainRoot };
  } catch (e) {
    if (e instanceof IntentError && e.code === 'BARE_REPOSITORY') return { root: cwd, mainRoot: null };
    throw e;
  }
}

function local(repo: Where, name: string): string | null {
  return repo.mainRoot ? join(repo.mainRoot, '.orchestration', name) : null;
}

/** `.intentignore`: the main worktree's file, or in a bare repository the one at HEAD. */
function ignoreOf(repo: Where): Scope | null {
  const file = local(repo, '.intentignore');
  let text: string | null = null;
  if (file) text = existsSync(file) ? readFileSync(file, 'utf8') : null;
  else {
    const res = gitRaw(['cat-file', 'blob', 'HEAD:.orchestration/.intentignore'], { cwd: repo.root });
    text = res.status === 0 ? res.stdout : null;
  }
  const globs = text ? parseIgnoreFile(text).filter((g) => !g.startsWith('!')) : [];
  return globs.length ? compileScope(globs) : null;
}

/** The commits whose parents a shallow clone cut off (`.git/shallow`). */
function shallowCommits(repo: Where): Set<string> {
  const file = gitRaw(['rev-parse', '--path-format=absolute', '--git-path', 'shallow'], { cwd: repo.root }).stdout.trim();
  try {
    return new Set(readFileSync(file, 'utf8').split('\n').filter(Boolean));
  } catch {
    return new Set();
  }
}

function short(sha: string): string {
  return sha.slice(0, 12);
}

export interface CommitInfo {
  sha: string;
  parents: string[];
  committed: number;
  trailer: string | null;
  note: string | null;
}

/**
 * Every note of a notes ref or notes commit (sha → text), read from its tree: two git processes
 * however many notes. Taking a commit lets a pre-receive hook check the notes being pushed.
 */
export function readNotes(repo: Where, notes: string): Map<string, string> {
  const out = new Map<string, string>();
  const entries = listNotes(repo, notes);
  const blobs = readBlobs(repo.root, entries.map(([, oid]) => oid));
  for (const [sha, oid] of entries) {
    const b = blobs.get(oid);
    if (b) out.set(sha, b.toString('utf8'));
  }
  return out;
}

/** Every note of the ref `notes` as [annotated commit, note blob] (one `git ls-tree`); none without notes. */
export function listNotes(repo: Where, notes: string): [string, string][] {
  const res = gitRaw(['ls-tree', '-r', '-z', '--full-tree', `${notes}^{commit}`], { cwd: repo.root });
  if (res.status !== 0) return []; // no notes yet
  const entries: [string, string][] = [];
  for (const rec of res.stdout.split('\0')) {
    const m = /^\d+ blob ([0-9a-f]+)\t(.+)$/.exec(rec);
    if (m) entries.push([m[2].replace(/\//g, ''), m[1]]);
  }
  return entries;
}

/**
 * Leaves out the records of commits no ref reaches (reset away, not fetched): a line is credited
 * the same way in the author's clone, after gc, and in a teammate's fresh clone. Returns the
 * committer times of those kept (three git processes in all).
 */
export function reachedCommitTimes<T>(cwd: string, records: Map<string, T>): Map<string, number> {
  const keep = reachableCommits(cwd, [...records.keys()]);
  const kept = new Set(keep);
  for (const sha of [...records.keys()]) if (!kept.has(sha)) records.delete(sha);
  return timesOf(cwd, keep);
}

/** Committer times (unix seconds) of many commits: one git process. Unknown commits are left out. */
export function commitTimes(cwd: string, shas: string[]): Map<string, number> {
  // Only the commits this clone has: git log stops at the first it lacks (a note of a commit reset
  // away and gc'ed, or fetched from a clone that had it), and would give no time at all.
  return timesOf(cwd, existingCommits(cwd, shas));
}

/** The committer times of `present`, commits the clone has (one `git log --no-walk`). */
function timesOf(cwd: string, present: readonly string[]): Map<string, number> {
  const out = new Map<string, number>();
  if (!present.length) return out;
  const res = gitRaw(['log', '--no-walk=unsorted', '--stdin', '--no-notes', '--format=%H %ct'], { cwd, input: present.join('\n') + '\n' });
  for (const l of res.stdout.split('\n')) {
    const [sha, t] = l.split(' ');
    if (sha && t) out.set(sha, Number(t));
  }
  return out;
}

/** Every commit of the range with its parents, date and Intent-Id trailer: one git process. */
function listCommits(repo: Where, revs: string[], notes: Map<string, string>): CommitInfo[] {
  const res = gitRaw(
    ['log', '--no-color', '--no-notes', `--format=${SEP}%H${FS}%P${FS}%ct${FS}%(trailers:key=Intent-Id,valueonly,separator=%x2C)`, ...revs, '--'],
    { cwd: repo.root },
  );
  if (res.status !== 0) {
    // A repository without commits has nothing to verify (HEAD is unborn): not a usage error.
    if (revs[0] === 'HEAD' && revs.length <= 2 && (revs.length === 1 || revs[1] === '--branches=intent/*') && gitRaw(['rev-parse', '--verify', '--quiet', 'HEAD'], { cwd: repo.root }).status !== 0 &&
      gitRaw(['rev-list', '-n', '1', '--all'], { cwd: repo.root }).stdout.trim() === '') return [];
    throw new IntentError('USAGE', `cannot list the commits of ${revs.join(' ')}: ${res.stderr.trim()}`, { range: revs });
  }
  const out: CommitInfo[] = [];
  for (const chunk of res.stdout.split(SEP)) {
    if (!chunk) continue;
    const [sha, parents, ct, trailer] = chunk.split(FS);
    out.push({
      sha,
      parents: parents ? parents.split(' ') : [],
      committed: Number(ct),
      trailer: trailer.trim().split(',')[0]?.trim() || null,
      note: notes.get(sha) ?? null,
    });
  }
  return out;
}

/**
 * Commits only reachable from `intent/<ID>` branches (local or remote-tracking), not from any
 * other branch: work under an intent that has not been merged yet. Maps sha → intent id.
 */
function intentOnlyCommits(repo: Where): Map<string, string> {
  const refs = git(['for-each-ref', '--format=%(refname)', 'refs/heads', 'refs/remotes'], { cwd: repo.root }).split('\n').filter(Boolean);
  const isIntent = (r: string) => /^refs\/(heads|remotes\/[^/]+)\/intent\//.test(r);
  const intentRefs = refs.filter(isIntent);
  const others = refs.filter((r) => !isIntent(r) && !r.endsWith('/HEAD'));
  const out = new Map<string, string>();
  for (const ref of intentRefs) {
    const id = ref.replace(/^refs\/(heads|remotes\/[^/]+)\/intent\//, '');
    const shas = git(['rev-list', ref, '--not', ...others, '--'], { cwd: repo.root }).split('\n').filter(Boolean);
    for (const s of shas) if (!out.has(s)) out.set(s, id);
  }
  return out;
}

/** Readers of notes import it from here too. */
export { parseNote } from './note-records.js';

export interface Validator {
  (record: unknown): boolean;
  errorsText(): string;
}

/** The build's compiled Agent Trace schema (ajv's standalone code, scripts/bundle.mjs). */
export const COMPILED_VALIDATOR = join(PKG_ROOT, 'dist', 'bin', 'trace-validator.cjs');

/**
 * The Agent Trace schema validator, loaded only when verify runs: the one the build compiled, or
 * (from the sources, before a build) ajv compiling the schema, which costs a process ~250 ms.
 */
export function lazyValidator(): Validator {
  const require = createRequire(import.meta.url);
  type Compiled = ((r: unknown) => boolean) & { errors?: { instancePath: string; message?: string }[] | null };
  let fn: Compiled;
  if (existsSync(COMPILED_VALIDATOR)) fn = require(COMPILED_VALIDATOR) as Compiled;
  else {
    const Ajv2020 = require('ajv/dist/2020.js');
    const addFormats = require('ajv-formats');
    const ajv = new (Ajv2020.default ?? Ajv2020)({ strict: false, allErrors: false });
    (addFormats.default ?? addFormats)(ajv);
    fn = ajv.compile(JSON.parse(readFileSync(join(PKG_ROOT, 'schemas', 'agent-trace', 'trace-record.schema.json'), 'utf8')));
  }
  const v = ((r: unknown) => fn(r)) as Validator;
  // ajv's errorsText, which the standalone code does not carry.
  v.errorsText = () => (fn.errors?.length ? fn.errors.map((e) => `data${e.instancePath} ${e.message}`).join(', ') : 'No errors');
  return v;
}

/** Who decides a content check's scope and exemptions (the authority passes its base ref's). */
export interface ContentPolicy {
  /** `.intentignore` (default: the main worktree's, or HEAD's in a bare repository). */
  ignore?: Scope | null;
  /**
   * The base's tips (default: `main` and every remote's `main`): a merge whose other parents they
   * reach takes the paths it brings from the base as the base's (lib/git/update-merge.ts).
   */
  baseTips?: string[];
  /** The largest changed blob a commit may have and still be checked (default MAX_BLOB_BYTES). */
  maxBlobBytes?: number;
  /** The scope in force for a commit (default: the scope its note recorded); null: none checked. */
  scopeOf?: (record: TraceRecord, commit: CommitInfo) => { id: string; globs: readonly string[]; scope: Scope; where: string } | null;
}

/**
 * The largest blob a content check reads (one side of one changed file), unless the policy says
 * otherwise: 64 MiB. Checking a text file holds about 4 times its size (its patch text, its bytes,
 * its line starts): a 64 MiB file peaks the gate at about 320 MB (bench/gate-memory.mjs,
 * BENCHMARKS.md).
 */
export const MAX_BLOB_BYTES = 64 * 1024 * 1024;
/** What one batch of commits may hold of blobs at once (a batch has at least one commit, at most twice the limit). */
const BATCH_BYTES = 64 * 1024 * 1024;

/**
 * Ranges and hashes against the committed bytes, and paths against the scope in force. The
 * commits are read in batches of bounded bytes (their changed blobs, both sides, from one `git
 * diff-tree --raw` and one `cat-file --batch-check`), so the memory it holds follows the largest
 * batch, not the history; a commit with a changed blob above `maxBlobBytes` is not read at all
 * (`BLOB_TOO_LARGE`), so no pack can make it hold more.
 */
export function checkContent(repo: Where, items: { commit: CommitInfo; record: TraceRecord }[], findings: Finding[], policy: ContentPolicy = {}): void {
  if (!items.length) return;
  const limit = policy.maxBlobBytes ?? MAX_BLOB_BYTES;
  const sizes = changedBlobSizes(repo.root, [...new Set(items.map((i) => i.commit.sha))], items);
  let batch: typeof items = [];
  let bytes = 0;
  const flush = () => {
    if (batch.length) checkContentBatch(repo, batch, findings, policy);
    batch = [];
    bytes = 0;
  };
  for (const item of items) {
    const s = sizes.get(item.commit.sha) ?? { total: 0, largest: 0, path: '' };
    // Both sides of every changed file are read: a commit may hold twice the limit in all.
    if (s.largest > limit || s.total > 2 * limit) {
      findings.push({
        commit: item.commit.sha, intent: item.record.metadata[METADATA_KEY].intent_id, path: s.path, code: 'BLOB_TOO_LARGE',
        message: s.largest > limit
          ? `${short(item.commit.sha)} ${s.path}: a changed file of ${mib(s.largest)}, above the ${mib(limit)} the check reads; its record cannot be checked.`
          : `${short(item.commit.sha)}: its changed files hold ${mib(s.total)} (both sides; the largest ${s.path}), above the ${mib(2 * limit)} the check reads of one commit; its record cannot be checked.`,
      });
      continue;
    }
    if (bytes + s.total > Math.max(BATCH_BYTES, 2 * limit)) flush();
    batch.push(item);
    bytes += s.total;
  }
  flush();
}

function mib(n: number): string {
  if (n < 1024) return `${n} bytes`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(n < 10 * 1024 * 1024 ? 1 : 0)} MiB`;
}

/** Per commit: the bytes of its changed blobs (both sides, against its first parent), and its largest one. */
function changedBlobSizes(cwd: string, shas: string[], items: { commit: CommitInfo }[]): Map<string, { total: number; largest: number; path: string }> {
  const parentOf = new Map(items.map((i) => [i.commit.sha, i.commit.parents[0] ?? null]));
  const input = shas.map((s) => (parentOf.get(s) ? `${s} ${parentOf.get(s)}` : s)).join('\n') + '\n';
  const raw = gitRaw(['diff-tree', '--stdin', '--root', '-r', '-z', '--no-renames', '--no-abbrev'], { cwd, input });
  const perCommit = new Map<string, { oids: [string, string][] }>();
  let current = '';
  const t = raw.stdout.split('\0');
  for (let i = 0; i < t.length; i++) {
    const m = /^:\d+ \d+ ([0-9a-f]+) ([0-9a-f]+) [A-Z]/.exec(t[i]);
    if (!m) {
      const h = /^([0-9a-f]{40,64})/.exec(t[i].trim());
      if (h) {
        current = h[1];
        if (!perCommit.has(current)) perCommit.set(current, { oids: [] });
      }
      continue;
    }
    const path = t[++i] ?? '';
    perCommit.get(current)?.oids.push([m[1], path], [m[2], path]);
  }
  const all = [...new Set([...perCommit.values()].flatMap((c) => c.oids.map(([o]) => o)).filter((o) => !/^0+$/.test(o)))];
  const size = new Map<string, number>();
  if (all.length) {
    const out = gitRaw(['cat-file', '--batch-check=%(objectname) %(objectsize)'], { cwd, input: all.join('\n') + '\n' }).stdout;
    for (const line of out.split('\n')) {
      const [oid, n] = line.split(' ');
      if (oid && /^\d+$/.test(n ?? '')) size.set(oid, Number(n));
    }
  }
  const result = new Map<string, { total: number; largest: number; path: string }>();
  for (const [sha, c] of perCommit) {
    let total = 0;
    let largest = 0;
    let path = '';
    for (const [oid, p] of c.oids) {
      const n = size.get(oid) ?? 0;
      total += n;
      if (n > largest) [largest, path] = [n, p];
    }
    result.set(sha, { total, largest, path });
  }
  return result;
}

/** checkContent for one batch: its diffs and blobs read at once. */
function checkContentBatch(repo: Where, items: { commit: CommitInfo; record: TraceRecord }[], findings: Finding[], policy: ContentPolicy): void {
  const diffs = diffCommits(repo.root, items.map((i) => ({ sha: i.commit.sha, parent: i.commit.parents[0] ?? null })));
  const blobs = readBlobs(repo.root, [...diffs.values()].flat().map((c) => c.newOid));
  const oldBlobs = readBlobs(repo.root, [...diffs.values()].flat().map((c) => c.oldOid));
  let ignore: Scope | null = null;
  if (policy.ignore !== undefined) ignore = policy.ignore;
  else {
    try {
      ignore = ignoreOf(repo);
    } catch { /* an unusable .intentignore exempts nothing */ }
  }
  for (const { commit, record } of items) {
    const meta = record.metadata[METADATA_KEY];
    const id = meta.intent_id;
    const changes = diffs.get(commit.sha) ?? [];
    const at = (f: Omit<Finding, 'commit' | 'intent'>) => findings.push({ commit: commit.sha, intent: id, ...f });
    const byPath = new Map<string, FileChange>(changes.map((c) => [c.path, c]));
    const notePaths = new Set(record.files.map((f) => f.path));
    const missing = changes.filter((c) => !notePaths.has(c.path)).map((c) => c.path);
    const extra = [...notePaths].filter((p) => !byPath.has(p));
    if (missing.length || extra.length) {
      at({ code: 'FILES_MISMATCH', message: `${short(commit.sha)}: the note's files do not match the commit (${[
        missing.length ? `changed but not in the note: ${missing.join(', ')}` : '',
        extra.length ? `in the note but not changed: ${extra.join(', ')}` : ''].filter(Boolean).join('; ')}).` });
    }
    for (const file of record.files) {
      const change = byPath.get(file.path);
      if (!change) continue;
      const content = blobs.get(change.newOid);
      // Binary and submodule are decided from the commit itself (the note's own flags are not trusted).
      const submodule = change.newMode === '160000' || change.oldMode === '160000';
      const binary = !submodule && (isBinary(content) || isBinary(oldBlobs.get(change.oldOid)));
      const starts = content ? lineStarts(content) : [];
      // One byte per line of the committed file: added (1), recorded (2); a bitmap, not sets of numbers.
      const marks = new Uint8Array(starts.length + 2);
      if (content && change.newMode !== '000000' && !binary && !submodule) {
        for (const h of change.hunks) for (let l = h.newStart; l < h.newStart + h.newCount && l < marks.length; l++) marks[l] |= 1;
      }
      for (const conv of file.conversations) {
        for (const r of conv.ranges) {
          if (!content || r.end_line > starts.length) {
            at({ path: file.path, code: 'RANGE_MISMATCH', message: `${short(commit.sha)} ${file.path}:${r.start_line}-${r.end_line}: the committed file has ${starts.length} lines.` });
            continue;
          }
          for (let l = Math.max(r.start_line, 0); l <= r.end_line; l++) marks[l] |= 2;
          const actual = hashLines(content, starts, r.start_line, r.end_line);
          if (actual !== r.content_hash) {
            at({ path: file.path, code: 'HASH_MISMATCH', message: `${short(commit.sha)} ${file.path}:${r.start_line}-${r.end_line}: the note says ${r.content_hash}, the committed lines hash to ${actual}.` });
          }
        }
      }
      const uncovered = spans(marks, 1);
      const stray = spans(marks, 2);
      if (uncovered || stray) {
        at({ path: file.path, code: 'RANGE_MISMATCH', message: `${short(commit.sha)} ${file.path}: the ranges do not cover exactly the added lines (${[
          uncovered ? `added but not in a range: ${uncovered}` : '',
          stray ? `in a range but not added: ${stray}` : ''].filter(Boolean).join('; ')}).` });
      }
    }
    // A merge of the base into the branch: what it takes from the base is not the intent's work.
    const fromBase = commit.parents.length > 1
      ? basePathsOfMerge(repo.root, commit.parents, policy.baseTips ?? localBaseTips(repo.root), () => resultOfChanges(changes)) : new Set<string>();
    const touched = touchedPaths(changes).filter((p) => !fromBase.has(p));
    const globs = meta.scope.filter((g) => typeof g === 'string');
    const inForce = policy.scopeOf ? policy.scopeOf(record, commit) : { id, globs, scope: compileScope(globs), where: 'the note' };
    if (!inForce) continue;
    const bad = outOfScope(touched, inForce.scope, ignore, true);
    for (const p of bad) {
      at({ path: p, code: 'SCOPE_VIOLATION', message: `${short(commit.sha)}: Scope Violation: ${inForce.id} is not authorized to edit ${p} (scope in force${inForce.where === 'the note' ? '' : ` on ${inForce.where}`}: ${inForce.globs.join(', ') || 'none'}).` });
    }
  }
}

/** The runs of lines whose mark is exactly `mark` (1: added only, 2: recorded only), as "3, 5-9, …" (the first ten); '' for none. */
function spans(marks: Uint8Array, mark: number): string {
  const out: string[] = [];
  let more = false;
  for (let l = 0; l < marks.length; l++) {
    if (marks[l] !== mark) continue;
    let j = l;
    while (j + 1 < marks.length && marks[j + 1] === mark) j++;
    if (out.length === 10) {
      more = true;
      break;
    }
    out.push(l === j ? `${l}` : `${l}-${j}`);
    l = j;
  }
  return out.join(', ') + (more ? ', …' : '');
}

/**
 * The scope a note recorded must be one the registry gave the intent no later than the commit:
 * the exact registry bytes the note names (committed anywhere, or the main worktree's file), or
 * any registry version committed at or before the commit. Widening the registry afterwards
 * therefore cannot launder an old violation, and a note that claims a wider scope is caught.
 */
function checkRegistryHistory(repo: Where, items: { commit: CommitInfo; record: TraceRecord }[], findings: Finding[]): void {
  if (!items.length) return;
  const file = '.orchestration/active_intents.yaml';
  const log = gitRaw(['log', '--all', '--no-color', `--format=${SEP}%ct`, '--raw', '--no-abbrev', '--no-renames', '--', file], { cwd: repo.root });
  const versions: { time: number; oid: string }[] = [];
  for (const chunk of log.stdout.split(SEP)) {
    const [ct, ...lines] = chunk.split('\n');
    for (const l of lines) {
      const m = /^:\d+ \d+ [0-9a-f]+ ([0-9a-f]+) [AMT]/.exec(l);
      if (m) versions.push({ time: Number(ct), oid: m[1] });
    }
  }
  const blobs = readBlobs(repo.root, versions.map((v) => v.oid));
  const parsed = new Map<string, { sha256: string; scopes: Map<string, string> }>();
  const add = (key: string, bytes: Buffer) => {
    const scopes = new Map<string, string>();
    for (const i of checkRegistry(bytes.toString('utf8')).intents) scopes.set(i.id, JSON.stringify(i.owned_scope));
    parsed.set(key, { sha256: sha256Hex(bytes), scopes });
  };
  for (const [oid, bytes] of blobs) add(oid, bytes);
  const current = local(repo, 'active_intents.yaml');
  if (current && existsSync(current)) add('worktree', readFileSync(current));
  for (const { commit, record } of items) {
    const meta = record.metadata[METADATA_KEY];
    const scope = JSON.stringify(meta.scope);
    const exact = [...parsed.values()].find((p) => p.sha256 === meta.registry?.sha256);
    if (exact && exact.scopes.get(meta.intent_id) === scope) continue;
    const earlier = versions.some((v) => v.time <= commit.committed && parsed.get(v.oid)?.scopes.get(meta.intent_id) === scope);
    if (earlier) continue;
    findings.push({
      commit: commit.sha,
      intent: meta.intent_id,
      code: 'SCOPE_NOT_IN_REGISTRY',
      message: `${short(commit.sha)}: the note's scope for ${meta.intent_id} (${meta.scope.join(', ') || 'none'}) is not one the registry gave it at the time` +
        `${exact ? ' (the registry it names has a different scope)' : ' (the registry it names is not in the history)'}. ` +
        `To recover: commit .orchestration/active_intents.yaml on the base branch (git add .orchestration/active_intents.yaml && git commit) ` +
        `while it still gives ${meta.intent_id} that scope, then run intent verify again; if it no longer does, a human approves the scope, commits it, ` +
        `and the note is re-recorded (git notes --ref=intents remove ${short(commit.sha)}; intent repair).`,
    });
  }
}

/**
 * Commits without a note, said plainly. A clone has no notes until they are fetched: when the
 * clone has none at all, one NOTES_ABSENT finding replaces a NOTE_MISSING per commit (which reads
 * like tampering); either way the message says where the notes are when a remote-tracking notes
 * ref (`git fetch` with the refspec `intent init` adds) holds them.
 */
function explainMissing(repo: Where, findings: Finding[], none: boolean): void {
  const missing = findings.filter((f) => f.code === 'NOTE_MISSING');
  if (!missing.length) return;
  const tracking = gitRaw(['for-each-ref', '--format=%(refname)', 'refs/notes/remotes/'], { cwd: repo.root }).stdout
    .split('\n').filter((r) => r.endsWith('/intents'));
  const remoteNotes = tracking.map((ref) => ({ ref, remote: ref.split('/')[3], notes: readNotes(repo, ref) }));
  const where = (sha: string) => remoteNotes.find((t) => t.notes.has(sha));
  if (none) {
    const fetched = remoteNotes.filter((t) => t.notes.size > 0);
    const hint = fetched.length
      ? `the notes of ${fetched.map((t) => t.remote).join(', ')} were fetched into ${fetched.map((t) => t.ref).join(', ')}: take them with \`intent sync ${fetched[0].remote}\`, then verify again`
      : 'a clone does not fetch notes by itself: run `intent init` (once; it adds a notes fetch refspec) and `intent sync`, or `git fetch origin refs/notes/intents:refs/notes/intents`, then verify again';
    const kept = findings.filter((f) => f.code !== 'NOTE_MISSING');
    findings.length = 0;
    findings.push({
      commit: null, intent: null, code: 'NOTES_ABSENT',
      message: `this clone has no notes on ${NOTES_REF}, so none of the ${missing.length} governed commit${missing.length === 1 ? '' : 's'} can be checked: ${hint}.`,
    }, ...kept);
    return;
  }
  for (const f of missing) {
    const t = where(f.commit!);
    if (t) f.message += ` ${t.remote}'s notes (${t.ref}) have one: run \`intent sync ${t.remote}\`.`;
  }
}

/**
 * The local ledger's hash chain (only where the main worktree has a ledger), and, given the
 * records of the verified commits' notes, that ledger and notes agree: each note's record is in
 * the ledger with the same content, and the ledger's latest record of each commit is in its note.
 */
function checkLedger(repo: Where, findings: Finding[], noted: Map<string, TraceRecord[]> | null): { path: string; lines: number } | null {
  const path = local(repo, 'agent_trace.jsonl');
  if (!path || !existsSync(path)) return null;
  const text = readFileSync(path, 'utf8');
  const lines = text.split('\n');
  const torn = lines[lines.length - 1] !== '';
  if (!torn) lines.pop();
  let prev: string | null = null;
  const byCommit = new Map<string, { n: number; rec: TraceRecord }[]>();
  lines.forEach((line, i) => {
    const n = i + 1;
    let rec: TraceRecord | null = null;
    try {
      rec = JSON.parse(line) as TraceRecord;
    } catch { /* reported below */ }
    const meta = rec?.metadata?.[METADATA_KEY];
    if (!meta) {
      findings.push({ commit: null, intent: null, code: 'LEDGER_BROKEN', message: `${path}:${n}: not a ledger record${torn && n === lines.length ? ' (a torn last line: run intent repair)' : ' (intent repair sets it aside and re-chains the lines after it)'}.` });
    } else if ((meta.prev_line_sha256 ?? null) !== prev) {
      findings.push({ commit: rec!.vcs?.revision ?? null, intent: meta.intent_id, code: 'LEDGER_BROKEN', message: `${path}:${n}: the hash chain is broken: prev_line_sha256 is ${meta.prev_line_sha256}, line ${n - 1} hashes to ${prev} (a line before it was edited, removed or inserted; intent repair re-chains it behind a recorded repair entry).` });
    }
    const sha = meta && typeof rec?.vcs?.revision === 'string' ? rec.vcs.revision : null;
    if (sha && noted?.has(sha)) byCommit.set(sha, [...(byCommit.get(sha) ?? []), { n, rec: rec! }]);
    prev = sha256Hex(line);
  });
  if (noted) crossCheck(path, noted, byCommit, findings);
  return { path, lines: lines.length };
}

/** A record as its note holds it: the ledger line without its chain link. */
function unchained(rec: TraceRecord): string {
  const copy = structuredClone(rec);
  delete copy.metadata[METADATA_KEY].prev_line_sha256;
  return JSON.stringify(copy);
}

/** Ledger against notes, for the verified commits whose note parses. */
function crossCheck(path: string, noted: Map<string, TraceRecord[]>, byCommit: Map<string, { n: number; rec: TraceRecord }[]>, findings: Finding[]): void {
  for (const [sha, records] of noted) {
    const intent = records[0]?.metadata?.[METADATA_KEY]?.intent_id ?? null;
    const lines = byCommit.get(sha) ?? [];
    const ids = new Set(records.map((r) => r.id));
    const matched = lines.filter((l) => ids.has(l.rec.id));
    if (!lines.length) {
      findings.push({
        commit: sha, intent, code: 'LEDGER_MISMATCH',
        message: `${short(sha)}: its note's record is not in the ledger ${path} (lost between the note and the ledger line, or a note merged from another clone without intent sync): intent repair appends it.`,
      });
      continue;
    }
    for (const l of matched) {
      const record = records.find((r) => r.id === l.rec.id)!;
      if (unchained(l.rec) !== JSON.stringify(record)) {
        findings.push({ commit: sha, intent, code: 'LEDGER_MISMATCH', message: `${short(sha)}: its note's record ${record.id} and ${path}:${l.n} differ (one of them was changed after it was recorded).` });
      }
    }
    const last = lines[lines.length - 1];
    if (!ids.has(last.rec.id)) {
      findings.push({
        commit: sha, intent, code: 'LEDGER_MISMATCH',
        message: `${short(sha)}: the ledger's latest record of it (${path}:${last.n}, ${last.rec.id}) is not in its note (the note was replaced after it was recorded).`,
      });
    }
  }
}
