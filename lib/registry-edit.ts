import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isMap, isScalar, isSeq, parse, parseDocument, Scalar, type Node, type YAMLMap } from 'yaml';
import { IntentError } from './errors.js';
import { writeFileAtomic } from './fsutil.js';
import { parseRegistry, type IntentStatus } from './registry.js';
import { stateDir, type Repo } from './repo.js';

/** The lock every edit of the main worktree's registry holds (shared by all worktrees). */
export function registryLockPath(repo: Repo): string {
  return join(stateDir(repo), 'registry.lock');
}

/**
 * Sets one intent's status in the registry file by rewriting only the bytes of that value (and of
 * `updated_at` when the intent has one), so the file's comments, quoting and layout stay as the
 * human wrote them. The caller holds the registry lock. Returns false when nothing changed.
 */
export function setIntentStatus(path: string, id: string, status: IntentStatus, now = new Date()): boolean {
  const { text, item } = openIntent(path, id);
  const edits: Edit[] = [];
  const statusNode = item.get('status', true) as Node;
  if (isScalar(statusNode) && statusNode.value === status) return false;
  edits.push(replaceScalar(statusNode as Scalar, status));
  const stamp = touchUpdatedAt(item, now);
  if (stamp) edits.push(stamp);
  writeFileAtomic(path, applyEdits(text, edits));
  return true;
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
  const last = isSeq(seq) ? (seq.items[seq.items.length - 1] as Node | undefined) : undefined;
  if (!isSeq(seq) || !isScalar(last) || !last.range || !seq.range) {
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
  const after = parseRegistry(out, path).intents.find((i) => i.id === id)?.owned_scope;
  if (!after || JSON.stringify(after) !== JSON.stringify([...before, ...added])) {
    throw new IntentError('WRITE_FAILED', `Could not append ${added.join(', ')} to the owned_scope of ${id} in ${path} without changing its meaning; the file was left as it was. Add the globs by hand.`, { path, intent: id, globs: added });
  }
  writeFileAtomic(path, out);
  return added;
}

interface Edit {
  start: number;
  end: number;
  text: string;
}

function openIntent(path: string, id: string): { text: string; item: YAMLMap; registry: ReturnType<typeof parseRegistry> } {
  const text = readFileSync(path, 'utf8');
  const registry = parseRegistry(text, path); // refuse to edit a file that does not validate
  const doc = parseDocument(text);
  const list = isMap(doc.contents) ? doc.contents.get('active_intents', true) : undefined;
  const item = isSeq(list) ? list.items.find((it) => isMap(it) && it.get('id') === id) : undefined;
  if (!isMap(item)) throw new IntentError('UNKNOWN_INTENT', `Intent ${id} is not in ${path}.`, { intent: id, path });
  return { text, item, registry };
}

function touchUpdatedAt(item: YAMLMap, now: Date): Edit | null {
  const updated = item.get('updated_at', true) as Node | undefined;
  return isScalar(updated) ? replaceScalar(updated, now.toISOString().replace(/\.\d{3}Z$/, 'Z')) : null;
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
  if (node.type === Scalar.QUOTE_SINGLE) return `'${value}'`;
  if (node.type === Scalar.QUOTE_DOUBLE) return JSON.stringify(value);
  return /^[A-Za-z0-9_.:+-]+$/.test(value) && parse(value) === value ? value : JSON.stringify(value);
}

/** A glob written in the style of `like`: single or double quotes, or plain where YAML reads it back unchanged. */
function quoteLike(like: Scalar, value: string, flow: boolean): string {
  if (like.type === Scalar.QUOTE_SINGLE) return `'${value.replace(/'/g, "''")}'`;
  if (like.type === Scalar.PLAIN && plainIsSafe(value, flow)) return value;
  return JSON.stringify(value);
}

function plainIsSafe(value: string, flow: boolean): boolean {
  if (value !== value.trim() || /[#\r\n\t]|: |:$/.test(value)) return false;
  try {
    const back = parse(flow ? `[${value}]` : `- ${value}`, { logLevel: 'error' }) as unknown;
    return Array.isArray(back) && back.length === 1 && back[0] === value;
  } catch {
    return false;
  }
}
