import { readFileSync } from 'node:fs';
import { isMap, isScalar, isSeq, parse, parseDocument, Scalar, type Node } from 'yaml';
import { IntentError } from './errors.js';
import { writeFileAtomic } from './fsutil.js';
import { parseRegistry, type IntentStatus } from './registry.js';

/**
 * Sets one intent's status in the registry file by rewriting only the bytes of that value (and of
 * `updated_at` when the intent has one), so the file's comments, quoting and layout stay as the
 * human wrote them. The caller holds the registry lock. Returns false when nothing changed.
 */
export function setIntentStatus(path: string, id: string, status: IntentStatus, now = new Date()): boolean {
  const text = readFileSync(path, 'utf8');
  parseRegistry(text, path); // refuse to edit a file that does not validate
  const doc = parseDocument(text);
  const list = isMap(doc.contents) ? doc.contents.get('active_intents', true) : undefined;
  const item = isSeq(list) ? list.items.find((it) => isMap(it) && it.get('id') === id) : undefined;
  if (!isMap(item)) throw new IntentError('UNKNOWN_INTENT', `Intent ${id} is not in ${path}.`, { intent: id, path });
  const edits: { node: Scalar; value: string }[] = [];
  const statusNode = item.get('status', true) as Node;
  if (isScalar(statusNode) && statusNode.value === status) return false;
  edits.push({ node: statusNode as Scalar, value: status });
  const updated = item.get('updated_at', true) as Node | undefined;
  if (isScalar(updated)) edits.push({ node: updated, value: now.toISOString().replace(/\.\d{3}Z$/, 'Z') });
  let out = text;
  for (const e of edits.sort((a, b) => b.node.range![0] - a.node.range![0])) {
    const [start, end] = e.node.range!;
    out = out.slice(0, start) + formatLike(e.node, e.value) + out.slice(end);
  }
  writeFileAtomic(path, out);
  return true;
}

function formatLike(node: Scalar, value: string): string {
  if (node.type === Scalar.QUOTE_SINGLE) return `'${value}'`;
  if (node.type === Scalar.QUOTE_DOUBLE) return JSON.stringify(value);
  return /^[A-Za-z0-9_.:+-]+$/.test(value) && parse(value) === value ? value : JSON.stringify(value);
}
