/**
 * Our records and git-ai's both ways (Git AI Standard v3.0.0, lib/interop/git-ai-log.ts).
 *
 * Export: each commit of the range with a record on refs/notes/intents gets an authorship log on
 * refs/notes/ai: a model's lines under its session (`s_…::t_…`; the session from the record's
 * conversation url, `claude-code://session/<id>` being git-ai's tool `claude` and conversation
 * `<id>`), a human's under the committer (`h_…`), the intent in the records' custom_attributes
 * (`intent_id`, `intent_name`; also on the committer's human record, so that a commit without a
 * model's line keeps it: an addition git-ai's reader ignores). Lines recorded as `mixed` or
 * `unknown` have no key in the standard and are left out (counted in the result).
 *
 * Import: each commit of the range with a log on refs/notes/ai gets a record on
 * refs/notes/intents-imported, never on refs/notes/intents: it is credited as imported
 * (`metadata["dev.intent"].imported`), not as checked by the gate. Its ranges' content hashes are
 * computed from the commit's files, so they credit lines by content as ours do.
 */
import { randomUUID } from 'node:crypto';
import { IntentError } from '../core/errors.js';
import { IMPORTED_NOTES_REF, METADATA_KEY, NOTES_REF, TOOL_NAME, TOOL_VERSION } from '../core/version.js';
import { readBlobs } from '../git/blobs.js';
import { git, gitRaw } from '../git/process.js';
import { openRepo, type Repo } from '../git/repo.js';
import { hashLines, lineStarts } from '../trace/hashing.js';
import { parseNote } from '../trace/note-records.js';
import type { TraceFile, TraceRecord } from '../trace/record.js';
import { readNotes } from '../trace/verify.js';
import { formatLog, GIT_AI_REF, GIT_AI_SCHEMA, humanKey, parseLog, resolveKey, sessionId, traceId, type AuthorshipLog, type HumanRecord, type SessionRecord } from './git-ai-log.js';

export const IMPORTED_REF = IMPORTED_NOTES_REF;

/** Our agents' conversation url schemes that git-ai names otherwise (its `agent_id.tool`). */
const TOOL_OF_SCHEME: Record<string, string> = { 'claude-code': 'claude', 'gemini-cli': 'gemini', 'copilot-cli': 'copilot' };
const SCHEME_OF_TOOL = Object.fromEntries(Object.entries(TOOL_OF_SCHEME).map(([a, b]) => [b, a]));

interface CommitInfo { sha: string; parents: string[]; committer: string; email: string }

/** The commits of `range` (default HEAD), oldest first, with their parents and committer. */
function commitsOf(repo: Repo, range: string[]): CommitInfo[] {
  const res = gitRaw(['log', '--reverse', '--no-notes', '--format=%H%x1f%P%x1f%cn%x1f%ce', ...(range.length ? range : ['HEAD']), '--'], { cwd: repo.root });
  if (res.status !== 0) throw new IntentError('USAGE', `intent: ${range.join(' ') || 'HEAD'} is not a revision range git knows: ${res.stderr.trim().split('\n')[0]}`, {});
  return res.stdout.split('\n').filter(Boolean).map((l) => {
    const [sha, parents, name, email] = l.split('\x1f');
    return { sha, parents: parents ? parents.split(' ') : [], committer: `${name} <${email}>`, email };
  });
}

/** A conversation url as git-ai's agent id: `<scheme>://<kind>/<id>` is tool `<scheme>` (git-ai's name for it) and conversation `<id>`. */
function agentOf(url: string | undefined, fallback: string): { tool: string; id: string } {
  const m = url ? /^([a-z][a-z0-9+.-]*):\/\/[^/]*\/(.+)$/i.exec(url) : null;
  if (!m) return { tool: TOOL_NAME, id: fallback };
  let id = m[2];
  try { id = decodeURIComponent(id); } catch { /* kept as written */ }
  return { tool: TOOL_OF_SCHEME[m[1]] ?? m[1], id };
}

/** The authorship log of `rec`, the record of commit `c`; and how many lines it could not express. */
export function logOfRecord(rec: TraceRecord, c: CommitInfo): { log: AuthorshipLog; leftOut: number } {
  const meta = rec.metadata[METADATA_KEY];
  const attrs = { intent_id: String(meta.intent_id), intent_name: String(meta.intent_name ?? '') };
  const sessions: Record<string, SessionRecord> = {};
  const human = humanKey(c.committer);
  const humans: Record<string, HumanRecord> = { [human]: { author: c.committer, custom_attributes: attrs } };
  let leftOut = 0;
  const files = rec.files.map((f) => {
    const byKey = new Map<string, [number, number][]>();
    for (const conv of f.conversations ?? []) {
      const runs = (conv.ranges ?? []).map((r) => [r.start_line, r.end_line] as [number, number]);
      if (!runs.length) continue;
      let key: string;
      if (conv.contributor.type === 'ai') {
        const model = conv.contributor.model_id ?? 'unknown';
        let agent = agentOf(conv.url, `${attrs.intent_id}/${model}`);
        let sid = sessionId(agent.tool, agent.id);
        // One session record names one model: a session that used two is two sessions.
        if (sessions[sid] && sessions[sid].agent_id.model !== model) {
          agent = { tool: agent.tool, id: `${agent.id}#${model}` };
          sid = sessionId(agent.tool, agent.id);
        }
        sessions[sid] ??= {
          agent_id: { tool: agent.tool, id: agent.id, model },
          human_author: c.email,
          custom_attributes: { ...attrs, ...(conv.url ? { conversation_url: conv.url } : {}) },
        };
        key = `${sid}::${traceId(c.sha, sid)}`;
      } else if (conv.contributor.type === 'human') {
        key = human;
      } else {
        leftOut += runs.reduce((n, [a, b]) => n + b - a + 1, 0);
        continue;
      }
      byKey.set(key, [...(byKey.get(key) ?? []), ...runs]);
    }
    return { path: f.path, entries: [...byKey].map(([key, lines]) => ({ key, lines })) };
  });
  return { log: { files, metadata: { schema_version: GIT_AI_SCHEMA, base_commit_sha: c.sha, prompts: {}, humans, sessions } }, leftOut };
}

/** What an export or an import did. */
export interface InteropResult {
  ref: string;
  /** Commits given a note. */
  written: string[];
  /** Commits that had a note on the target ref already (kept; --force replaces). */
  kept: string[];
  /** Commits of the range with nothing to convert. */
  skipped: number;
  /** Lines the target format cannot express (export: `mixed`/`unknown` lines), or could not place (import). */
  leftOut: number;
  warnings: string[];
}

/** Writes `notes` (commit → text) on `ref`, keeping notes there unless `force`. */
function writeNotes(repo: Repo, ref: string, notes: Map<string, string>, force: boolean, out: InteropResult): void {
  const existing = new Set(readNotes(repo, ref).keys());
  for (const [sha, text] of notes) {
    if (existing.has(sha) && !force) {
      out.kept.push(sha);
      continue;
    }
    git(['notes', `--ref=${ref}`, 'add', '-f', '-F', '-', sha], { cwd: repo.root, input: text });
    out.written.push(sha);
  }
}

/** `intent export --format git-ai [range]`: authorship logs on refs/notes/ai from our records. */
export function exportGitAi(cwd: string, range: string[], opts: { force?: boolean } = {}): InteropResult {
  const repo = openRepo(cwd);
  const ours = readNotes(repo, NOTES_REF);
  const out: InteropResult = { ref: GIT_AI_REF, written: [], kept: [], skipped: 0, leftOut: 0, warnings: [] };
  const logs = new Map<string, string>();
  for (const c of commitsOf(repo, range)) {
    const text = ours.get(c.sha);
    const parsed = text ? parseNote(text) : null;
    if (!parsed || typeof parsed === 'string' || parsed.record.vcs?.revision !== c.sha || !parsed.record.metadata?.[METADATA_KEY]) {
      out.skipped++;
      continue;
    }
    const { log, leftOut } = logOfRecord(parsed.record, c);
    out.leftOut += leftOut;
    logs.set(c.sha, formatLog(log));
  }
  if (out.leftOut) out.warnings.push(`${out.leftOut} line${out.leftOut === 1 ? '' : 's'} recorded as mixed or unknown have no key in the standard and were left out`);
  writeNotes(repo, GIT_AI_REF, logs, !!opts.force, out);
  return out;
}

/** The record of commit `c` from its authorship log; `file` gives the commit's bytes of a path. */
export function recordOfLog(log: AuthorshipLog, c: CommitInfo, file: (path: string) => Buffer | null, opts: { intent?: string; noteSha256?: string } = {}): { record: TraceRecord; leftOut: number; warnings: string[] } {
  const m = log.metadata;
  const attrs = [...Object.values(m.sessions ?? {}), ...Object.values(m.humans ?? {}), ...Object.values(m.prompts)].map((r) => r.custom_attributes).find((a) => a?.intent_id);
  const intentId = attrs?.intent_id ?? opts.intent ?? 'IMPORTED';
  const related = [{ type: 'intent', url: `intent:${intentId}` }];
  const warnings: string[] = [];
  let leftOut = 0;
  const files: TraceFile[] = [];
  for (const f of log.files) {
    const content = file(f.path);
    const lines = (runs: [number, number][]) => runs.reduce((n, [a, b]) => n + b - a + 1, 0);
    if (!content) {
      leftOut += f.entries.reduce((n, e) => n + lines(e.lines), 0);
      warnings.push(`${c.sha.slice(0, 12)}: ${f.path} is not in the commit; its lines were not imported`);
      continue;
    }
    const starts = lineStarts(content);
    const convs = new Map<string, TraceFile['conversations'][number]>();
    for (const e of f.entries) {
      const who = resolveKey(m, e.key);
      if (!who) {
        leftOut += lines(e.lines);
        warnings.push(`${c.sha.slice(0, 12)}: ${f.path}: the key ${e.key} has no record in the metadata; its lines were not imported`);
        continue;
      }
      let id: string;
      let conv: TraceFile['conversations'][number];
      if ('human' in who) {
        id = 'human';
        conv = convs.get(id) ?? { contributor: { type: 'human' }, ranges: [], related };
      } else {
        const a = who.ai.agent_id;
        const url = who.ai.custom_attributes?.conversation_url ?? `${SCHEME_OF_TOOL[a.tool] ?? a.tool}://session/${encodeURIComponent(a.id)}`;
        id = `ai\0${a.model}\0${url}`;
        conv = convs.get(id) ?? { contributor: { type: 'ai', model_id: a.model }, url, ranges: [], related };
      }
      for (const [a, b] of e.lines) {
        if (b > starts.length) {
          leftOut += b - a + 1;
          warnings.push(`${c.sha.slice(0, 12)}: ${f.path}: lines ${a}-${b} are past its last line (${starts.length}); not imported`);
          continue;
        }
        conv.ranges.push({ start_line: a, end_line: b, content_hash: hashLines(content, starts, a, b) });
      }
      if (conv.ranges.length) convs.set(id, conv);
    }
    if (convs.size) files.push({ path: f.path, conversations: [...convs.values()].map((cv) => ({ ...cv, ranges: cv.ranges.sort((x, y) => x.start_line - y.start_line) })) });
  }
  const record = {
    version: '0.1.0',
    id: randomUUID(),
    timestamp: new Date().toISOString(),
    vcs: { type: 'git' as const, revision: c.sha },
    tool: { name: TOOL_NAME, version: TOOL_VERSION },
    files,
    metadata: {
      [METADATA_KEY]: {
        intent_id: intentId,
        intent_name: attrs?.intent_name ?? '',
        mutation_class: 'INTENT_EVOLUTION' as const,
        parents: c.parents,
        scope: [],
        registry: { path: '', sha256: '' },
        scope_violations: [],
        files: {},
        imported: { format: 'git-ai', schema_version: m.schema_version, ...(m.git_ai_version ? { git_ai_version: m.git_ai_version } : {}), ...(opts.noteSha256 ? { note_sha256: opts.noteSha256 } : {}) },
      },
    },
  } as TraceRecord;
  return { record, leftOut, warnings };
}

/** `intent import --format git-ai [range]`: records on refs/notes/intents-imported from git-ai's logs. */
export function importGitAi(cwd: string, range: string[], opts: { force?: boolean; intent?: string } = {}): InteropResult {
  const repo = openRepo(cwd);
  const logs = readNotes(repo, GIT_AI_REF);
  const out: InteropResult = { ref: IMPORTED_REF, written: [], kept: [], skipped: 0, leftOut: 0, warnings: [] };
  const notes = new Map<string, string>();
  for (const c of commitsOf(repo, range)) {
    const text = logs.get(c.sha);
    if (!text) {
      out.skipped++;
      continue;
    }
    const log = parseLog(text);
    if (typeof log === 'string') {
      out.skipped++;
      out.warnings.push(`${c.sha.slice(0, 12)}: its git-ai note ${log}; not imported`);
      continue;
    }
    const blobs = readBlobs(repo.root, log.files.map((f) => `${c.sha}:${f.path}`));
    const { record, leftOut, warnings } = recordOfLog(log, c, (p) => blobs.get(`${c.sha}:${p}`) ?? null, opts);
    out.leftOut += leftOut;
    out.warnings.push(...warnings);
    const meta = record.metadata[METADATA_KEY];
    notes.set(c.sha, `${meta.intent_id} imported from git-ai · ${record.files.length} file${record.files.length === 1 ? '' : 's'}\n${JSON.stringify(record)}\n`);
  }
  writeNotes(repo, IMPORTED_REF, notes, !!opts.force, out);
  return out;
}
