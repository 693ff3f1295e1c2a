import { createHash } from 'node:crypto';
import { isUtf8 } from 'node:buffer';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Document, Node, YAMLMap } from 'yaml';
import { IntentError } from '../core/errors.js';
import { writeFileAtomic } from '../core/files.js';
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
  const text = readRegistryText(path);
  return { text, registry: registryOfText(path, text) };
}

/** A registry file's text; throws REGISTRY_MISSING, or REGISTRY_INVALID when it is unreadable or not UTF-8. */
export function readRegistryText(path: string): string {
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
  return text;
}

/** Reads and validates a registry file; throws REGISTRY_MISSING or REGISTRY_INVALID. */
export function loadRegistry(path: string): Registry {
  return readRegistry(path).registry;
}

function registryOfText(path: string, text: string): Registry {
  const cache = cacheFile(path);
  if (cache) {
    try {
      const hit = readCache(path, cache, cacheKey(text));
      if (hit) return hit;
    } catch { /* no cache yet, or not ours */ }
  }
  const registry = parseRegistry(text, path);
  rememberRegistry(path, text, registry);
  return registry;
}

/**
 * The registry cache is one header line, `{"key":…,"index":{"<id>":["<status>",<offset>],…},"spans":<offset>}`,
 * then one line per intent (its JSON) in registry order, then one line with the status spans
 * (offsets count bytes from the first intent line). A hook needs one intent and the statuses of a
 * few: it parses the header and that one line, not the whole registry (10,000 intents are
 * megabytes of JSON); the full list is parsed only when a caller reads `intents` or `spans`. A
 * status edit rewrites the header, that intent's line and the spans line, and copies the rest.
 */
interface CacheHead {
  key: string;
  index: Record<string, [IntentStatus, number]>;
  spans: number;
}

/** What a registry read from the cache keeps of the file, for `rememberStatusEdit`. */
interface CacheRaw {
  buf: Buffer;
  body: number;
  head: CacheHead;
}

function readCache(path: string, cache: string, key: string): Registry | null {
  const buf = readFileSync(cache);
  const nl = buf.indexOf(0x0a);
  if (nl < 0) return null;
  const head = JSON.parse(buf.toString('utf8', 0, nl)) as Partial<CacheHead>;
  if (head.key !== key || !head.index || typeof head.index !== 'object' || typeof head.spans !== 'number') return null;
  const index = head.index;
  const body = nl + 1;
  const spansAt = body + head.spans;
  const lineAt = (offset: number): Intent => {
    const end = buf.indexOf(0x0a, body + offset);
    return JSON.parse(buf.toString('utf8', body + offset, end)) as Intent;
  };
  let spansOnly: StatusSpans | null = null;
  const spans = (): StatusSpans => (spansOnly ??= JSON.parse(buf.toString('utf8', spansAt).trim()) as StatusSpans);
  let full: { intents: Intent[]; spans: StatusSpans } | null = null;
  const all = (): { intents: Intent[]; spans: StatusSpans } => {
    if (full) return full;
    const intents = buf.toString('utf8', body, spansAt).split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Intent);
    return (full = { intents, spans: spans() });
  };
  const registry = { path } as Registry;
  Object.defineProperty(registry, 'intents', { enumerable: true, configurable: true, get: () => all().intents });
  Object.defineProperty(registry, 'spans', { enumerable: true, configurable: true, get: () => all().spans });
  Object.defineProperty(registry, LOOKUP, {
    value: {
      status: (id: string) => (Object.hasOwn(index, id) ? index[id][0] : undefined),
      intent: (id: string) => (full ? full.intents.find((i) => i.id === id) : Object.hasOwn(index, id) ? lineAt(index[id][1]) : undefined),
      spans,
      raw: { buf, body, head: head as CacheHead },
    } satisfies Lookup,
  });
  return registry;
}

/** Answers about single intents without parsing the whole cached registry (see readCache). */
interface Lookup {
  status(id: string): IntentStatus | undefined;
  intent(id: string): Intent | undefined;
  spans(): StatusSpans;
  raw: CacheRaw;
}
const LOOKUP = Symbol('registry lookup');

/**
 * Caches `registry`, validated from `text`, for the next `loadRegistry` of `path` (the registry
 * edits call it after writing, so the next hook does not have to parse the file again).
 */
export function rememberRegistry(path: string, text: string, registry: Registry): void {
  const cache = cacheFile(path);
  if (!cache) return;
  try {
    const index: Record<string, [IntentStatus, number]> = {};
    const lines: string[] = [];
    let offset = 0;
    for (const intent of registry.intents) {
      const line = JSON.stringify(intent);
      index[intent.id] = [intent.status, offset];
      lines.push(`${line}\n`);
      offset += Buffer.byteLength(line) + 1;
    }
    const head: CacheHead = { key: cacheKey(text), index, spans: offset };
    writeFileAtomic(cache, `${JSON.stringify(head)}\n${lines.join('')}${JSON.stringify(registry.spans ?? {})}\n`);
  } catch { /* a cache only: never fail for it */ }
}

/**
 * After an edit that changed only intent `id` (to `intent`) and moved the status spans (`spans`
 * maps the old ones to the new): caches the new `text` by patching the cache `registry` was read
 * from (its header, that intent's line and the spans line; every other line is copied as bytes).
 * Returns false when `registry` did not come from the cache (then call rememberRegistry).
 */
export function rememberStatusEdit(path: string, text: string, registry: Registry, intent: Intent, spans: (old: StatusSpans) => StatusSpans): boolean {
  const raw = (registry as { [LOOKUP]?: Lookup })[LOOKUP]?.raw;
  const cache = cacheFile(path);
  if (!raw || !cache || !Object.hasOwn(raw.head.index, intent.id)) return false;
  try {
    const { buf, body, head } = raw;
    const at = head.index[intent.id][1];
    const end = buf.indexOf(0x0a, body + at) - body;
    const line = Buffer.from(JSON.stringify(intent), 'utf8');
    const delta = line.length - (end - at);
    const index: Record<string, [IntentStatus, number]> = {};
    for (const [k, [st, off]] of Object.entries(head.index)) index[k] = k === intent.id ? [intent.status, off] : [st, off > at ? off + delta : off];
    const oldSpans = JSON.parse(buf.toString('utf8', body + head.spans).trim()) as StatusSpans;
    const out = Buffer.concat([
      Buffer.from(`${JSON.stringify({ key: cacheKey(text), index, spans: head.spans + delta })}\n`, 'utf8'),
      buf.subarray(body, body + at),
      line,
      buf.subarray(body + end, body + head.spans),
      Buffer.from(`${JSON.stringify(spans(oldSpans))}\n`, 'utf8'),
    ]);
    writeFileAtomic(cache, out);
    return true;
  } catch {
    return false;
  }
}

function cacheKey(text: string): string {
  return createHash('sha256').update(`${TOOL_VERSION}\0${text}`).digest('hex');
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
  return (lookup ? lookup.spans() : registry.spans)?.[id];
}

/** The status of intent `id`, or undefined when the registry has no such intent (cheap on a cached registry). */
export function statusOf(registry: Registry, id: string): IntentStatus | undefined {
  const lookup = (registry as { [LOOKUP]?: Lookup })[LOOKUP];
  return lookup ? lookup.status(id) : registry.intents.find((i) => i.id === id)?.status;
}
