/**
 * The Git AI Standard v3.0.0 authorship log (`authorship/3.0.0`, the notes of `refs/notes/ai`):
 * written from our records and read back. Pure: no git here (lib/interop/git-ai.ts does the
 * reading and writing).
 *
 * A log is an attestation section (a file path at the start of a line, then its entries, each
 * indented two spaces: `<key> <ranges>`), a line `---`, and a JSON metadata object. Keys: `s_<14
 * hex>::t_<14 hex>` (an AI session and one checkpoint of it, in `metadata.sessions`), `h_<14 hex>`
 * (a known human, in `metadata.humans`), and legacy `<16 hex>` (in `metadata.prompts`).
 */
import { createHash } from 'node:crypto';

export const GIT_AI_SCHEMA = 'authorship/3.0.0';
export const GIT_AI_REF = 'refs/notes/ai';

export interface AgentId { tool: string; id: string; model: string }
export interface SessionRecord { agent_id: AgentId; human_author?: string; custom_attributes?: Record<string, string> }
export interface HumanRecord { author: string; custom_attributes?: Record<string, string> }
export interface PromptRecord extends SessionRecord {
  messages_url?: string;
  total_additions: number;
  total_deletions: number;
  accepted_lines: number;
  overriden_lines: number;
}
export interface GitAiMetadata {
  schema_version: string;
  git_ai_version?: string;
  base_commit_sha: string;
  prompts: Record<string, PromptRecord>;
  sessions?: Record<string, SessionRecord>;
  humans?: Record<string, HumanRecord>;
}
/** One attestation entry: a key and its lines as inclusive [start, end] runs, ascending. */
export interface Entry { key: string; lines: [number, number][] }
export interface AuthorshipLog { files: { path: string; entries: Entry[] }[]; metadata: GitAiMetadata }

const hex = (s: string, n: number) => createHash('sha256').update(s).digest('hex').slice(0, n);
/** A session id: `s_` and the first 14 hex digits of SHA-256 of `<tool>:<conversation id>`. */
export const sessionId = (tool: string, conversation: string) => `s_${hex(`${tool}:${conversation}`, 14)}`;
/** A known human's key: `h_` and the first 14 hex digits of SHA-256 of `Name <email>`. */
export const humanKey = (identity: string) => `h_${hex(identity, 14)}`;
/** A trace id for one checkpoint: ours are commits, so one per commit and session (deterministic: an export run twice writes the same log). */
export const traceId = (commit: string, session: string) => `t_${hex(`${commit}:${session}`, 14)}`;

const SESSION_KEY = /^s_[0-9a-f]{14}::t_[0-9a-f]{14}$/;
const HUMAN_KEY = /^h_[0-9a-f]{14}$/;
const LEGACY_KEY = /^(?:[0-9a-f]{16}|[0-9a-f]{7})$/;

/** Sorted, merged runs of the lines given as runs (consecutive lines made one range, as the standard asks). */
export function mergeRuns(runs: readonly [number, number][]): [number, number][] {
  const sorted = runs.map(([a, b]) => [a, b] as [number, number]).sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  const out: [number, number][] = [];
  for (const [a, b] of sorted) {
    const last = out[out.length - 1];
    if (last && a <= last[1] + 1) last[1] = Math.max(last[1], b);
    else out.push([a, b]);
  }
  return out;
}

const formatRuns = (runs: [number, number][]) => runs.map(([a, b]) => (a === b ? `${a}` : `${a}-${b}`)).join(',');
/**
 * A path as the attestation section writes it: in double quotes when it holds a space, tab or
 * newline (our records name a file that is not UTF-8 as git quotes it, `"caf\351.txt"`: such a name
 * with a space is quoted once more, so that reading takes exactly one pair off).
 */
const formatPath = (p: string) => (/[ \t\n]/.test(p) ? `"${p}"` : p);
/** The path of a file line: one pair of quotes taken off when what they hold needs them. */
const parsePath = (line: string) => (line.length > 2 && line.startsWith('"') && line.endsWith('"') && /[ \t]/.test(line.slice(1, -1)) ? line.slice(1, -1) : line);

/** The log's text: the attestation section (files with no entry left out), `---`, the metadata as indented JSON. */
export function formatLog(log: AuthorshipLog): string {
  const lines: string[] = [];
  for (const f of log.files) {
    const entries = f.entries.filter((e) => e.lines.length);
    if (!entries.length) continue;
    lines.push(formatPath(f.path));
    for (const e of entries) lines.push(`  ${e.key} ${formatRuns(mergeRuns(e.lines))}`);
  }
  lines.push('---');
  return `${lines.join('\n')}\n${JSON.stringify(log.metadata, null, 2)}\n`;
}

/** Why a log's text is not a valid authorship/3.0.0 log (a sentence), or its parse. */
export function parseLog(text: string): AuthorshipLog | string {
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  const divider = lines.indexOf('---');
  if (divider < 0) return 'has no divider line `---`';
  let metadata: GitAiMetadata;
  try {
    metadata = JSON.parse(lines.slice(divider + 1).join('\n')) as GitAiMetadata;
  } catch (e) {
    return `its metadata section is not JSON (${(e as Error).message})`;
  }
  if (!metadata || typeof metadata !== 'object' || Array.isArray(metadata)) return 'its metadata section is not a JSON object';
  if (metadata.schema_version !== GIT_AI_SCHEMA) return `its schema_version is ${JSON.stringify(metadata.schema_version)}, not "${GIT_AI_SCHEMA}"`;
  if (typeof metadata.base_commit_sha !== 'string') return 'its metadata has no base_commit_sha';
  if (!metadata.prompts || typeof metadata.prompts !== 'object') return 'its metadata has no prompts object';
  const files: AuthorshipLog['files'] = [];
  for (let i = 0; i < divider; i++) {
    const line = lines[i];
    if (line === '') continue;
    if (!line.startsWith(' ')) {
      files.push({ path: parsePath(line), entries: [] });
      continue;
    }
    const m = /^ {2}(\S+) (\d+(?:-\d+)?(?:,\d+(?:-\d+)?)*)$/.exec(line);
    if (!m) return `line ${i + 1} is not an attestation entry (two spaces, a key, a space, line ranges): ${JSON.stringify(line.slice(0, 80))}`;
    if (!files.length) return `line ${i + 1} is an attestation entry before any file path`;
    const key = m[1];
    if (!SESSION_KEY.test(key) && !HUMAN_KEY.test(key) && !LEGACY_KEY.test(key)) return `line ${i + 1}: ${JSON.stringify(key)} is not an attestation key (s_<14 hex>::t_<14 hex>, h_<14 hex> or 16 hex digits)`;
    const runs: [number, number][] = [];
    for (const part of m[2].split(',')) {
      const [a, b = a] = part.split('-').map(Number);
      if (a < 1 || b < a) return `line ${i + 1}: the range ${part} is not 1-based and ascending`;
      if (runs.length && a <= runs[runs.length - 1][1]) return `line ${i + 1}: its ranges are not in ascending order`;
      runs.push([a, b]);
    }
    files[files.length - 1].entries.push({ key, lines: runs });
  }
  return { files, metadata };
}

/** Who a key names, from the metadata: an AI agent (sessions, legacy prompts) or a known human; null when the metadata lacks it. */
export function resolveKey(metadata: GitAiMetadata, key: string): { ai: SessionRecord; session: string } | { human: HumanRecord } | null {
  if (key.startsWith('h_')) {
    const h = metadata.humans?.[key];
    return h ? { human: h } : null;
  }
  if (key.startsWith('s_')) {
    const session = key.split('::')[0];
    const s = metadata.sessions?.[session];
    return s ? { ai: s, session } : null;
  }
  const p = metadata.prompts[key];
  return p ? { ai: p, session: key } : null;
}
