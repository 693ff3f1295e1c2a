import type { Node, YAMLMap } from 'yaml';
import { IntentError, type ErrorData } from '../core/errors.js';
import { writeFileAtomic } from '../core/files.js';
import { globProblem } from './scope.js';
import { parseRegistry, parseRegistryDocument, readRegistryText, rememberRegistry, yamlModule as Y, type Intent } from './registry.js';

/** What `intent new` adds: the required fields, and the optional lists it can fill. */
export interface NewIntentSpec {
  id: string;
  name: string;
  owned_scope: string[];
  constraints?: string[];
  acceptance_checks?: string[];
}

const INTENT_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/**
 * Checks what `intent new` was given, before the registry is read: a valid id, a one-line name,
 * at least one granting glob and no invalid one, non-empty constraints and checks (INVALID_INPUT,
 * naming the value and what to write instead).
 */
export function checkNewIntent(spec: NewIntentSpec): void {
  const bad = (message: string, data: ErrorData['INVALID_INPUT']) => new IntentError('INVALID_INPUT', `${message} Nothing was changed.`, data);
  if (!INTENT_ID.test(spec.id)) {
    throw bad(`"${spec.id}" is not a valid intent id: use letters, digits, "-" and "_" (at most 64), starting with a letter or digit, e.g. INT-001.`, { id: spec.id });
  }
  if (spec.name.trim() === '' || /[\x00-\x1f\x7f]/.test(spec.name)) {
    throw bad(`--name must be one non-empty line of text, got ${JSON.stringify(spec.name)}.`, { name: spec.name });
  }
  if (spec.owned_scope.length === 0) throw bad('Give at least one --scope glob: the paths the intent may edit, e.g. --scope "src/auth/**".', {});
  for (const g of spec.owned_scope) {
    const problem = globProblem(g);
    if (problem) throw bad(`--scope ${JSON.stringify(g)} ${problem}.`, { glob: g });
  }
  if (spec.owned_scope.every((g) => g.startsWith('!'))) throw bad('--scope has only "!" negations: add at least one glob that grants paths.', { scope: spec.owned_scope });
  for (const [flag, list] of [['--constraint', spec.constraints], ['--acceptance-check', spec.acceptance_checks]] as const) {
    for (const v of list ?? []) if (v.trim() === '') throw bad(`${flag} must not be empty.`, {});
  }
}

/**
 * Adds a PENDING intent to the end of the registry's `active_intents` list, byte-surgically: the
 * new entry is inserted as text in the list's own style (a block list gets `- id: …` lines with
 * the indentation of its last item; `[]` or an empty value becomes a block list; a flow list gets
 * `, {…}`), every value double-quoted, and nothing else in the file changes: comments, quoting,
 * line endings and layout stay. The result is re-validated (every other intent reads back as it
 * was, the new one as given) before it is written. The caller holds the registry lock and has
 * checked `spec` (checkNewIntent). Refuses an id that is already there (INTENT_EXISTS).
 */
export function addIntent(path: string, spec: NewIntentSpec, now = new Date()): Intent {
  const text = readRegistryText(path);
  const { registry, doc } = parseRegistryDocument(text, path);
  const existing = registry.intents.find((i) => i.id === spec.id);
  if (existing) {
    throw new IntentError(
      'INTENT_EXISTS',
      `Intent ${spec.id} is already in ${path} (${existing.status}: ${existing.name}). Nothing was changed. Choose another id, or edit that entry by hand.`,
      { intent: spec.id, path, status: existing.status },
    );
  }
  const nl = text.includes('\r\n') ? '\r\n' : '\n';
  const fields = entryFields(spec, now);
  const root = doc.contents as YAMLMap;
  const list = root.get('active_intents', true) as Node | null | undefined;
  const keyNode = root.items.find((p) => Y().isScalar(p.key) && p.key.value === 'active_intents')!.key as Node;
  let out: string;
  if (Y().isSeq(list) && list.items.length > 0 && list.flow) {
    const last = list.items[list.items.length - 1] as Node;
    const at = last.range![1];
    const flowEntry = `{ ${fields.map(([k, v]) => `${k}: ${v}`).join(', ')} }`;
    const spansLines = text.slice(list.range![0], list.range![1]).includes('\n');
    out = text.slice(0, at) + (spansLines ? `,${nl}${indentOf(text, last.range![0])}` : ', ') + flowEntry + text.slice(at);
  } else if (Y().isSeq(list) && list.items.length > 0) {
    const last = list.items[list.items.length - 1] as Node;
    const lineStart = text.lastIndexOf('\n', last.range![0] - 1) + 1;
    const prefix = text.slice(lineStart, last.range![0]);
    const dash = /^([ \t]*)-([ \t]+)$/.exec(prefix);
    const itemIndent = dash ? dash[1] : ' '.repeat(columnOf(text, list.range![0]));
    const block = blockEntry(fields, itemIndent, dash ? dash[2] : ' ', nl);
    const end = last.range![1];
    if (end > 0 && text[end - 1] === '\n') out = text.slice(0, end) + block + text.slice(end);
    else {
      const eol = text.indexOf('\n', end);
      out = eol < 0 ? text + nl + block.slice(0, -nl.length) : text.slice(0, eol + 1) + block + text.slice(eol + 1);
    }
  } else {
    // `active_intents: []`, or no value at all: the list starts on the key's line's next line.
    const emptyFlow = Y().isSeq(list) && list.flow && list.range;
    const from = emptyFlow ? list.range![1] : keyNode.range![1];
    const eol = text.indexOf('\n', from);
    const at = eol < 0 ? text.length : eol > 0 && text[eol - 1] === '\r' ? eol - 1 : eol;
    const block = blockEntry(fields, '  ', ' ', nl);
    let head = text.slice(0, at);
    if (emptyFlow) head = text.slice(0, list.range![0]).replace(/[ \t]+$/, '') + text.slice(list.range![1], at);
    out = head + nl + block.slice(0, -nl.length) + text.slice(at);
  }
  // Never write a file that does not say exactly what we meant.
  let after: ReturnType<typeof parseRegistry> | null = null;
  try {
    after = parseRegistry(out, path);
  } catch { /* reported below */ }
  const added = after?.intents.find((i) => i.id === spec.id);
  const same = after && JSON.stringify(after.intents.filter((i) => i.id !== spec.id)) === JSON.stringify(registry.intents);
  if (!after || !added || !same || added.name !== spec.name || JSON.stringify(added.owned_scope) !== JSON.stringify(spec.owned_scope)) {
    throw new IntentError('WRITE_FAILED', `Could not add ${spec.id} to ${path} without changing the rest of the file's meaning; the file was left as it was. Add the entry by hand (see the example at the top of the file).`, { path, intent: spec.id });
  }
  writeFileAtomic(path, out);
  rememberRegistry(path, out, after);
  return added;
}

/** The new entry's keys and YAML values (double-quoted: JSON strings are YAML double-quoted scalars). */
function entryFields(spec: NewIntentSpec, now: Date): [string, string][] {
  const q = (s: string) => JSON.stringify(s);
  const list = (xs: string[]) => `[${xs.map(q).join(', ')}]`;
  const fields: [string, string][] = [['id', q(spec.id)], ['name', q(spec.name)], ['status', q('PENDING')], ['owned_scope', list(spec.owned_scope)]];
  if (spec.constraints?.length) fields.push(['constraints', list(spec.constraints)]);
  if (spec.acceptance_checks?.length) fields.push(['acceptance_checks', list(spec.acceptance_checks)]);
  fields.push(['created_at', q(now.toISOString().replace(/\.\d{3}Z$/, 'Z'))]);
  return fields;
}

/** `<indent>-<gap>id: …` then one line per field under it, each ending with `nl`. */
function blockEntry(fields: [string, string][], indent: string, gap: string, nl: string): string {
  const inner = indent + ' '.repeat(1 + gap.length);
  return fields.map(([k, v], i) => `${i === 0 ? `${indent}-${gap}` : inner}${k}: ${v}${nl}`).join('');
}

function columnOf(text: string, at: number): number {
  return at - (text.lastIndexOf('\n', at - 1) + 1);
}

/** The whitespace in front of the line that holds offset `at`. */
function indentOf(text: string, at: number): string {
  const lineStart = text.lastIndexOf('\n', at - 1) + 1;
  return /^[ \t]*/.exec(text.slice(lineStart, at))![0];
}
