/**
 * `intent carry`: gives commits a host made (a squash, a rebase's rewritten commits, a merge
 * commit, GitLab's squash inside a merge commit) trace records derived from the records of the
 * commits they replace. Nothing is copied: each new commit's record is built from its own diff,
 * like post-commit builds one, and its lines are credited by content (lib/trace/carry-match.ts):
 * a line found in a source's model range keeps that model, every other line is human. The
 * sources may be gone (branch deleted, `git gc`): their notes' content hashes are enough, and
 * where the source commits still exist their bytes refine the match line by line.
 *
 * Refused, before anything is written, when the new commits are not what the sources explain:
 * a path no source changed, or (where the source commits are still here to compare with) added
 * lines none of which a source recorded: the wrong --from.
 * Idempotent: a commit that has a note is left as it is. Sources without notes give no record.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { readBlobs, isBinary } from '../git/blobs.js';
import { existingCommits } from '../git/commits.js';
import { commitDiff, diffCommits } from '../git/diff.js';
import { touchedPaths, type FileChange } from '../git/hunks.js';
import { gitRaw } from '../git/process.js';
import { openRepo, type Repo } from '../git/repo.js';
import { writeNote } from '../git/notes.js';
import { IntentError } from '../core/errors.js';
import { withLock } from '../core/lock.js';
import { METADATA_KEY, NOTES_REF } from '../core/version.js';
import { loadIgnore } from '../intents/ignore.js';
import { compileScope, outOfScope, type Scope } from '../intents/scope.js';
import type { Intent } from '../intents/registry.js';
import { classifyChanges } from '../mutation/classify.js';
import { lineStarts, hashLines } from './hashing.js';
import { Matcher, type Piece, type TargetFile } from './carry-match.js';
import { appendLedger, ledgerLine } from './ledger.js';
import { parseNote } from './note-records.js';
import { buildRecord, noteText, type TraceRecord } from './record.js';
import { readNotes } from './verify.js';

/** How a new commit relates to the commits it replaces. */
export type CarryShape = 'squash' | 'rebase' | 'merge' | 'squash-in-merge';

/** What `carry` did (or would do) for one new commit. */
export interface CarriedCommit {
  commit: string;
  shape: CarryShape;
  /** carried: a record was written; planned: --dry-run; noted: it already had a note; ungoverned: no source has a record. */
  status: 'carried' | 'planned' | 'noted' | 'ungoverned';
  intent: string | null;
  /** Lines the commit adds: found in a source's range, of those credited to a model, the rest (human). */
  lines: { added: number; explained: number; ai: number; unexplained: number };
}

export interface CarryResult {
  commits: CarriedCommit[];
  sources: { commit: string; governed: boolean; present: boolean; intent: string | null }[];
}

/** A commit a new commit replaces, with its record when it has one. */
interface Source {
  sha: string;
  present: boolean;
  record: TraceRecord | null;
}

/** Where carry runs: a clone's worktree, or a bare repository (a server's post-receive). */
interface Where {
  root: string;
  commonDir: string;
  repo: Repo | null;
}

/**
 * Carries the records of the commits `from` names (ranges like `main..intent/INT-001`, commits,
 * or the full ids of commits that are gone but whose notes remain) onto the commits `targets`
 * names. A merge target whose second parent is a commit without a note that is not a source
 * (GitLab's squash commit inside its merge commit) has that commit carried first.
 */
export function carry(cwd: string, opts: { targets: string[]; from: string[]; prHead?: string; dryRun?: boolean; now?: Date; sourceNotes?: string[] }): CarryResult {
  if (!opts.targets.length) throw new IntentError('USAGE', 'name the new commits to carry records onto, e.g. intent carry main --from <old-base>..<branch-tip>.', {});
  const where = locate(cwd);
  if (opts.prHead !== undefined) {
    if (opts.from.length || opts.targets.length !== 1) throw new IntentError('USAGE', '--pr-head takes one commit (what the merge button made: the merge_commit_sha) and no --from: the sources are the pull request\'s commits.', {});
    const found = hostMerge(where, commitOf(where, opts.targets[0], 'the merged commit'), commitOf(where, opts.prHead, 'the pull request\'s head'));
    opts = { ...opts, targets: found.targets, from: found.from };
  }
  if (!opts.from.length) throw new IntentError('USAGE', 'name the commits the new ones replace with --from, e.g. --from main~1..intent/INT-001 (or their ids when the branch is gone).', {});
  const notes = notesWithFallback(where, NOTES_REF, opts.sourceNotes ?? []);
  const sources = resolveSources(where, opts.from, notes);
  const sourceSet = new Set(sources.map((s) => s.sha));
  const targets = expandTargets(where, opts.targets.map((t) => commitOf(where, t, 'the commit to carry onto')), sourceSet, notes);
  for (const t of targets) {
    if (sourceSet.has(t)) throw new IntentError('USAGE', `${short(t)} is both a new commit and one of --from: the sources are the commits it replaces.`, { commit: t });
  }
  const plans = plan(where, targets, sources, notes, { now: opts.now });
  const out: CarriedCommit[] = plans.map((p) => p.summary);
  if (!opts.dryRun) {
    const toWrite = plans.filter((p) => p.record);
    if (toWrite.length) writeRecords(where, toWrite.map((p) => p.record!), out);
  } else for (const c of out) if (c.status === 'carried') c.status = 'planned';
  return {
    commits: out,
    sources: sources.map((s) => ({ commit: s.sha, governed: !!s.record, present: s.present, intent: s.record?.metadata[METADATA_KEY].intent_id ?? null })),
  };
}

/**
 * What an authority can check of a carried record (its `metadata["dev.intent"].carried`): its
 * sources have notes on `notesRev` naming the same intent, the commit touches no path they did
 * not, and every line it credits to a model is one this module, run here on the same sources,
 * credits to that model. (Ranges and hashes against the commit are `checkContent`'s.) Returns
 * the problems, none when the record holds.
 */
export function checkCarried(cwd: string, sha: string, record: TraceRecord, notesRev: string = NOTES_REF, also: string[] = []): string[] {
  const carried = record.metadata?.[METADATA_KEY]?.carried;
  if (!carried || !Array.isArray(carried.from) || !carried.from.length) return [`${short(sha)}: its record names no sources (metadata.carried.from).`];
  const where = locate(cwd);
  const notes = notesWithFallback(where, notesRev, also);
  let sources: Source[];
  try {
    sources = resolveSources(where, carried.from.filter((s) => /^[0-9a-f]{40,64}$/.test(s)), notes);
  } catch (e) {
    return [`${short(sha)}: ${(e as Error).message}`];
  }
  let again: TraceRecord | null;
  try {
    const shape = carried.shape === 'merge' || carried.shape === 'squash-in-merge' ? carried.shape : 'squash';
    [{ record: again }] = plan(where, [sha], sources, new Map(), { shape, check: true });
  } catch (e) {
    return [`${short(sha)}: ${(e as Error).message}`];
  }
  if (!again) return [`${short(sha)}: none of its sources has a record on ${notesRev}.`];
  const problems: string[] = [];
  const want = again.metadata[METADATA_KEY].intent_id;
  if (record.metadata[METADATA_KEY].intent_id !== want) problems.push(`${short(sha)}: its record names ${record.metadata[METADATA_KEY].intent_id}, its sources ${want}.`);
  const modelOf = (r: TraceRecord) => {
    const m = new Map<string, string>();
    for (const f of r.files) for (const c of f.conversations) {
      if (c.contributor.type !== 'ai') continue;
      for (const x of c.ranges) for (let l = x.start_line; l <= x.end_line; l++) m.set(`${f.path}:${l}`, c.contributor.model_id ?? '');
    }
    return m;
  };
  const allowed = modelOf(again);
  for (const [line, model] of modelOf(record)) {
    if (allowed.get(line) !== model) {
      problems.push(`${short(sha)} ${line}: credited to ${model}, but no source's range of that model has these bytes.`);
      break;
    }
  }
  return problems;
}

/**
 * What a host's merge button made of a pull request whose head is `head`, given the commit it
 * reports (GitHub's merge_commit_sha, GitLab's merge or squash commit): a merge commit (its own
 * target; a squash commit inside it is found by `expandTargets`), the last of a rebase's commits
 * (the first-parent commits whose patch ids are the pull request's, in order), or a squash.
 * The sources are the pull request's commits: what `head` has that the base before the merge had not.
 */
function hostMerge(where: Where, merged: string, head: string): { targets: string[]; from: string[] } {
  const parents = gitRaw(['rev-parse', `${merged}^@`], { cwd: where.root }).stdout.split('\n').filter(Boolean);
  if (parents.length >= 2) return { targets: [merged], from: [`${parents[0]}..${head}`] };
  const prCommits = gitRaw(['rev-list', '--reverse', '--topo-order', '--no-merges', head, '--not', parents[0] ?? merged, '--'], { cwd: where.root }).stdout.split('\n').filter(Boolean);
  const chain = gitRaw(['rev-list', '--reverse', '--first-parent', '-n', String(Math.max(prCommits.length, 1)), merged, '--'], { cwd: where.root }).stdout.split('\n').filter(Boolean);
  if (prCommits.length > 1 && chain.length === prCommits.length) {
    const ids = patchIds(where, [...chain, ...prCommits]);
    if (chain.every((c, i) => ids.get(c) !== undefined && ids.get(c) === ids.get(prCommits[i]))) {
      const before = gitRaw(['rev-parse', '--verify', '--quiet', `${chain[0]}^1`], { cwd: where.root }).stdout.trim();
      return { targets: chain, from: [before ? `${before}..${head}` : head] };
    }
  }
  return { targets: [merged], from: [`${parents[0] ?? merged}..${head}`] };
}

/** `git patch-id --stable` of each commit (its diff against its first parent). */
function patchIds(where: Where, shas: string[]): Map<string, string> {
  const diffs = gitRaw(['diff-tree', '-p', '--no-color', '--no-ext-diff', '--stdin'], { cwd: where.root, input: shas.join('\n') + '\n' }).stdout;
  const out = new Map<string, string>();
  for (const line of gitRaw(['patch-id', '--stable'], { cwd: where.root, input: diffs }).stdout.split('\n')) {
    const [id, sha] = line.split(' ');
    if (id && sha) out.set(sha, id);
  }
  return out;
}

/** One new commit's outcome and, when it gets one, its record. */
interface Plan {
  summary: CarriedCommit;
  record: TraceRecord | null;
}

function plan(
  where: Where, targets: string[], sources: Source[], notes: Map<string, string>,
  opts: { now?: Date; shape?: CarryShape; check?: boolean },
): Plan[] {
  const governed = sources.filter((s) => s.record);
  const intents = [...new Set(governed.map((s) => s.record!.metadata[METADATA_KEY].intent_id))];
  if (intents.length > 1) {
    throw new IntentError('CARRY_REFUSED', `the sources name ${intents.length} intents (${intents.join(', ')}): a record names one. Carry each intent's commits onto its own new commits (--from with that intent's commits only).`, { intents });
  }
  const diffs = new Map(targets.map((t) => [t, commitDiff(where.root, t)]));
  const blobs = readBlobs(where.root, [...diffs.values()].flatMap((d) => d.changes.flatMap((c) => [c.oldOid, c.newOid])));
  const paths = sourcePaths(where, sources);
  const pieces = governed.length ? sourcePieces(where, governed) : { blocks: [], lines: [] };
  const singles = targets.filter((t) => diffs.get(t)!.parents.length < 2).length;
  const latest = governed[governed.length - 1]?.record ?? null;
  const ignore = where.repo ? safeIgnore(where.repo) : null;
  return targets.map((t): Plan => {
    const diff = diffs.get(t)!;
    const shape: CarryShape = opts.shape ?? (diff.parents.length >= 2
      ? (targets.includes(diff.parents[1]) ? 'squash-in-merge' : 'merge')
      : singles > 1 ? 'rebase' : 'squash');
    const summary: CarriedCommit = { commit: t, shape, status: 'carried', intent: latest ? latest.metadata[METADATA_KEY].intent_id : null, lines: { added: 0, explained: 0, ai: 0, unexplained: 0 } };
    const files = targetFiles(diff.changes, blobs);
    const matcher = new Matcher(files);
    summary.lines = matcher.counts();
    if (!opts.check && notes.has(t)) return { summary: { ...summary, status: 'noted', intent: intentOfNote(notes.get(t)!) }, record: null };
    if (!latest) return { summary: { ...summary, status: 'ungoverned', intent: null }, record: null };
    const touched = touchedPaths(diff.changes);
    const strange = touched.filter((p) => !paths.has(p));
    if (strange.length) {
      throw new IntentError('CARRY_REFUSED', `${short(t)} changes ${strange.slice(0, 5).join(', ')}${strange.length > 5 ? ', …' : ''}, which none of the ${sources.length} source commit${sources.length === 1 ? '' : 's'} changed: it is not a squash, rebase or merge of them. Check --from (the commits the host replaced: the pull request's commits).`, { commit: t, paths: strange });
    }
    // Whole recorded ranges first; then, where the source commits still exist, their lines one by one.
    const placed = matcher.place(pieces.blocks.map((b) => b.piece));
    matcher.place(pieces.lines.filter((l) => !placed[l.block]).map((l) => l.piece));
    summary.lines = matcher.counts();
    // Only where a source's bytes are here: a range known by its hash alone is not found once a
    // line inside it was edited (in the squash, or by a later commit), so zero found proves nothing;
    // nor where a source without a record is here (a rebased commit of a human's ungoverned work
    // explains itself: its lines are human).
    const checkable = governed.some((s) => s.present) && sources.every((s) => s.record || !s.present);
    if (summary.lines.added > 0 && summary.lines.explained === 0 && pieces.blocks.length > 0 && checkable) {
      throw new IntentError('CARRY_REFUSED', `none of the ${summary.lines.added} line${summary.lines.added === 1 ? '' : 's'} ${short(t)} adds is in a range the sources recorded: it does not carry their work. Check --from (the commits the host replaced).`, { commit: t });
    }
    const meta = latest.metadata[METADATA_KEY];
    const scope = Array.isArray(meta.scope) ? meta.scope.filter((g): g is string => typeof g === 'string') : [];
    const intent: Intent = {
      id: meta.intent_id, name: meta.intent_name, status: 'IN_PROGRESS', owned_scope: scope,
      constraints: [], acceptance_criteria: [], related_specs: specsOf(latest),
    };
    let violations: string[] = [];
    try {
      violations = outOfScope(touched, compileScope(scope), ignore, false);
    } catch { /* a scope that does not compile was recorded as it was: the authority judges it */ }
    const record = buildRecord({
      sha: diff.sha, parents: diff.parents, changes: diff.changes, blobs, intent,
      registry: meta.registry, scopeViolations: violations, authorship: matcher.authorship(),
      classes: classifyChanges(diff.changes, blobs), now: opts.now,
    });
    record.metadata[METADATA_KEY].carried = { shape, from: sources.map((s) => s.sha) };
    return { summary, record };
  });
}

/**
 * The notes of `primary`, with those of `also` (e.g. the intent's own refs/notes/intent/<ID>,
 * where a host's merged pull request keeps its records) for commits `primary` has none for.
 */
function notesWithFallback(where: Where, primary: string, also: string[]): Map<string, string> {
  const notes = readNotes({ root: where.root, mainRoot: null }, primary);
  for (const ref of also) for (const [c, text] of readNotes({ root: where.root, mainRoot: null }, ref)) if (!notes.has(c)) notes.set(c, text);
  return notes;
}

/** Writes the notes (and, in a clone with a ledger, its lines) under the notes lock. */
function writeRecords(where: Where, records: TraceRecord[], out: CarriedCommit[]): void {
  const lockDir = join(where.commonDir, 'intent');
  mkdirSync(lockDir, { recursive: true });
  const ledger = where.repo ? join(where.repo.mainRoot, '.orchestration', 'agent_trace.jsonl') : null;
  withLock(join(lockDir, 'record.lock'), () => {
    // Read again under the lock: a note written meanwhile (a second carry) is kept.
    const now = readNotes({ root: where.root, mainRoot: null }, NOTES_REF);
    for (const record of records) {
      const sha = record.vcs.revision;
      if (now.has(sha)) {
        const c = out.find((x) => x.commit === sha);
        if (c) c.status = 'noted';
        continue;
      }
      writeNote(where.root, sha, noteText(record));
      if (ledger && existsSync(dirname(ledger))) {
        appendLedger(ledger, (prev) => ledgerLine(record, prev));
      }
    }
  });
}

function locate(cwd: string): Where {
  try {
    const repo = openRepo(cwd);
    return { root: repo.root, commonDir: repo.commonDir, repo };
  } catch (e) {
    if (!(e instanceof IntentError) || e.code !== 'BARE_REPOSITORY') throw e;
    const dir = gitRaw(['rev-parse', '--path-format=absolute', '--git-common-dir'], { cwd }).stdout.trim();
    return { root: cwd, commonDir: dir, repo: null };
  }
}

function safeIgnore(repo: Repo): Scope | null {
  try {
    return loadIgnore(repo);
  } catch {
    return null;
  }
}

/** `rev` as a full commit id, or a usage error naming `what`. */
function commitOf(where: Where, rev: string, what: string): string {
  const r = gitRaw(['rev-parse', '--verify', '--quiet', '--end-of-options', `${rev}^{commit}`], { cwd: where.root });
  if (r.status !== 0) throw new IntentError('USAGE', `"${rev}" (${what}) is not a commit in ${where.root}.`, { rev });
  return r.stdout.trim();
}

/**
 * The source commits, oldest first: a range (`a..b`) lists its commits; a revision names one; a
 * commit id that is not in the repository any more (branch deleted, gc) names the commit its note
 * is attached to (a unique prefix of a noted commit's id is enough).
 */
function resolveSources(where: Where, from: string[], notes: Map<string, string>): Source[] {
  const shas: string[] = [];
  for (const arg of from) {
    if (arg.startsWith('-')) throw new IntentError('USAGE', `--from "${arg}" is not a revision or range.`, { rev: arg });
    if (arg.includes('..')) {
      const r = gitRaw(['rev-list', '--reverse', '--topo-order', arg, '--'], { cwd: where.root });
      if (r.status !== 0) throw new IntentError('USAGE', `--from ${arg}: ${r.stderr.trim() || 'not a range here'}.`, { rev: arg });
      shas.push(...r.stdout.split('\n').filter(Boolean));
      continue;
    }
    const r = gitRaw(['rev-parse', '--verify', '--quiet', '--end-of-options', `${arg}^{commit}`], { cwd: where.root });
    if (r.status === 0) {
      shas.push(r.stdout.trim());
      continue;
    }
    const lower = arg.toLowerCase();
    const named = /^[0-9a-f]{7,64}$/.test(lower) ? [...notes.keys()].filter((k) => k.startsWith(lower)) : [];
    if (named.length === 1) shas.push(named[0]);
    else if (named.length > 1) throw new IntentError('USAGE', `--from ${arg}: ${named.length} noted commits start with it; give more of the id.`, { rev: arg });
    else throw new IntentError('USAGE', `--from ${arg}: not a commit here, and no note on ${NOTES_REF} is for a commit with that id. Name the replaced commits (a range such as main~1..intent/INT-001, or their full ids).`, { rev: arg });
  }
  const unique = [...new Set(shas)];
  const present = new Set(existingCommits(where.root, unique));
  return unique.map((sha) => ({ sha, present: present.has(sha), record: recordOf(notes.get(sha), sha) }));
}

/** The chosen record of a note, when it names its own commit and an intent. */
function recordOf(note: string | undefined, sha: string): TraceRecord | null {
  if (!note) return null;
  const parsed = parseNote(note);
  if (typeof parsed === 'string') return null;
  const r = parsed.record;
  return r.vcs?.revision === sha && typeof r.metadata?.[METADATA_KEY]?.intent_id === 'string' && Array.isArray(r.files) ? r : null;
}

function intentOfNote(note: string): string | null {
  const parsed = parseNote(note);
  return typeof parsed === 'string' ? null : parsed.record.metadata?.[METADATA_KEY]?.intent_id ?? null;
}

/**
 * The new commits in order: each named one, preceded, for a merge whose second parent brings
 * commits without notes that are not sources (GitLab's squash commit inside its merge commit, a
 * rebased branch merged with a merge commit), by those commits, oldest first.
 */
function expandTargets(where: Where, named: string[], sources: Set<string>, notes: Map<string, string>): string[] {
  const out: string[] = [];
  for (const t of named) {
    const parents = gitRaw(['rev-parse', `${t}^@`], { cwd: where.root }).stdout.split('\n').filter(Boolean);
    if (parents.length >= 2) {
      const inner = gitRaw(['rev-list', '--reverse', '--topo-order', parents[1], '--not', parents[0], '--'], { cwd: where.root }).stdout.split('\n').filter(Boolean);
      for (const c of inner) if (!sources.has(c) && !notes.has(c) && !out.includes(c)) out.push(c);
    }
    if (!out.includes(t)) out.push(t);
  }
  return out;
}

/** Every path the sources changed: their records' paths (and renames' old paths), and the diffs of those still present. */
function sourcePaths(where: Where, sources: Source[]): Set<string> {
  const out = new Set<string>();
  for (const s of sources) {
    if (!s.record) continue;
    for (const f of s.record.files) out.add(f.path);
    for (const m of Object.values(s.record.metadata[METADATA_KEY].files ?? {})) if (m?.old_path) out.add(m.old_path);
  }
  const present = sources.filter((s) => s.present);
  if (present.length) {
    const parents = new Map(present.map((s) => [s.sha, firstParent(where, s.sha)]));
    for (const changes of diffCommits(where.root, present.map((s) => ({ sha: s.sha, parent: parents.get(s.sha) ?? null }))).values()) {
      for (const c of changes) {
        out.add(c.path);
        if (c.oldPath) out.add(c.oldPath);
      }
    }
  }
  return out;
}

function firstParent(where: Where, sha: string): string | null {
  const r = gitRaw(['rev-parse', '--verify', '--quiet', `${sha}^1`], { cwd: where.root });
  return r.status === 0 ? r.stdout.trim() : null;
}

/**
 * The sources' recorded ranges as pieces: each whole range (`blocks`), and, for a source commit
 * that still exists, each of its lines (`lines`, with the index of its block) whose bytes hash as
 * recorded. A range whose bytes do not match its hash there is left out (a note is data).
 */
function sourcePieces(where: Where, governed: Source[]): { blocks: { piece: Piece }[]; lines: { piece: Piece; block: number }[] } {
  const blocks: { piece: Piece }[] = [];
  const lines: { piece: Piece; block: number }[] = [];
  const wanted = governed.filter((s) => s.present).flatMap((s) => s.record!.files.map((f) => `${s.sha}:${f.path}`));
  const bytes = readBlobs(where.root, wanted);
  for (const s of governed) {
    for (const f of s.record!.files) {
      if (typeof f?.path !== 'string' || !Array.isArray(f.conversations)) continue;
      const content = s.present ? bytes.get(`${s.sha}:${f.path}`) : undefined;
      const starts = content ? lineStarts(content) : [];
      for (const c of f.conversations) {
        const author = c?.contributor?.type === 'ai' && typeof c.contributor.model_id === 'string'
          ? { model_id: c.contributor.model_id, ...(typeof c.url === 'string' ? { url: c.url } : {}) } : null;
        for (const r of Array.isArray(c?.ranges) ? c.ranges : []) {
          const length = r.end_line - r.start_line + 1;
          if (!Number.isInteger(length) || length < 1 || typeof r.content_hash !== 'string') continue;
          if (s.present) {
            if (!content || r.end_line > starts.length || hashLines(content, starts, r.start_line, r.end_line) !== r.content_hash) continue;
          }
          const block = blocks.length;
          blocks.push({ piece: { path: f.path, length, hash: r.content_hash, author } });
          if (!content || length === 1) continue;
          for (let l = r.start_line; l <= r.end_line; l++) {
            lines.push({ block, piece: { path: f.path, length: 1, hash: hashLines(content, starts, l, l), author } });
          }
        }
      }
    }
  }
  return { blocks, lines };
}

/** The text files of a diff with the lines it adds (binaries, submodules and deletions add none). */
function targetFiles(changes: FileChange[], blobs: Map<string, Buffer>): TargetFile[] {
  const out: TargetFile[] = [];
  for (const c of changes) {
    const content = blobs.get(c.newOid);
    if (!content || c.newMode === '000000' || c.newMode === '160000' || c.oldMode === '160000') continue;
    if (isBinary(content) || isBinary(blobs.get(c.oldOid))) continue;
    const added: number[] = [];
    for (const h of c.hunks) for (let l = h.newStart; l < h.newStart + h.newCount; l++) added.push(l);
    out.push({ path: c.path, oldPath: c.oldPath, content, starts: lineStarts(content), added });
  }
  return out;
}

/** The specifications a record's conversations relate to (`spec:` urls), for the new record. */
function specsOf(record: TraceRecord): Intent['related_specs'] {
  const related = record.files[0]?.conversations[0]?.related ?? [];
  return related.filter((r) => r.type !== 'intent' && typeof r.url === 'string' && r.url.startsWith('spec:')).map((r) => {
    try {
      return { type: r.type, value: decodeURIComponent(r.url.slice(5)) };
    } catch {
      return { type: r.type, value: r.url.slice(5) };
    }
  });
}

function short(sha: string): string {
  return sha.slice(0, 12);
}

