/**
 * `intent blame <file>`: per line of the file as it is now, the commit, intent and contributor
 * that wrote it, found by content hash across every note (so a block moved by later commits is
 * still credited to the commit and intent that wrote it, also when only part of a recorded range
 * moved: lib/trace/block-credit.ts), falling back to `git blame` (and that commit's note) for
 * lines no recorded range matches.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { isBinary } from '../git/blobs.js';
import { IntentError } from '../core/errors.js';
import { git, gitRaw } from '../git/process.js';
import { hashLines, lineStarts } from './hashing.js';
import { readBlobs } from '../git/blobs.js';
import { bareLines, blockIndex, partialBlocks, type RangeLines } from './block-credit.js';
import { openRepo } from '../git/repo.js';
import type { TraceRecord } from './record.js';
import { IMPORTED_NOTES_REF, METADATA_KEY, NOTES_REF } from '../core/version.js';
import { parseNote, reachedCommitTimes, readNotes } from './verify.js';

/** Who wrote one line. */
export interface BlameLine {
  line: number;
  text: string;
  commit: string | null;
  intent: string | null;
  contributor: 'ai' | 'human' | 'mixed' | 'unknown' | null;
  model_id?: string;
  url?: string;
  /** `hash`: a recorded range with these exact bytes; `git-blame`: git's own blame; `uncommitted`: not committed yet. */
  source: 'hash' | 'git-blame' | 'uncommitted';
  /** The credit is from a record `intent import` made (another tool's notes), not one the gate checked. */
  imported?: true;
}

interface Candidate {
  commit: string;
  time: number;
  intent: string;
  contributor: BlameLine['contributor'];
  model_id?: string;
  url?: string;
  length: number;
  imported?: true;
}

/** Blames `file` (relative to `cwd` or absolute) in the worktree around `cwd`. */
export function blame(cwd: string, file: string): { path: string; lines: BlameLine[] } {
  const repo = openRepo(cwd);
  const abs = isAbsolute(file) ? file : resolve(cwd, file);
  const rel = relative(repo.root, abs);
  if (rel.startsWith('..') || isAbsolute(rel)) throw new IntentError('USAGE', `${file} is outside the worktree ${repo.root}.`, { file });
  const path = rel.split(sep).join('/');
  if (!existsSync(abs)) throw new IntentError('USAGE', `${path} does not exist in ${repo.root}.`, { file: path });
  if (statSync(abs).isDirectory()) {
    throw new IntentError('INVALID_INPUT', `${path || '.'} is a folder: intent blame takes one file, e.g. intent blame ${path ? `${path}/` : ''}<file>.`, { file: path });
  }
  const content = readFileSync(abs);
  if (isBinary(content)) {
    throw new IntentError('INVALID_INPUT', `${path} is a binary file: intent blame works on lines of text. Its commits and intents: git log --notes=intents -- ${JSON.stringify(path)}`, { file: path, binary: true });
  }
  const starts = lineStarts(content);
  const texts = starts.map((s, i) => content.subarray(s, i + 1 < starts.length ? starts[i + 1] : content.length).toString('utf8').replace(/\r?\n$/, ''));

  // Every recorded range, by hash: the earliest commit wins (the one that wrote the bytes).
  const notes = readNotes(repo, NOTES_REF);
  const records = new Map<string, TraceRecord>();
  for (const [sha, text] of notes) {
    const parsed = parseNote(text);
    if (typeof parsed !== 'string' && parsed.record.vcs?.revision === sha) records.set(sha, parsed.record);
  }
  // Records `intent import` made (git-ai's notes) for commits that have none of their own: credited, marked imported.
  const imported = new Set<string>();
  for (const [sha, text] of readNotes(repo, IMPORTED_NOTES_REF)) {
    if (records.has(sha)) continue;
    const parsed = parseNote(text);
    if (typeof parsed !== 'string' && parsed.record.vcs?.revision === sha) {
      records.set(sha, parsed.record);
      imported.add(sha);
    }
  }
  const times = reachedCommitTimes(repo.root, records);
  const byHash = new Map<string, Candidate>();
  const lengths = new Set<number>();
  const multiLine: { key: string; start: number; end: number; hash: string; cand: Candidate }[] = [];
  for (const [sha, rec] of records) {
    const intent = rec.metadata?.[METADATA_KEY]?.intent_id ?? '?';
    for (const f of rec.files) {
      for (const c of f.conversations) {
        for (const r of c.ranges) {
          const cand: Candidate = {
            commit: sha, time: times.get(sha) ?? 0, intent, contributor: c.contributor.type,
            ...(c.contributor.model_id ? { model_id: c.contributor.model_id } : {}), ...(c.url ? { url: c.url } : {}),
            length: r.end_line - r.start_line + 1, ...(imported.has(sha) ? { imported: true as const } : {}),
          };
          const prev = byHash.get(r.content_hash);
          if (!prev || cand.time < prev.time) byHash.set(r.content_hash, cand);
          lengths.add(cand.length);
          if (cand.length > 1) multiLine.push({ key: `${sha}:${f.path}`, start: r.start_line, end: r.end_line, hash: r.content_hash, cand });
        }
      }
    }
  }

  // Every window of the file whose bytes a recorded range had; the oldest commit's blocks claim
  // their lines first (they wrote them), longer blocks before shorter ones.
  const matches: { start: number; length: number; cand: Candidate }[] = [];
  for (const n of lengths) {
    if (n > starts.length) continue;
    for (let s = 1; s + n - 1 <= starts.length; s++) {
      const cand = byHash.get(hashLines(content, starts, s, s + n - 1));
      if (cand && cand.length === n) matches.push({ start: s, length: n, cand });
    }
  }
  // Runs of lines that are part of a recorded range (a block moved without the range's boundaries).
  matches.push(...partialBlocks(blockIndex(rangeLines(repo.root, multiLine)), bareLines(content)));
  matches.sort((a, b) => a.cand.time - b.cand.time || b.length - a.length || a.start - b.start);
  const lines: (BlameLine | null)[] = texts.map(() => null);
  for (const { start, length, cand } of matches) {
    for (let l = start; l < start + length; l++) {
      if (lines[l - 1]) continue;
      lines[l - 1] = {
        line: l, text: texts[l - 1], commit: cand.commit, intent: cand.intent, contributor: cand.contributor,
        ...(cand.model_id ? { model_id: cand.model_id } : {}), ...(cand.url ? { url: cand.url } : {}), source: 'hash',
        ...(cand.imported ? { imported: true as const } : {}),
      };
    }
  }
  if (lines.some((l) => l === null)) fillFromGitBlame(repo.root, path, abs, lines, texts, records, imported);
  return { path, lines: lines as BlameLine[] };
}

/**
 * The lines of recorded ranges, read from their commits in one batch; a range whose bytes there do
 * not hash to its recorded hash (a note that lies, which verify reports) gives none.
 */
function rangeLines(cwd: string, ranges: { key: string; start: number; end: number; hash: string; cand: Candidate }[]): RangeLines<Candidate>[] {
  if (!ranges.length) return [];
  const blobs = readBlobs(cwd, [...new Set(ranges.map((r) => r.key))]);
  const split = new Map<string, { starts: number[]; lines: string[] }>();
  const out: RangeLines<Candidate>[] = [];
  for (const r of ranges) {
    const blob = blobs.get(r.key);
    if (!blob) continue;
    let file = split.get(r.key);
    if (!file) split.set(r.key, (file = { starts: lineStarts(blob), lines: bareLines(blob) }));
    if (r.start < 1 || r.end < r.start || r.end > file.starts.length || hashLines(blob, file.starts, r.start, r.end) !== r.hash) continue;
    out.push({ lines: file.lines.slice(r.start - 1, r.end), cand: r.cand });
  }
  return out;
}

/** `git blame --porcelain` of the working copy, then the blamed commit's note for the intent and contributor. */
function fillFromGitBlame(cwd: string, path: string, abs: string, lines: (BlameLine | null)[], texts: string[], records: Map<string, TraceRecord>, imported: ReadonlySet<string>): void {
  const tracked = gitRaw(['ls-files', '--error-unmatch', '--', `:(literal)${path}`], { cwd }).status === 0;
  const origin = new Map<number, { commit: string | null; origLine: number; origPath: string }>();
  if (tracked) {
    const out = git(['blame', '--porcelain', '--contents', abs, '--', path], { cwd });
    let filename = path;
    let current: { sha: string; orig: number; final: number } | null = null;
    const files = new Map<string, string>();
    for (const l of out.split('\n')) {
      const head = /^([0-9a-f]{40,64}) (\d+) (\d+)/.exec(l);
      if (head) {
        current = { sha: head[1], orig: Number(head[2]), final: Number(head[3]) };
        filename = files.get(head[1]) ?? path;
      } else if (l.startsWith('filename ') && current) {
        filename = l.slice('filename '.length);
        files.set(current.sha, filename);
      } else if (l.startsWith('\t') && current) {
        origin.set(current.final, { commit: /^0+$/.test(current.sha) ? null : current.sha, origLine: current.orig, origPath: filename });
      }
    }
  }
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]) continue;
    const o = origin.get(i + 1);
    if (!o || !o.commit) {
      lines[i] = { line: i + 1, text: texts[i], commit: null, intent: null, contributor: null, source: 'uncommitted' };
      continue;
    }
    const rec = records.get(o.commit);
    const conv = rec?.files.find((f) => f.path === o.origPath)?.conversations
      .find((c) => c.ranges.some((r) => r.start_line <= o.origLine && o.origLine <= r.end_line));
    lines[i] = {
      line: i + 1, text: texts[i], commit: o.commit, intent: rec?.metadata?.[METADATA_KEY]?.intent_id ?? null,
      contributor: conv ? conv.contributor.type : null,
      ...(conv?.contributor.model_id ? { model_id: conv.contributor.model_id } : {}), ...(conv?.url ? { url: conv.url } : {}),
      ...(conv && imported.has(o.commit) ? { imported: true as const } : {}),
      source: 'git-blame',
    };
  }
}
