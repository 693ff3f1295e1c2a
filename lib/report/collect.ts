/**
 * What `intent report` shows, gathered from the history: the governed commits of the range (one
 * `git log`, the notes in one listing and one `cat-file --batch`), `intent verify` on the same
 * range, `intent status` for budgets and breakers, and who wrote each line of every file the
 * notes name, at one revision, by content hash (lib/report/hash-credit.ts: the ranges' bytes in
 * one more `cat-file --batch`, the files' bytes in another).
 */
import { basename } from 'node:path';
import { IntentError } from '../core/errors.js';
import { METADATA_KEY, NOTES_REF, TOOL_VERSION } from '../core/version.js';
import { readBlobs } from '../git/blobs.js';
import { gitRaw } from '../git/process.js';
import { openRepo } from '../git/repo.js';
import { intentStatus, type IntentStatusRow } from '../lifecycle/status.js';
import type { TraceRecord } from '../trace/record.js';
import { parseNote, reachedCommitTimes, readNotes, verify } from '../trace/verify.js';
import { attestationStates } from '../attest/attest.js';
import { creditByHash, type LineCredit, type RecordedRange } from './hash-credit.js';
import { ruleOf } from './rules.js';
import type { LineCounts, ReportCommit, ReportData, ReportFile, ReportFinding, ReportIntent, ReportModel } from './types.js';

const SEP = '\x1e';
const FS = '\x1f';

export interface CollectOptions {
  /** git rev-list arguments (default: HEAD and every local branch). */
  range?: string[];
  /** The revision whose files "lines now" describes (default: HEAD). */
  at?: string;
  /** The notes ref the records are read from (default: refs/notes/intents; a pull request's: refs/notes/intent/<ID>). */
  notes?: string;
  now?: Date;
}

/** Gathers the report of the repository around `cwd`. */
export function collectReport(cwd: string, opts: CollectOptions = {}): ReportData {
  const repo = openRepo(cwd);
  const now = opts.now ?? new Date();
  const headExists = gitRaw(['rev-parse', '--verify', '--quiet', 'HEAD^{commit}'], { cwd: repo.root }).status === 0;
  const range = opts.range?.length ? opts.range : headExists ? ['HEAD', '--branches'] : ['--branches'];
  const notesRef = opts.notes ?? NOTES_REF;
  const checked = verify(cwd, range, { notes: notesRef });

  let status: IntentStatusRow[] = [];
  let registry: string | null = null;
  const warnings: string[] = [];
  try {
    const s = intentStatus(cwd, now);
    status = s.intents;
    registry = s.registry;
  } catch (e) {
    if (!(e instanceof IntentError)) throw e;
    warnings.push(`intent status: ${e.message.split('\n')[0]}`);
  }

  // Every note, parsed once; the records that name their own commit.
  const records = new Map<string, TraceRecord>();
  for (const [sha, text] of readNotes(repo, notesRef)) {
    const parsed = parseNote(text);
    if (typeof parsed === 'string') continue;
    const meta = parsed.record.metadata?.[METADATA_KEY];
    if (parsed.record.vcs?.revision === sha && meta && typeof meta.intent_id === 'string' && Array.isArray(parsed.record.files)) records.set(sha, parsed.record);
  }

  const times = reachedCommitTimes(repo.root, records);
  const log = listRange(repo.root, range);
  const findingsByCommit = new Map<string, number>();
  for (const f of checked.findings) if (f.commit) findingsByCommit.set(f.commit, (findingsByCommit.get(f.commit) ?? 0) + 1);

  const commits: ReportCommit[] = [];
  for (const c of log) {
    const rec = records.get(c.sha);
    if (!rec) continue;
    const meta = rec.metadata[METADATA_KEY];
    const files = rec.files.map((f) => {
      const fm = meta.files?.[f.path];
      const contributors: Record<string, number> = {};
      for (const conv of f.conversations ?? []) {
        const n = (conv.ranges ?? []).reduce((k, r) => k + (r.end_line - r.start_line + 1), 0);
        if (n) contributors[contributorKey(conv.contributor)] = (contributors[contributorKey(conv.contributor)] ?? 0) + n;
      }
      return {
        path: f.path,
        status: String(fm?.status ?? '?'),
        ...(fm?.old_path ? { old_path: fm.old_path } : {}),
        added: num(fm?.added_lines),
        deleted: num(fm?.deleted_lines),
        mutation_class: String(fm?.mutation_class ?? ''),
        contributors,
      };
    });
    const contributors: Record<string, number> = {};
    for (const f of files) for (const [k, n] of Object.entries(f.contributors)) contributors[k] = (contributors[k] ?? 0) + n;
    const agents: Record<string, number> = {};
    for (const f of rec.files) {
      for (const conv of f.conversations ?? []) {
        if (conv.contributor?.type !== 'ai') continue;
        const n = (conv.ranges ?? []).reduce((k, r) => k + (r.end_line - r.start_line + 1), 0);
        const agent = agentOfUrl(conv.url);
        if (n) agents[agent] = (agents[agent] ?? 0) + n;
      }
    }
    commits.push({
      sha: c.sha, date: c.date, author: c.author, subject: c.subject,
      intent: meta.intent_id, intent_name: String(meta.intent_name ?? ''), mutation_class: String(meta.mutation_class ?? ''),
      added: files.reduce((n, f) => n + f.added, 0), deleted: files.reduce((n, f) => n + f.deleted, 0),
      files, contributors, agents, attestation: null,
      scope: Array.isArray(meta.scope) ? meta.scope.map(String) : [],
      scope_violations: Array.isArray(meta.scope_violations) ? meta.scope_violations.map(String) : [],
      findings: findingsByCommit.get(c.sha) ?? 0,
    });
  }

  // Lines now: every path the range's notes name, at `at`, credited by content hash against every note.
  const at = opts.at ?? 'HEAD';
  const atSha = headExists || opts.at ? resolveCommit(repo.root, at) : null;
  const paths = new Set<string>();
  for (const c of commits) for (const f of c.files) paths.add(f.path);
  const tree = atSha ? treeBlobs(repo.root, atSha, paths) : new Map<string, string>();
  const contents = readBlobs(repo.root, [...tree.values()]);
  const files = new Map<string, Buffer>();
  for (const [p, oid] of tree) {
    const b = contents.get(oid);
    if (b && !b.subarray(0, 8000).includes(0)) files.set(p, b);
  }
  const ranges: RecordedRange[] = [];
  for (const [sha, rec] of records) {
    const intent = rec.metadata[METADATA_KEY].intent_id;
    for (const f of rec.files) {
      for (const conv of f.conversations ?? []) {
        for (const r of conv.ranges ?? []) {
          ranges.push({
            commit: sha, time: times.get(sha) ?? 0, intent, path: f.path, start: r.start_line, end: r.end_line, hash: r.content_hash,
            contributor: conv.contributor.type, ...(conv.contributor.model_id ? { model_id: conv.contributor.model_id } : {}),
          });
        }
      }
    }
  }
  // The committed files the ranges are cut from, read a batch at a time as the credit needs them.
  const readable = new Set(ranges.filter((r) => times.has(r.commit) && !/[\n\r]/.test(r.path)).map((r) => `${r.commit}:${r.path}`));
  const credit = creditByHash(ranges, (keys) => readBlobs(repo.root, keys.filter((k) => readable.has(k))), files);

  // Per file.
  const touched = new Map<string, { intents: Set<string>; commits: number; added: number; deleted: number }>();
  for (const c of commits) {
    for (const f of c.files) {
      let t = touched.get(f.path);
      if (!t) touched.set(f.path, (t = { intents: new Set(), commits: 0, added: 0, deleted: 0 }));
      t.intents.add(c.intent);
      t.commits++;
      t.added += f.added;
      t.deleted += f.deleted;
    }
  }
  const intentNow = new Map<string, LineCounts>();
  const modelNow = new Map<string, number>();
  const total = emptyCounts();
  const reportFiles: ReportFile[] = [...touched].map(([path, t]) => {
    const lines = credit.get(path);
    const counts = emptyCounts();
    const byIntent: Record<string, number> = {};
    for (const l of lines ?? []) {
      countLine(counts, l);
      countLine(total, l);
      if (!l) continue;
      byIntent[l.intent] = (byIntent[l.intent] ?? 0) + 1;
      let ic = intentNow.get(l.intent);
      if (!ic) intentNow.set(l.intent, (ic = emptyCounts()));
      countLine(ic, l);
      if (l.contributor === 'ai') modelNow.set(modelOf(l), (modelNow.get(modelOf(l)) ?? 0) + 1);
    }
    return {
      path, exists: tree.has(path), binary: tree.has(path) && !files.has(path), ...counts, by_intent: byIntent,
      intents: [...t.intents].sort(), commits: t.commits, added: t.added, deleted: t.deleted,
    };
  }).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));

  // Per intent: the registry's (with status, budget, breaker), then any only the notes know.
  const findingsByIntent = new Map<string, number>();
  const findings = findingList(checked.findings, commits);
  for (const f of findings) if (f.intent) findingsByIntent.set(f.intent, (findingsByIntent.get(f.intent) ?? 0) + 1);
  const byIntent = new Map<string, ReportCommit[]>();
  for (const c of commits) {
    const list = byIntent.get(c.intent);
    if (list) list.push(c);
    else byIntent.set(c.intent, [c]);
  }
  const intents: ReportIntent[] = status.map((s) => intentRow(s.intent, s.name, byIntent.get(s.intent) ?? [], intentNow.get(s.intent), findingsByIntent.get(s.intent) ?? 0, s));
  for (const [id, list] of byIntent) {
    if (!status.some((s) => s.intent === id)) intents.push(intentRow(id, list[0].intent_name, list, intentNow.get(id), findingsByIntent.get(id) ?? 0, null));
  }

  // Per model.
  const models = new Map<string, ReportModel>();
  const model = (m: string) => {
    let e = models.get(m);
    if (!e) models.set(m, (e = { model: m, lines_now: 0, lines_added: 0, commits: 0, intents: [] }));
    return e;
  };
  for (const c of commits) {
    for (const [k, n] of Object.entries(c.contributors)) {
      if (!k.startsWith('ai:')) continue;
      const e = model(k.slice(3));
      e.lines_added += n;
      e.commits++;
      if (!e.intents.includes(c.intent)) e.intents.push(c.intent);
    }
  }
  for (const [m, n] of modelNow) model(m).lines_now += n;

  warnings.push(...emptyHints(range, commits, reportFiles, opts.at === undefined ? at : null));
  // Attestations (intent attest), when the repository has any: each commit's state.
  let attestations: ReportData['attestations'] = null;
  const att = attestationStates(repo.root, range);
  if (att) {
    attestations = { allowed_signers: att.allowedSigners, ok: 0, bad: 0, none: 0 };
    for (const c of commits) {
      c.attestation = att.states.get(c.sha) ?? 'none';
      if (c.attestation === 'ok') attestations.ok++;
      else if (c.attestation === 'none') attestations.none++;
      else attestations.bad++;
    }
  }
  return {
    format: 1,
    generated_at: now.toISOString(),
    tool: { name: 'intent', version: TOOL_VERSION },
    repository: basename(repo.mainRoot),
    registry: registry ? 'active_intents.yaml' : null,
    range,
    at: { rev: at, sha: atSha },
    verify: { ok: checked.findings.length === 0, commits: checked.commits, governed: checked.governed, findings: checked.findings.length, ledger_lines: checked.ledger?.lines ?? null },
    totals: {
      intents: intents.length, governed_commits: commits.length,
      added: commits.reduce((n, c) => n + c.added, 0), deleted: commits.reduce((n, c) => n + c.deleted, 0),
      files: reportFiles.length, lines_now: total,
    },
    intents,
    commits,
    files: reportFiles,
    models: [...models.values()].sort((a, b) => b.lines_now - a.lines_now || b.lines_added - a.lines_added),
    findings,
    attestations,
    warnings,
  };
}

/**
 * What to do when the page would look empty: no governed commit in the range, or files the notes
 * name that are not at the default `--at` (an intent not merged yet: its lines are on its branch).
 */
function emptyHints(range: string[], commits: ReportCommit[], files: ReportFile[], defaultAt: string | null): string[] {
  if (commits.length === 0) {
    return [`no governed commits in ${range.join(' ')}: commit in an intent's worktree first (intent checkout <ID>), or name other revisions (intent report --all).`];
  }
  const missing = files.filter((f) => !f.exists);
  if (defaultAt === null || missing.length === 0) return [];
  const intent = missing.flatMap((f) => f.intents)[0];
  return [
    `${missing.length} of the ${files.length} files the notes name are not at ${defaultAt} (work not merged yet, or deleted since), so their lines now are not counted` +
      (intent ? `: intent report --at intent/${intent} counts them on ${intent}'s branch.` : '.'),
  ];
}

function intentRow(id: string, name: string, list: ReportCommit[], now: LineCounts | undefined, findings: number, s: IntentStatusRow | null): ReportIntent {
  const dates = list.map((c) => c.date).sort();
  const scope = s?.scope ?? list[0]?.scope ?? [];
  return {
    id, name, status: s?.status ?? null, in_registry: !!s, scope, branch: s?.branch ?? null,
    commits: list.length, added: list.reduce((n, c) => n + c.added, 0), deleted: list.reduce((n, c) => n + c.deleted, 0),
    first: dates[0] ?? null, last: dates[dates.length - 1] ?? null,
    lines_now: now ?? emptyCounts(),
    budget: s?.budget ?? null, budget_left: s?.budget_left ?? null,
    breaker: s ? { open: s.breaker.open, since: s.breaker.since, reason: s.breaker.reason, recent_rejections: s.breaker.recent_rejections } : null,
    status_commits: s?.commits ?? null, status_changed_lines: s?.changed_lines ?? null,
    findings,
  };
}

/** verify's findings, then the scope violations notes recorded that verify did not report (same commit and path). */
function findingList(found: ReturnType<typeof verify>['findings'], commits: ReportCommit[]): ReportFinding[] {
  const out: ReportFinding[] = found.map((f) => {
    const c = f.commit ? commits.find((x) => x.sha === f.commit) : undefined;
    return { code: f.code, commit: f.commit, intent: f.intent, path: f.path ?? null, message: f.message, rule: ruleOf(f.code, c?.scope), source: 'verify' as const };
  });
  const seen = new Set(out.filter((f) => f.code === 'SCOPE_VIOLATION').map((f) => `${f.commit}\0${f.path}`));
  for (const c of commits) {
    for (const p of c.scope_violations) {
      if (seen.has(`${c.sha}\0${p}`)) continue;
      out.push({
        code: 'SCOPE_VIOLATION', commit: c.sha, intent: c.intent, path: p, source: 'note', rule: ruleOf('SCOPE_VIOLATION', c.scope),
        message: `${c.sha.slice(0, 12)}: its note records ${p} outside ${c.intent}'s scope (pre-commit bypassed).`,
      });
    }
  }
  return out;
}

function num(v: unknown): number {
  const n = Number(v);
  return Number.isFinite(n) ? n : 0;
}

function emptyCounts(): LineCounts {
  return { total: 0, ai: 0, human: 0, other: 0, unrecorded: 0, by_model: {} };
}

function modelOf(l: RecordedRange): string {
  return l.model_id ?? 'unknown model';
}

function countLine(c: LineCounts, l: LineCredit): void {
  c.total++;
  if (!l) c.unrecorded++;
  else if (l.contributor === 'ai') {
    c.ai++;
    c.by_model[modelOf(l)] = (c.by_model[modelOf(l)] ?? 0) + 1;
  } else if (l.contributor === 'human') c.human++;
  else c.other++;
}

/** `human`, `ai:<model>`, `mixed` or `unknown`: how a commit's added lines are grouped. */
/** The agent a conversation url names: its scheme (`claude-code://session/…`: claude-code). */
function agentOfUrl(url: string | undefined): string {
  const m = url ? /^([a-z][a-z0-9+.-]*):/i.exec(url) : null;
  return m ? m[1].toLowerCase() : 'unknown agent';
}

function contributorKey(c: { type: string; model_id?: string }): string {
  return c.type === 'ai' ? `ai:${c.model_id ?? 'unknown model'}` : c.type;
}

/** Every commit of the range, newest first: one `git log`. */
function listRange(cwd: string, range: string[]): { sha: string; date: string; author: string; subject: string }[] {
  const res = gitRaw(['log', '--no-color', '--no-notes', `--format=${SEP}%H${FS}%cI${FS}%an${FS}%s`, ...range, '--'], { cwd });
  if (res.status !== 0) return [];
  const out: { sha: string; date: string; author: string; subject: string }[] = [];
  for (const chunk of res.stdout.split(SEP)) {
    if (!chunk) continue;
    const [sha, date, author, subject] = chunk.replace(/\n$/, '').split(FS);
    out.push({ sha, date, author, subject: subject ?? '' });
  }
  return out;
}

function resolveCommit(cwd: string, rev: string): string {
  const res = gitRaw(['rev-parse', '--verify', '--quiet', '--end-of-options', `${rev}^{commit}`], { cwd });
  if (res.status !== 0) throw new IntentError('USAGE', `--at ${rev} is not a commit in ${cwd}; give a branch, tag or sha.`, { at: rev });
  return res.stdout.trim();
}

/** path → blob id at `sha` for the given paths (one `ls-tree` of the whole tree). */
function treeBlobs(cwd: string, sha: string, paths: Set<string>): Map<string, string> {
  const out = new Map<string, string>();
  if (!paths.size) return out;
  const res = gitRaw(['ls-tree', '-r', '-z', '--full-tree', sha], { cwd });
  for (const rec of res.stdout.split('\0')) {
    const m = /^\d+ blob ([0-9a-f]+)\t(.+)$/s.exec(rec);
    if (m && paths.has(m[2])) out.set(m[2], m[1]);
  }
  return out;
}
