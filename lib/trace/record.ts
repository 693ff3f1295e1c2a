import { randomUUID } from 'node:crypto';
import { isBinary } from '../git/blobs.js';
import { hashLines, lineStarts, type HashedRange } from './hashing.js';
import type { AiAuthor, LineAuthors } from './line-credit.js';
import type { FileChange } from '../git/hunks.js';
import { classifyCommit, classifyFile, type MutationClass } from '../mutation/classes.js';
import type { Intent } from '../intents/registry.js';
import { METADATA_KEY, TOOL_NAME, TOOL_VERSION } from '../core/version.js';

/** An Agent Trace 0.1.0 record (the subset of fields this toolkit writes). */
export interface TraceRecord {
  version: string;
  id: string;
  timestamp: string;
  vcs: { type: 'git'; revision: string };
  tool: { name: string; version: string };
  files: TraceFile[];
  metadata: { [METADATA_KEY]: IntentMetadata };
}

export interface TraceFile {
  path: string;
  conversations: {
    contributor: { type: 'human' | 'ai' | 'mixed' | 'unknown'; model_id?: string };
    url?: string;
    ranges: HashedRange[];
    related: { type: string; url: string }[];
  }[];
}

/** Per-file facts the Agent Trace spec cannot express (deletions, renames, binaries). */
export interface FileMetadata {
  status: string;
  old_path?: string;
  mutation_class: MutationClass;
  /** For an evolution found by syntax: the first differing construct. */
  mutation_reason?: string;
  added_lines: number;
  deleted_lines: number;
  binary?: true;
  submodule?: true;
}

/** This toolkit's fields under `metadata["dev.intent"]`. */
export interface IntentMetadata {
  intent_id: string;
  intent_name: string;
  mutation_class: MutationClass;
  parents: string[];
  /** The `owned_scope` in force at commit time and the registry it came from. */
  scope: string[];
  registry: { path: string; sha256: string };
  /** Paths outside the scope (only possible when pre-commit was bypassed with --no-verify). */
  scope_violations: string[];
  files: Record<string, FileMetadata>;
  /**
   * A record `intent carry` derived for a commit a host made (squash, rebase, merge): its shape
   * and the commits it replaces, whose records credited its lines (lib/trace/carry.ts).
   */
  carried?: { shape: 'squash' | 'rebase' | 'merge' | 'squash-in-merge'; from: string[] };
  /**
   * A record `intent import` made from another tool's notes (on refs/notes/intents-imported, never
   * refs/notes/intents): credited as imported, never as checked by the gate (lib/interop/git-ai.ts).
   */
  imported?: { format: 'git-ai'; schema_version: string; git_ai_version?: string; note_sha256?: string };
  /** Ledger lines only: hex SHA-256 of the previous ledger line's bytes, null for the first. */
  prev_line_sha256?: string | null;
}

export interface RecordInput {
  sha: string;
  parents: string[];
  changes: FileChange[];
  blobs: Map<string, Buffer>;
  intent: Intent;
  registry: { path: string; sha256: string };
  scopeViolations: string[];
  /** Per committed path: which of its lines models produced through the adapter. */
  authorship?: Map<string, { authors: AiAuthor[]; lines: LineAuthors }>;
  /** Per path, the mutation class decided by syntax (lib/mutation/classify.ts); else a byte-level rule. */
  classes?: Map<string, { cls: MutationClass; reason?: string }>;
  now?: Date;
}

type Conversation = TraceFile['conversations'][number];

/**
 * Splits the hashed ranges of one file into one conversation per contributor: the lines a model
 * produced through the adapter (`ai`, with its model and conversation url) and the rest (`human`).
 */
function conversationsOf(
  content: Buffer,
  starts: number[],
  hunks: { start: number; end: number }[],
  who: { authors: AiAuthor[]; lines: LineAuthors } | undefined,
  related: Conversation['related'],
): Conversation[] {
  const byAuthor = new Map<number, HashedRange[]>();
  const push = (author: number, start: number, end: number) => {
    if (!byAuthor.has(author)) byAuthor.set(author, []);
    byAuthor.get(author)!.push({ start_line: start, end_line: end, content_hash: hashLines(content, starts, start, end) });
  };
  for (const h of hunks) {
    let runStart = h.start;
    let runAuthor = who?.lines[h.start - 1] ?? -1;
    for (let l = h.start + 1; l <= h.end + 1; l++) {
      const a = l <= h.end ? who?.lines[l - 1] ?? -1 : NaN;
      if (a === runAuthor) continue;
      push(runAuthor, runStart, l - 1);
      runStart = l;
      runAuthor = a;
    }
  }
  const out: Conversation[] = [];
  if (byAuthor.has(-1) || byAuthor.size === 0) out.push({ contributor: { type: 'human' }, ranges: byAuthor.get(-1) ?? [], related });
  const ai = [...byAuthor.keys()].filter((a) => a >= 0).sort((a, b) => a - b);
  for (const a of ai) {
    const author = who!.authors[a];
    out.push({
      contributor: { type: 'ai', model_id: author.model_id },
      ...(author.url ? { url: author.url } : {}),
      ranges: byAuthor.get(a)!,
      related,
    });
  }
  return out;
}

/** Builds the trace record of one commit: one file entry per changed path, hashed ranges. */
export function buildRecord(input: RecordInput): TraceRecord {
  const { intent } = input;
  const related = [
    { type: 'intent', url: `intent:${encodeURIComponent(intent.id)}` },
    ...intent.related_specs.map((s) => ({ type: s.type, url: `spec:${encodeURIComponent(s.value)}` })),
  ];
  const files: TraceFile[] = [];
  const meta: Record<string, FileMetadata> = {};
  const classes: MutationClass[] = [];
  for (const c of input.changes) {
    const newContent = input.blobs.get(c.newOid);
    const oldContent = input.blobs.get(c.oldOid);
    const submodule = c.newMode === '160000' || c.oldMode === '160000';
    const binary = !submodule && (isBinary(newContent) || isBinary(oldContent));
    let added = 0;
    let deleted = 0;
    for (const h of c.hunks) deleted += h.oldCount;
    let conversations: Conversation[] = [{ contributor: { type: 'human' }, ranges: [], related }];
    if (!binary && !submodule && newContent && c.newMode !== '000000') {
      const hunks = c.hunks.filter((h) => h.newCount > 0).map((h) => ({ start: h.newStart, end: h.newStart + h.newCount - 1 }));
      for (const h of hunks) added += h.end - h.start + 1;
      conversations = conversationsOf(newContent, lineStarts(newContent), hunks, input.authorship?.get(c.path), related);
    }
    const decided = input.classes?.get(c.path);
    const cls = decided?.cls ?? classifyFile(c, oldContent, newContent, binary || submodule);
    classes.push(cls);
    files.push({ path: c.path, conversations });
    meta[c.path] = {
      status: c.status,
      ...(c.oldPath ? { old_path: c.oldPath } : {}),
      mutation_class: cls,
      ...(decided?.reason ? { mutation_reason: decided.reason } : {}),
      added_lines: added,
      deleted_lines: binary || submodule ? 0 : deleted,
      ...(binary ? { binary: true as const } : {}),
      ...(submodule ? { submodule: true as const } : {}),
    };
  }
  return {
    version: '0.1.0',
    id: randomUUID(),
    timestamp: (input.now ?? new Date()).toISOString(),
    vcs: { type: 'git', revision: input.sha },
    tool: { name: TOOL_NAME, version: TOOL_VERSION },
    files,
    metadata: {
      [METADATA_KEY]: {
        intent_id: intent.id,
        intent_name: intent.name,
        mutation_class: classifyCommit(classes),
        parents: input.parents,
        scope: intent.owned_scope,
        registry: input.registry,
        scope_violations: input.scopeViolations,
        files: meta,
      },
    },
  };
}

/** The human-readable first line of a note. */
export function summaryLine(record: TraceRecord): string {
  const m = record.metadata[METADATA_KEY];
  const ranges = record.files.reduce((n, f) => n + f.conversations.reduce((k, c) => k + c.ranges.length, 0), 0);
  const nf = record.files.length;
  let s = `${m.intent_id} ${m.intent_name} · ${m.mutation_class} · ${nf} file${nf === 1 ? '' : 's'}, ${ranges} range${ranges === 1 ? '' : 's'}`;
  if (m.carried && Array.isArray(m.carried.from)) s += ` · carried (${m.carried.shape}) from ${m.carried.from.length} commit${m.carried.from.length === 1 ? '' : 's'}`;
  if (m.scope_violations.length) s += ` · SCOPE VIOLATION: ${m.scope_violations.length} path${m.scope_violations.length === 1 ? '' : 's'} outside ${m.intent_id} (pre-commit bypassed)`;
  return s.replace(/[\r\n]+/g, ' ');
}

/** The full note text: the summary line, then the record as one line of JSON. */
export function noteText(record: TraceRecord): string {
  return `${summaryLine(record)}\n${JSON.stringify(record)}\n`;
}
