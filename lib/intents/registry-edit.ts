import { join } from 'node:path';
import type { Node, Scalar, YAMLMap } from 'yaml';
import { IntentError } from '../core/errors.js';
import { writeFileAtomic } from '../core/files.js';
import { findIntent, isCachedRegistry, parseRegistry, parseRegistryDocument, readRegistry, readRegistryText, rememberRegistry, rememberStatusEdit, shiftStatusSpans, statusSpansOf, type Intent, yamlModule as Y, type IntentStatus, type Registry, type ScalarSpan } from './registry.js';
import { stateDir, type Repo } from '../git/repo.js';

/** The lock every edit of the main worktree's registry holds (shared by all worktrees). */
export function registryLockPath(repo: Repo): string {
  return join(stateDir(repo), 'registry.lock');
}

/**
 * Sets one intent's status in the registry file by rewriting only the bytes of that value (and of
 * `updated_at` when the intent has one), so the file's comments, quoting and layout stay as the
 * human wrote them. The caller holds the registry lock. Returns false when nothing changed.
 * `known`: the text and registry the caller read earlier, used when the file has not changed since.
 */
export function setIntentStatus(path: string, id: string, status: IntentStatus, now = new Date(), known?: { text: string; registry: Registry }): boolean {
  const current = readKnown(path, known);
  const intent = findIntent(current.registry, id);
  if (intent?.status === status) return false;
  const spans = statusSpansOf(current.registry, id);
  if (intent && spans) {
    setStatusAtSpans(path, current.text, current.registry, id, spans, status, now);
    return true;
  }
  const { text, item } = openIntent(path, id, current.text);
  const edits: Edit[] = [];
  const statusNode = item.get('status', true) as Node;
  if (Y().isScalar(statusNode) && statusNode.value === status) return false;
  edits.push(replaceScalar(statusNode as Scalar, status));
  const stamp = touchUpdatedAt(item, now);
  if (stamp) edits.push(stamp);
  const out = applyEdits(text, edits);
  // Never write a file that does not say exactly what we meant.
  let after: Registry | null = null;
  try {
    after = parseRegistry(out, path);
  } catch { /* reported below */ }
  if (!after || findIntent(after, id)?.status !== status) {
    throw new IntentError('WRITE_FAILED', `Could not set the status of ${id} to ${status} in ${path} without changing its meaning; the file was left as it was. Set it by hand.`, { path, intent: id, status });
  }
  writeFileAtomic(path, out);
  rememberRegistry(path, out, after);
  return true;
}

/**
 * The registry file's text and registry: `known` (what the caller read earlier) when the file
 * still has exactly that text (the registry of the same bytes is the same), else read again.
 */
function readKnown(path: string, known?: { text: string; registry: Registry }): { text: string; registry: Registry } {
  if (!known) return readRegistry(path);
  const text = readRegistryText(path);
  // A parsed registry is read again: the cache its parse wrote lets the edit patch it.
  return text === known.text && isCachedRegistry(known.registry) ? known : readRegistry(path);
}

/**
 * Appends `globs` to one intent's `owned_scope` in the registry file, byte-surgically: a flow
 * sequence (`[a, b]`) gets `, c` after its last item (on a new line of the same indentation when
 * the sequence spans lines), a block sequence gets a new `- c` line right after its last item's
 * line, with the same indentation; each new glob is quoted like the last existing one (plain only
 * where plain is safe). Globs already in the scope are skipped. `updated_at` is bumped when the
 * intent has one. Nothing else changes: comments, quoting, line endings and layout stay. The
 * result is re-validated before it is written. The caller holds the registry lock. Returns the
 * globs actually added (empty: the file was not touched).
 */
export function addScopeGlobs(path: string, id: string, globs: readonly string[], now = new Date()): string[] {
  const { text, item, registry } = openIntent(path, id);
  const before = registry.intents.find((i) => i.id === id)!.owned_scope;
  const added = [...new Set(globs)].filter((g) => !before.includes(g));
  if (added.length === 0) return [];
  const seq = item.get('owned_scope', true) as unknown;
  const last = Y().isSeq(seq) ? (seq.items[seq.items.length - 1] as Node | undefined) : undefined;
  if (!Y().isSeq(seq) || !Y().isScalar(last) || !last.range || !seq.range) {
    throw new IntentError('REGISTRY_INVALID', `Cannot widen ${id} in ${path}: its owned_scope is not a list of globs that can be appended to. Add ${added.join(', ')} by hand.`, { path, intent: id });
  }
  const nl = text.includes('\r\n') ? '\r\n' : '\n';
  const edits: Edit[] = [];
  if (seq.flow) {
    const at = last.range[1];
    const spansLines = text.slice(seq.range[0], seq.range[1]).includes('\n');
    const sep = spansLines ? `,${nl}${indentOf(text, last.range[0])}` : ', ';
    edits.push({ start: at, end: at, text: added.map((g) => sep + quoteLike(last, g, true)).join('') });
  } else {
    const lineStart = text.lastIndexOf('\n', last.range[0] - 1) + 1;
    let prefix = text.slice(lineStart, last.range[0]);
    if (!/^[ \t]*-[ \t]+$/.test(prefix)) {
      const seqLine = text.lastIndexOf('\n', seq.range[0] - 1) + 1;
      prefix = ' '.repeat(seq.range[0] - seqLine) + '- ';
    }
    const eol = text.indexOf('\n', last.range[1]);
    const lines = added.map((g) => prefix + quoteLike(last, g, false));
    if (eol < 0) edits.push({ start: text.length, end: text.length, text: lines.map((l) => nl + l).join('') });
    else edits.push({ start: eol + 1, end: eol + 1, text: lines.map((l) => l + nl).join('') });
  }
  const stamp = touchUpdatedAt(item, now);
  if (stamp) edits.push(stamp);
  const out = applyEdits(text, edits);
  // Never write a file that does not say exactly what we meant.
  const validated = parseRegistry(out, path);
  const after = validated.intents.find((i) => i.id === id)?.owned_scope;
  if (!after || JSON.stringify(after) !== JSON.stringify([...before, ...added])) {
    throw new IntentError('WRITE_FAILED', `Could not append ${added.join(', ')} to the owned_scope of ${id} in ${path} without changing its meaning; the file was left as it was. Add the globs by hand.`, { path, intent: id, globs: added });
  }
  writeFileAtomic(path, out);
  rememberRegistry(path, out, validated);
  return added;
}

interface Edit {
  start: number;
  end: number;
  text: string;
}

/**
 * setIntentStatus without YAML: the spans of the status and updated_at values come from the
 * validated parse of exactly this text (the registry cache is keyed by its bytes), and the new
 * values (a status name, an RFC 3339 time) are written in the same quoting, where each reads back
 * as itself, so the file's meaning changes in those two values only. The new text's registry
 * and spans are derived, not parsed, and cached for the next reader.
 */
function setStatusAtSpans(path: string, text: string, registry: Registry, id: string, spans: NonNullable<Registry['spans']>[string], status: IntentStatus, now: Date): void {
  const stamp = stampOf(now);
  const edits: Edit[] = [{ start: spans.status.start, end: spans.status.end, text: quoteAs(spans.status, status) }];
  if (spans.updated_at) edits.push({ start: spans.updated_at.start, end: spans.updated_at.end, text: quoteAs(spans.updated_at, stamp) });
  const out = applyEdits(text, edits);
  const edited = (i: Intent): Intent => ({ ...i, status, ...(spans.updated_at ? { updated_at: stamp } : {}) });
  const bytes = Buffer.from(out, 'utf8');
  writeFileAtomic(path, bytes);
  // A cached registry's cache is patched (one status letter, one intent's line, the edit list), not rewritten.
  const before = findIntent(registry, id);
  if (before && rememberStatusEdit(path, bytes, registry, edited(before), edits)) return;
  const intents = registry.intents.map((i) => (i.id === id ? edited(i) : i));
  rememberRegistry(path, out, { path, intents, spans: shiftStatusSpans(registry.spans ?? {}, edits) });
}

function quoteAs(span: ScalarSpan, value: string): string {
  return span.style === 'QUOTE_SINGLE' ? `'${value}'` : span.style === 'QUOTE_DOUBLE' ? JSON.stringify(value) : value;
}

function stampOf(now: Date): string {
  return now.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function openIntent(path: string, id: string, text = readRegistryText(path)): { text: string; item: YAMLMap; registry: Registry } {
  const { registry, doc } = parseRegistryDocument(text, path); // refuse to edit a file that does not validate
  const list = Y().isMap(doc.contents) ? doc.contents.get('active_intents', true) : undefined;
  const item = Y().isSeq(list) ? list.items.find((it) => Y().isMap(it) && it.get('id') === id) : undefined;
  if (!Y().isMap(item)) throw new IntentError('UNKNOWN_INTENT', `Intent ${id} is not in ${path}.`, { intent: id, path });
  return { text, item, registry };
}

function touchUpdatedAt(item: YAMLMap, now: Date): Edit | null {
  const updated = item.get('updated_at', true) as Node | undefined;
  return Y().isScalar(updated) ? replaceScalar(updated, stampOf(now)) : null;
}

function replaceScalar(node: Scalar, value: string): Edit {
  return { start: node.range![0], end: node.range![1], text: formatLike(node, value) };
}

/** Applies non-overlapping edits, last first, so earlier offsets stay valid. */
function applyEdits(text: string, edits: Edit[]): string {
  let out = text;
  for (const e of [...edits].sort((a, b) => b.start - a.start)) out = out.slice(0, e.start) + e.text + out.slice(e.end);
  return out;
}

/** The whitespace in front of the line that holds offset `at`. */
function indentOf(text: string, at: number): string {
  const lineStart = text.lastIndexOf('\n', at - 1) + 1;
  return /^[ \t]*/.exec(text.slice(lineStart, at))![0];
}

function formatLike(node: Scalar, value: string): string {
  if (node.type === Y().Scalar.QUOTE_SINGLE) return `'${value}'`;
  if (node.type === Y().Scalar.QUOTE_DOUBLE) return JSON.stringify(value);
  return /^[A-Za-z0-9_.:+-]+$/.test(value) && Y().parse(value) === value ? value : JSON.stringify(value);
}

/** A glob written in the style of `like`: single or double quotes, or plain where YAML reads it back unchanged. */
function quoteLike(like: Scalar, value: string, flow: boolean): string {
  if (like.type === Y().Scalar.QUOTE_SINGLE) return `'${value.replace(/'/g, "''")}'`;
  if (like.type === Y().Scalar.PLAIN && plainIsSafe(value, flow)) return value;
  return JSON.stringify(value);
}

function plainIsSafe(value: string, flow: boolean): boolean {
  if (value !== value.trim() || /[#\r\n\t]|: |:$/.test(value)) return false;
  try {
    const back = Y().parse(flow ? `[${value}]` : `- ${value}`, { logLevel: 'error' }) as unknown;
    return Array.isArray(back) && back.length === 1 && back[0] === value;
  } catch {
    return false;
  }
}
