import { createHash } from 'node:crypto';
import { isUtf8 } from 'node:buffer';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Document, Node, YAMLMap } from 'yaml';
import { IntentError } from '../core/errors.js';
import { replaceFile } from '../core/files.js';
import { keptRead, type Kept } from '../core/kept.js';
import { keptMap } from '../core/hook-context.js';
import { globProblem } from './scope.js';
import { TOOL_VERSION } from '../core/version.js';

// The yaml package is loaded only when a registry must really be parsed: hooks read the
// validated registry from a cache keyed by the file's bytes (see loadRegistry).
let yamlLoaded: typeof import('yaml') | null = null;
/** The yaml package, loaded on first use (everything that parses YAML calls this, see scripts/bundle.mjs). */
export function yamlModule(): typeof import('yaml') {
  return (yamlLoaded ??= createRequire(import.meta.url)('yaml') as typeof import('yaml'));
}
const y = yamlModule;

/** The lifecycle states an intent can be in. */
export const STATUSES = ['PENDING', 'IN_PROGRESS', 'BLOCKED', 'COMPLETED', 'ABANDONED'] as const;
export type IntentStatus = (typeof STATUSES)[number];

/** One entry of `active_intents.yaml`, validated. */
export interface Intent {
  id: string;
  name: string;
  status: IntentStatus;
  owned_scope: string[];
  constraints: string[];
  acceptance_criteria: string[];
  assigned_agent?: string;
  related_specs: { type: string; value: string }[];
  created_at?: string;
  updated_at?: string;
  /** Shell commands `intent done` runs in the worktree; present only when the registry lists them. */
  acceptance_checks?: string[];
  /** Limits enforced by the pre-commit hook and `intent checkout`; present only when given. */
  budget?: Budget;
}

/** An intent's budget: every key optional, counts are integers >= 1. */
export interface Budget {
  /** Most governed commits reachable from the intent branch. */
  max_commits?: number;
  /** Most changed lines (added + deleted, from the notes) over those commits. */
  max_changed_lines?: number;
  /** RFC 3339 date-time after which no commit and no checkout is allowed. */
  expires_at?: string;
}

/** The keys a `budget:` mapping may have. */
export const BUDGET_KEYS = ['max_commits', 'max_changed_lines', 'expires_at'] as const;

/** The validated registry file. */
export interface Registry {
  path: string;
  intents: Intent[];
  /** Where each intent's status (and updated_at) value is in the file's text: see StatusSpans. */
  spans?: StatusSpans;
}

/** A scalar value's place in the registry text (UTF-16 offsets, quotes included) and its quoting. */
export interface ScalarSpan {
  start: number;
  end: number;
  style: 'PLAIN' | 'QUOTE_SINGLE' | 'QUOTE_DOUBLE';
}

/**
 * Per intent id, the spans of its one-line `status` and `updated_at` values (an intent whose
 * values are not both one-line plain or quoted scalars has none): with them the registry edit
 * sets a status without parsing the YAML again (lib/intents/registry-edit.ts).
 */
export type StatusSpans = Record<string, { status: ScalarSpan; updated_at?: ScalarSpan }>;

/** One thing wrong with the registry, located as precisely as the YAML allows. */
export interface RegistryProblem {
  line?: number;
  column?: number;
  intent?: string;
  field?: string;
  message: string;
}

const INTENT_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?$/;
const KNOWN_FIELDS = [
  'id', 'name', 'status', 'owned_scope', 'constraints', 'acceptance_criteria',
  'assigned_agent', 'related_specs', 'created_at', 'updated_at', 'acceptance_checks', 'budget',
];

/** Reads a registry file and validates it: its text and the registry (REGISTRY_MISSING, REGISTRY_INVALID). */
export function readRegistry(path: string): { text: string; registry: Registry } {
  const read = () => {
    const { text, bytes } = readRegistryFile(path);
    return { text, registry: registryOfText(path, text, bytes) };
  };
  // The hook server keeps registries between hooks (core/kept.ts), by path, with the identity of
  // the file they were read from. Callers do not modify a Registry.
  const kept = keptMap<string, Kept<{ text: string; registry: Registry }>>('registry');
  return kept ? keptRead(kept, path, read) : read();
}

/** The SHA-256 (hex) of a registry's bytes, from its text (`readRegistry`: valid UTF-8, so exact). */
export function registrySha256(text: string): string {
  // The hook server keeps the last one (each commit's check and record ask for the same text).
  const last = keptMap<'last', { text: string; sha256: string }>('registry-digest');
  const hit = last?.get('last');
  if (hit && hit.text === text) return hit.sha256;
  const sha256 = createHash('sha256').update(text, 'utf8').digest('hex');
  last?.set('last', { text, sha256 });
  return sha256;
}

/** A registry file's text; throws REGISTRY_MISSING, or REGISTRY_INVALID when it is unreadable or not UTF-8. */
export function readRegistryText(path: string): string {
  return readRegistryFile(path).text;
}

/** readRegistryText, with the file's bytes (hashed for the cache key as they are, not encoded again). */
function readRegistryFile(path: string): { text: string; bytes: Buffer } {
  if (!existsSync(path)) {
    throw new IntentError('REGISTRY_MISSING', `No intent registry at ${path}. Run \`intent init\` to create one.`, { path });
  }
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (e) {
    throw new IntentError('REGISTRY_INVALID', `Cannot read the intent registry ${path}: ${(e as Error).message}. It must be a readable YAML file.`, { path });
  }
  const text = bytes.toString('utf8');
  // YAML is Unicode text; decoding other bytes would change them (and an edit would write the change back).
  if (!isUtf8(bytes)) {
    const at = text.indexOf('\uFFFD');
    const line = text.slice(0, at).split('\n').length;
    const column = at - text.lastIndexOf('\n', at - 1);
    throw registryError(path, [{ line, column, message: 'the file is not valid UTF-8 text: save it as UTF-8 (nothing was changed)' }]);
  }
  return { text, bytes };
}

/** Reads and validates a registry file; throws REGISTRY_MISSING or REGISTRY_INVALID. */
export function loadRegistry(path: string): Registry {
  return readRegistry(path).registry;
}

/** The registry of `text` (whose UTF-8 bytes are `bytes`): from the cache when it holds that text's, else parsed and cached. */
function registryOfText(path: string, text: string, bytes: Buffer): Registry {
  const cache = cacheFile(path);
  if (cache) {
    try {
      const hit = readCache(path, cache, cacheKey(bytes));
      if (hit) return hit;
    } catch { /* no cache yet, or not ours */ }
  }
  const registry = parseRegistry(text, path);
  rememberRegistry(path, bytes, registry);
  return registry;
}

/**
 * The registry cache (format 2), built so that a status edit patches bytes at fixed places and
 * never shifts an offset (a 10,000-intent registry is megabytes of JSON):
 *
 *   `intent-registry-cache/2 <key>\n`       the key: sha256 of the format, tool version and registry text;
 *   one letter per intent, in registry order  (P I B C A: the status), then `\n`;
 *   `<id> <id> …\n`                           the ids in registry order (an id has no space);
 *   `[<offset>,…]\n`                          where each intent's line starts (bytes from the file's start);
 *   one line per intent: `[<intent>,<spans>]` (its JSON and its status spans, see StatusSpans), padded
 *                                             with spaces to leave room for a longer status and stamp;
 *   `[[<start>,<end>,<length>],…]\n`          the text edits made since the spans were computed, in order.
 *
 * A hook needs one intent and the statuses of a few: it reads the letters, the index and one line.
 * A status edit writes a copy with the new key, one letter, that intent's line (same length) and
 * one more entry in the edit list; the spans stay as computed and are moved through the edit
 * list when read. When a line has no room left, or the list is long, the cache is rebuilt.
 * A file that does not start with this format's tag (an older cache) is a miss: parsed and rebuilt.
 * It is written without fsync (replaceFile: temp file and rename), unlike the registry itself: it
 * only saves work. After a crash it may be the old file (its key no longer matches), empty, or on
 * some file systems hold zeroed blocks; the format never contains a NUL byte (JSON escapes it), so
 * a file with one is a miss too.
 */
const CACHE_TAG = 'intent-registry-cache/2';
/** Spaces after each intent's line: a status grows by 4 characters at most, an `updated_at` stamp by 10. */
const LINE_ROOM = 16;
/** Edits kept in the list before the cache is rebuilt (each lookup of a span walks the list). */
const MAX_EDITS = 256;
const LETTER: Record<IntentStatus, string> = { PENDING: 'P', IN_PROGRESS: 'I', BLOCKED: 'B', COMPLETED: 'C', ABANDONED: 'A' };

/** One text edit of the registry: [start, end, length of the new text] (UTF-16 offsets of the text before it). */
type TextEdit = [number, number, number];

/** What a registry read from the cache keeps of the file, for `rememberStatusEdit`. */
interface CacheRaw {
  buf: Buffer;
  /** Where the status letters start. */
  letters: number;
  /** Where the edit list starts. */
  editsAt: number;
  edits: TextEdit[];
  /** Registry order of an id, and where each line starts. */
  ordinal(id: string): number | undefined;
  offsets(): number[];
}

/** Moves a span (freshly parsed: changed in place) through `edits`, applied in order; false when an edit cuts into it. */
function moveSpan(sp: ScalarSpan, edits: readonly TextEdit[]): boolean {
  let { start, end } = sp;
  for (const [s, e, len] of edits) {
    if (s === start && e === end) end = s + len;
    else if (e <= start) {
      start += len - (e - s);
      end += len - (e - s);
    } else if (s < end) return false;
  }
  sp.start = start;
  sp.end = end;
  return true;
}

/** An intent's spans as read from its line, moved through `edits` (undefined when there are none, or an edit cut into one). */
function moveSpans(spans: StatusSpans[string] | null, edits: readonly TextEdit[]): StatusSpans[string] | undefined {
  if (!spans) return undefined;
  if (!moveSpan(spans.status, edits)) return undefined;
  if (spans.updated_at && !moveSpan(spans.updated_at, edits)) return undefined;
  return spans;
}

/** `edits` (offsets of the text before them, as an edit makes them) as the list `moveSpan` applies in order: last first. */
function textEdits(edits: readonly { start: number; end: number; text: string }[]): TextEdit[] {
  return [...edits].sort((a, b) => b.start - a.start).map((e): TextEdit => [e.start, e.end, e.text.length]);
}

/** Every intent's status spans after `edits` (copies; a span an edit cuts into is left out with its intent). */
export function shiftStatusSpans(spans: StatusSpans, edits: readonly { start: number; end: number; text: string }[]): StatusSpans {
  const list = textEdits(edits);
  const out: StatusSpans = {};
  for (const [id, sp] of Object.entries(spans)) {
    const moved = moveSpans({ status: { ...sp.status }, ...(sp.updated_at ? { updated_at: { ...sp.updated_at } } : {}) }, list);
    if (moved) out[id] = moved;
  }
  return out;
}

function readCache(path: string, cache: string, key: string): Registry | null {
  const buf = readFileSync(cache);
  const tag = `${CACHE_TAG} ${key}\n`;
  if (buf.length < tag.length || buf.toString('latin1', 0, tag.length) !== tag || buf.includes(0)) return null;
  const letters = tag.length;
  const lettersEnd = buf.indexOf(0x0a, letters);
  const idsEnd = buf.indexOf(0x0a, lettersEnd + 1);
  const indexEnd = buf.indexOf(0x0a, idsEnd + 1);
  const editsAt = buf.lastIndexOf(0x0a, buf.length - 2) + 1;
  if (lettersEnd < 0 || idsEnd < 0 || indexEnd < 0 || editsAt <= indexEnd || buf[buf.length - 1] !== 0x0a) return null;
  const edits = JSON.parse(buf.toString('utf8', editsAt)) as TextEdit[];
  const n = lettersEnd - letters;
  const idText = buf.toString('utf8', lettersEnd + 1, idsEnd);
  const ids = idText === '' ? [] : idText.split(' ');
  const offsets = JSON.parse(buf.toString('latin1', idsEnd + 1, indexEnd)) as number[];
  // Checked here, where a bad file is only a miss: the parts agree, and the lines start where the index says.
  const opens = (at: number | undefined) => at === undefined || (at > indexEnd && at < editsAt && buf[at] === 0x5b && buf[at - 1] === 0x0a);
  if (ids.length !== n || offsets.length !== n || !opens(offsets[0]) || !opens(offsets[n - 1])) return null;
  let order: Map<string, number> | null = null;
  let asked = 0;
  /** A few lookups search the ids; more build a map once (a hook asks about every intent branch). */
  const ordinal = (id: string): number | undefined => {
    if (!order && ++asked > 8) {
      order = new Map();
      for (let k = 0; k < ids.length; k++) order.set(ids[k], k);
    }
    const k = order ? order.get(id) : ids.indexOf(id);
    return k === undefined || k < 0 ? undefined : k;
  };
  const lineAt = (k: number): [Intent, StatusSpans[string] | null] => {
    const at = offsets[k];
    return JSON.parse(buf.toString('utf8', at, buf.indexOf(0x0a, at))) as [Intent, StatusSpans[string] | null];
  };
  let full: { intents: Intent[]; spans: StatusSpans } | null = null;
  const all = (): { intents: Intent[]; spans: StatusSpans } => {
    if (full) return full;
    const intents: Intent[] = [];
    const spans: StatusSpans = {};
    for (let k = 0; k < n; k++) {
      const [intent, sp] = lineAt(k);
      intents.push(intent);
      const moved = moveSpans(sp, edits);
      if (moved) spans[intent.id] = moved;
    }
    return (full = { intents, spans });
  };
  const registry = { path } as Registry;
  Object.defineProperty(registry, 'intents', { enumerable: true, configurable: true, get: () => all().intents });
  Object.defineProperty(registry, 'spans', { enumerable: true, configurable: true, get: () => all().spans });
  Object.defineProperty(registry, LOOKUP, {
    value: {
      intent: (id: string) => {
        const k = ordinal(id);
        return k === undefined ? undefined : full ? full.intents[k] : lineAt(k)[0];
      },
      spansOf: (id: string) => {
        const k = ordinal(id);
        return k === undefined ? undefined : full ? full.spans[id] : moveSpans(lineAt(k)[1], edits);
      },
      idsWithStatus: (status: IntentStatus) => {
        if (full) return new Set(full.intents.filter((i) => i.status === status).map((i) => i.id));
        const want = LETTER[status].charCodeAt(0);
        const out = new Set<string>();
        for (let k = 0; k < n; k++) if (buf[letters + k] === want) out.add(ids[k]);
        return out;
      },
      withStatus: (status: IntentStatus) => {
        if (full) return full.intents.filter((i) => i.status === status);
        const want = LETTER[status].charCodeAt(0);
        const out: Intent[] = [];
        for (let k = 0; k < n; k++) if (buf[letters + k] === want) out.push(lineAt(k)[0]);
        return out;
      },
      raw: { buf, letters, editsAt, edits, ordinal, offsets: () => offsets },
    } satisfies Lookup,
  });
  return registry;
}

/** Answers about single intents without parsing the whole cached registry (see readCache). */
interface Lookup {
  intent(id: string): Intent | undefined;
  spansOf(id: string): StatusSpans[string] | undefined;
  withStatus(status: IntentStatus): Intent[];
  idsWithStatus(status: IntentStatus): Set<string>;
  raw: CacheRaw;
}
const LOOKUP = Symbol('registry lookup');

/**
 * Caches `registry`, validated from `text` (or its UTF-8 bytes), for the next `loadRegistry` of `path` (the registry
 * edits call it after writing, so the next hook does not have to parse the file again).
 */
export function rememberRegistry(path: string, text: string | Buffer, registry: Registry): void {
  const cache = cacheFile(path);
  if (!cache) return;
  try {
    const intents = registry.intents;
    const spans = registry.spans ?? {};
    const head = `${CACHE_TAG} ${cacheKey(text)}\n${intents.map((i) => LETTER[i.status]).join('')}\n${intents.map((i) => i.id).join(' ')}\n`;
    const lines = intents.map((i) => `${JSON.stringify([i, spans[i.id] ?? null])}${' '.repeat(LINE_ROOM)}\n`);
    // The index gives absolute offsets, so its own length must be known first: offsets are
    // computed against a guess of the index's length and redone until it holds (twice at most).
    const lengths = lines.map((l) => Buffer.byteLength(l));
    let indexLength = 0;
    let index = '';
    for (;;) {
      let at = Buffer.byteLength(head) + indexLength;
      index = `${JSON.stringify(lengths.map((len) => {
        const here = at;
        at += len;
        return here;
      }))}\n`;
      const len = Buffer.byteLength(index);
      if (len === indexLength) break;
      indexLength = len;
    }
    replaceFile(cache, `${head}${index}${lines.join('')}[]\n`);
  } catch { /* a cache only: never fail for it */ }
}

/**
 * After an edit that changed only intent `id` (to `intent`) by the text `edits` (offsets of the
 * text before them): caches the new `text` (or its UTF-8 bytes) by patching a copy of the cache `registry` was read
 * from (its key, that intent's status letter and line, and the edit list; every other byte stays).
 * Returns false when `registry` did not come from the cache, or its line has no room left, or the
 * edit list is full (then call rememberRegistry).
 */
export function rememberStatusEdit(path: string, text: string | Buffer, registry: Registry, intent: Intent, edits: readonly { start: number; end: number; text: string }[]): boolean {
  const raw = (registry as { [LOOKUP]?: Lookup })[LOOKUP]?.raw;
  const cache = cacheFile(path);
  if (!raw || !cache) return false;
  try {
    const k = raw.ordinal(intent.id);
    if (k === undefined || raw.edits.length + edits.length > MAX_EDITS) return false;
    const { buf } = raw;
    const at = raw.offsets()[k];
    const end = buf.indexOf(0x0a, at);
    const [, spans] = JSON.parse(buf.toString('utf8', at, end)) as [Intent, unknown];
    const line = Buffer.from(JSON.stringify([intent, spans]), 'utf8');
    if (line.length > end - at) return false;
    // Applied last first, each edit's offsets hold in the text the earlier ones left.
    const added = textEdits(edits);
    const out = Buffer.alloc(raw.editsAt);
    buf.copy(out, 0, 0, raw.editsAt);
    out.write(`${CACHE_TAG} ${cacheKey(text)}\n`, 0, 'latin1');
    out[raw.letters + k] = LETTER[intent.status].charCodeAt(0);
    out.fill(0x20, at, end);
    line.copy(out, at);
    replaceFile(cache, Buffer.concat([out, Buffer.from(`${JSON.stringify([...raw.edits, ...added])}\n`, 'utf8')]));
    return true;
  } catch {
    return false;
  }
}

/** The cache key of a registry's text (as a string, or its UTF-8 bytes: the same key). */
function cacheKey(text: string | Buffer): string {
  // Streamed: no 1 MB string is joined, and bytes are hashed as read (3 ms -> 1 ms for 1.3 MB here).
  return createHash('sha256').update(`${CACHE_TAG}\0${TOOL_VERSION}\0`).update(text).digest('hex');
}

/**
 * Where the validated registry is cached: `<main worktree>/.git/intent/registry.json`, only when
 * that git dir is there (never in the work tree, never shared between repositories).
 */
function cacheFile(path: string): string | null {
  const gitDir = join(dirname(dirname(path)), '.git');
  try {
    return statSync(join(gitDir, 'intent')).isDirectory() ? join(gitDir, 'intent', 'registry.json') : null;
  } catch {
    return null;
  }
}

/** Validates registry text; every problem is reported at once, with file, line, intent and field. */
export function parseRegistry(text: string, path: string): Registry {
  return parseRegistryDocument(text, path).registry;
}

/** parseRegistry, and the YAML document it was read from (for byte-surgical edits). */
export function parseRegistryDocument(text: string, path: string): { registry: Registry; doc: Document } {
  const { intents, problems, spans, doc } = validate(text);
  if (problems.length) throw registryError(path, problems);
  return { registry: { path, intents, spans }, doc };
}

/** Formats problems as one REGISTRY_INVALID error. */
export function registryError(path: string, problems: RegistryProblem[]): IntentError {
  const lines = problems.map((p) => {
    const where = p.line ? `${path}:${p.line}:${p.column ?? 1}` : path;
    const who = [p.intent ? `intent ${p.intent}` : '', p.field ? `field ${p.field}` : ''].filter(Boolean).join(', ');
    return `  ${where}: ${who ? `${who}: ` : ''}${p.message}`;
  });
  const n = problems.length;
  return new IntentError(
    'REGISTRY_INVALID',
    `Invalid intent registry ${path} (${n} problem${n === 1 ? '' : 's'}):\n${lines.join('\n')}\nFix the file; until then every commit that depends on it is blocked.`,
    { path, problems },
  );
}

/** Pure validation: returns the intents it could read and every problem found. */
export function checkRegistry(text: string): { intents: Intent[]; problems: RegistryProblem[]; spans: StatusSpans } {
  const { intents, problems, spans } = validate(text);
  return { intents, problems, spans };
}

function validate(text: string): { intents: Intent[]; problems: RegistryProblem[]; spans: StatusSpans; doc: Document } {
  const lc = new (y().LineCounter)();
  const doc = y().parseDocument(text, { lineCounter: lc, prettyErrors: false, uniqueKeys: true });
  const problems: RegistryProblem[] = [];
  const at = (node: Node | null | undefined): { line?: number; column?: number } => {
    if (!node?.range) return {};
    const { line, col } = lc.linePos(node.range[0]);
    return { line, column: col };
  };
  if (doc.errors.length) {
    for (const e of doc.errors) {
      const pos = lc.linePos(e.pos[0]);
      problems.push({ line: pos.line, column: pos.col, message: `YAML syntax error: ${e.message.split('\n')[0]}` });
    }
    return { intents: [], problems, spans: {}, doc };
  }
  const root = doc.contents;
  if (!y().isMap(root)) {
    problems.push({ ...at(root), message: 'the file must be a mapping with an `active_intents:` list at the top' });
    return { intents: [], problems, spans: {}, doc };
  }
  for (const pair of root.items) {
    const key = y().isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
    if (key !== 'active_intents') problems.push({ ...at(pair.key as Node), message: `unknown top-level key "${key}"; only "active_intents" is allowed` });
  }
  const listNode = root.get('active_intents', true) as Node | undefined;
  if (!root.has('active_intents')) {
    problems.push({ ...at(root), message: 'missing the `active_intents:` list' });
    return { intents: [], problems, spans: {}, doc };
  }
  if (listNode === undefined || listNode === null || (y().isScalar(listNode) && listNode.value === null)) {
    return { intents: [], problems, spans: {}, doc };
  }
  if (!y().isSeq(listNode)) {
    problems.push({ ...at(listNode), field: 'active_intents', message: 'must be a list of intents' });
    return { intents: [], problems, spans: {}, doc };
  }
  const intents: Intent[] = [];
  const spans: StatusSpans = {};
  const seen = new Map<string, number | undefined>();
  listNode.items.forEach((item, i) => {
    const label = `active_intents[${i}]`;
    if (!y().isMap(item)) {
      problems.push({ ...at(item as Node), field: label, message: 'each intent must be a mapping with id, name, status and owned_scope' });
      return;
    }
    // A duplicate id is reported even when the entry has other problems too.
    const rawId = item.get('id');
    if (typeof rawId === 'string' && seen.has(rawId)) {
      const firstLine = seen.get(rawId);
      problems.push({ ...at(item.get('id', true) as Node), intent: rawId, field: 'id', message: `duplicate id; "${rawId}" is already defined${firstLine ? ` on line ${firstLine}` : ''}` });
      checkIntent(item, label, at, problems);
      return;
    }
    if (typeof rawId === 'string') seen.set(rawId, at(item.get('id', true) as Node).line);
    const intent = checkIntent(item, label, at, problems);
    if (!intent) return;
    intents.push(intent);
    const status = spanOf(text, item.get('status', true));
    const updated = spanOf(text, item.get('updated_at', true));
    if (status && (updated || !item.has('updated_at'))) spans[intent.id] = { status, ...(updated ? { updated_at: updated } : {}) };
  });
  return { intents, problems, spans, doc };
}

function spanOf(text: string, node: unknown): ScalarSpan | null {
  if (!y().isScalar(node) || !node.range) return null;
  const style = node.type;
  if (style !== 'PLAIN' && style !== 'QUOTE_SINGLE' && style !== 'QUOTE_DOUBLE') return null;
  const [start, end] = node.range;
  return /[\r\n]/.test(text.slice(start, end)) ? null : { start, end, style };
}

type At = (node: Node | null | undefined) => { line?: number; column?: number };

function checkIntent(item: YAMLMap, label: string, at: At, problems: RegistryProblem[]): Intent | null {
  const before = problems.length;
  const idNode = item.get('id', true) as Node | undefined;
  const rawId = y().isScalar(idNode) ? idNode.value : undefined;
  const who = typeof rawId === 'string' && rawId ? rawId : label;
  const add = (node: Node | null | undefined, field: string, message: string): void => {
    problems.push({ ...at(node ?? item), intent: who, field, message });
  };

  for (const pair of item.items) {
    const key = y().isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
    if (!KNOWN_FIELDS.includes(key)) add(pair.key as Node, key, `unknown field; known fields are ${KNOWN_FIELDS.join(', ')}`);
  }

  if (!item.has('id')) add(item, 'id', 'missing; every intent needs an id such as "INT-001"');
  else if (typeof rawId !== 'string') add(idNode, 'id', `must be a string such as "INT-001", got ${show(rawId)} (quote it)`);
  else if (!INTENT_ID.test(rawId)) add(idNode, 'id', `"${rawId}" is not a valid id: use letters, digits, "-" and "_" (at most 64), starting with a letter or digit`);

  const name = str(item, 'name', true, add);
  const statusNode = item.get('status', true) as Node | undefined;
  const status = y().isScalar(statusNode) ? statusNode.value : undefined;
  if (!item.has('status')) add(item, 'status', `missing; one of ${STATUSES.join(', ')}`);
  else if (typeof status !== 'string' || !(STATUSES as readonly string[]).includes(status)) {
    add(statusNode, 'status', `unknown status ${show(status)}; use one of ${STATUSES.join(', ')}`);
  }

  const scopeNode = item.get('owned_scope', true) as Node | undefined;
  const scope: string[] = [];
  if (!item.has('owned_scope')) add(item, 'owned_scope', 'missing; list the path globs this intent may edit');
  else if (!y().isSeq(scopeNode)) add(scopeNode, 'owned_scope', 'must be a list of path globs');
  else if (scopeNode.items.length === 0) add(scopeNode, 'owned_scope', 'is empty; an intent must own at least one path glob');
  else {
    scopeNode.items.forEach((g, j) => {
      const v = y().isScalar(g) ? g.value : g;
      const problem = globProblem(v);
      if (problem) add(g as Node, `owned_scope[${j}]`, `${typeof v === 'string' ? `"${v}" ` : ''}${problem}`);
      else scope.push(v as string);
    });
    if (scope.length && scope.every((g) => g.startsWith('!'))) add(scopeNode, 'owned_scope', 'has only "!" negations; add at least one glob that grants paths');
  }

  const constraints = strList(item, 'constraints', add);
  const criteria = strList(item, 'acceptance_criteria', add);
  const checks = item.has('acceptance_checks') ? strList(item, 'acceptance_checks', add) : undefined;
  const budget = checkBudget(item, add);
  const agent = str(item, 'assigned_agent', false, add);
  const created = date(item, 'created_at', add);
  const updated = date(item, 'updated_at', add);
  const specs: { type: string; value: string }[] = [];
  const specsNode = item.get('related_specs', true) as Node | undefined;
  if (item.has('related_specs')) {
    if (!y().isSeq(specsNode)) add(specsNode, 'related_specs', 'must be a list of { type, value } mappings');
    else specsNode.items.forEach((s, j) => {
      const t = y().isMap(s) ? s.get('type') : undefined;
      const v = y().isMap(s) ? s.get('value') : undefined;
      if (!y().isMap(s) || typeof t !== 'string' || !t || typeof v !== 'string' || !v) {
        add(s as Node, `related_specs[${j}]`, 'must be a mapping with string "type" and "value", e.g. { type: "specification", value: "REQ-001" }');
      } else specs.push({ type: t, value: v });
    });
  }

  if (problems.length > before) return null;
  return {
    id: rawId as string,
    name: name!,
    status: status as IntentStatus,
    owned_scope: scope,
    constraints,
    acceptance_criteria: criteria,
    ...(agent !== undefined ? { assigned_agent: agent } : {}),
    related_specs: specs,
    ...(created !== undefined ? { created_at: created } : {}),
    ...(updated !== undefined ? { updated_at: updated } : {}),
    ...(checks !== undefined ? { acceptance_checks: checks } : {}),
    ...(budget !== undefined ? { budget } : {}),
  };
}

/** `budget: { max_commits, max_changed_lines, expires_at }`, every key optional. */
function checkBudget(item: YAMLMap, add: Add): Budget | undefined {
  if (!item.has('budget')) return undefined;
  const node = item.get('budget', true) as Node | undefined;
  if (!y().isMap(node)) {
    add(node, 'budget', `must be a mapping such as { max_commits: 20, max_changed_lines: 2000, expires_at: "2026-03-01T00:00:00Z" }, got ${show(y().isScalar(node) ? node.value : node)}`);
    return undefined;
  }
  const out: Budget = {};
  for (const pair of node.items) {
    const key = y().isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
    const valueNode = (pair.value ?? pair.key) as Node | null;
    const v = pair.value === null ? null : y().isScalar(valueNode) ? valueNode.value : valueNode;
    if (!(BUDGET_KEYS as readonly string[]).includes(key)) {
      add(pair.key as Node, `budget.${key}`, `unknown budget key; known keys are ${BUDGET_KEYS.join(', ')}`);
    } else if (key === 'expires_at') {
      if (typeof v !== 'string' || !ISO_DATE.test(v) || Number.isNaN(Date.parse(v)) || !realDay(v)) {
        add(valueNode, 'budget.expires_at', `must be an RFC 3339 date-time string such as "2026-03-01T00:00:00Z", got ${show(v)}`);
      } else out.expires_at = v;
    } else if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) {
      const hint = typeof v === 'string' && /^\s*-?\d+\s*$/.test(v) ? ' (write the number without quotes)' : '';
      add(valueNode, `budget.${key}`, `must be a whole number of at least 1, got ${show(v)}${hint}`);
    } else if (!Number.isSafeInteger(v)) {
      add(valueNode, `budget.${key}`, `is too large (${v}); use at most ${Number.MAX_SAFE_INTEGER}`);
    } else out[key as 'max_commits' | 'max_changed_lines'] = v;
  }
  return out;
}

type Add = (node: Node | null | undefined, field: string, message: string) => void;

function str(item: YAMLMap, key: string, required: boolean, add: Add): string | undefined {
  const node = item.get(key, true) as Node | undefined;
  if (!item.has(key)) {
    if (required) add(item, key, 'missing');
    return undefined;
  }
  const v = y().isScalar(node) ? node.value : undefined;
  if (typeof v !== 'string' || v.trim() === '') {
    add(node, key, `must be a non-empty string, got ${show(y().isScalar(node) ? v : node)}`);
    return undefined;
  }
  // One line of printable text: it is printed in notes' summary lines, status tables and hook messages.
  if (/[\x00-\x1f\x7f]/.test(v)) {
    add(node, key, `must be one line of printable text, got ${JSON.stringify(v)} (line breaks, tabs and control characters are not allowed)`);
    return undefined;
  }
  return v;
}

function strList(item: YAMLMap, key: string, add: Add): string[] {
  if (!item.has(key)) return [];
  const node = item.get(key, true) as Node | undefined;
  if (!y().isSeq(node)) {
    add(node, key, 'must be a list of strings');
    return [];
  }
  const out: string[] = [];
  node.items.forEach((n, j) => {
    const v = y().isScalar(n) ? n.value : n;
    if (typeof v !== 'string' || v.trim() === '') add(n as Node, `${key}[${j}]`, `must be a non-empty string, got ${show(v)}`);
    else out.push(v);
  });
  return out;
}

function date(item: YAMLMap, key: string, add: Add): string | undefined {
  if (!item.has(key)) return undefined;
  const node = item.get(key, true) as Node | undefined;
  const v = y().isScalar(node) ? node.value : undefined;
  if (typeof v !== 'string' || !ISO_DATE.test(v) || Number.isNaN(Date.parse(v)) || !realDay(v)) {
    add(node, key, `must be an RFC 3339 date-time string such as "2026-02-16T12:00:00Z", got ${show(v)}`);
    return undefined;
  }
  return v;
}

/** Date.parse rolls 2026-02-30 over to March; a registry date must name a real day. */
function realDay(v: string): boolean {
  const [y, m, d] = v.slice(0, 10).split('-').map(Number);
  const t = new Date(Date.UTC(y, m - 1, d));
  return t.getUTCFullYear() === y && t.getUTCMonth() === m - 1 && t.getUTCDate() === d;
}

function show(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (y().isSeq(v)) return 'a list';
  if (y().isMap(v)) return 'a mapping';
  return JSON.stringify(v);
}

/** Finds an intent by id (from a cached registry without parsing the others). */
export function findIntent(registry: Registry, id: string): Intent | undefined {
  const lookup = (registry as { [LOOKUP]?: Lookup })[LOOKUP];
  return lookup ? lookup.intent(id) : registry.intents.find((i) => i.id === id);
}

/** The status spans of intent `id` (see StatusSpans), without parsing the intents of a cached registry. */
export function statusSpansOf(registry: Registry, id: string): StatusSpans[string] | undefined {
  const lookup = (registry as { [LOOKUP]?: Lookup })[LOOKUP];
  return lookup ? lookup.spansOf(id) : registry.spans?.[id];
}

/** The intents with `status`, in registry order (on a cached registry, without parsing the others). */
export function intentsWithStatus(registry: Registry, status: IntentStatus): Intent[] {
  const lookup = (registry as { [LOOKUP]?: Lookup })[LOOKUP];
  return lookup ? lookup.withStatus(status) : registry.intents.filter((i) => i.status === status);
}

/**
 * The ids of the intents with `status` (on a cached registry, from the status letters alone: a hook
 * asking about every intent branch would otherwise look up each id among 10,000).
 */
export function idsWithStatus(registry: Registry, status: IntentStatus): Set<string> {
  const lookup = (registry as { [LOOKUP]?: Lookup })[LOOKUP];
  return lookup ? lookup.idsWithStatus(status) : new Set(registry.intents.filter((i) => i.status === status).map((i) => i.id));
}

/** Whether `registry` was read from the cache (then an edit patches the cache instead of rebuilding it). */
export function isCachedRegistry(registry: Registry): boolean {
  return (registry as { [LOOKUP]?: Lookup })[LOOKUP] !== undefined;
}
