import { checkRegistry, type Intent } from './registry.js';

/**
 * Intent `id` as the registry text `text` (a committed version) has it: the intent, or null when
 * the text does not list it (or does not parse there). A registry of thousands of intents takes
 * seconds to parse, so the id's own block-list item is cut out and parsed alone when it can be
 * found (`- id: X` or an `id: X` line under a `-` line); the whole text is parsed otherwise, or
 * when the cut-out item does not read back as intent `id`.
 */
export function committedIntent(text: string, id: string): Intent | null {
  if (!text.includes(id)) return null;
  const item = itemText(text, id);
  if (item !== null) {
    const one = checkRegistry(`active_intents:\n${item}`);
    if (one.problems.length === 0 && one.intents.length === 1 && one.intents[0].id === id) return one.intents[0];
  }
  return checkRegistry(text).intents.find((i) => i.id === id) ?? null;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The lines of the block-list item whose `id` is `id`, or null when that is not plain to see. */
function itemText(text: string, id: string): string | null {
  const lines = text.split('\n');
  const idLine = new RegExp(`^([ \\t]*)(-[ \\t]+)?id:[ \\t]*(["']?)${escape(id)}\\3[ \\t]*(#.*)?\\r?$`);
  const hits = lines.flatMap((l, n) => (idLine.test(l) ? [n] : []));
  if (hits.length !== 1) return null;
  let start = hits[0];
  while (start >= 0 && !/^[ \t]*-([ \t]|$)/.test(lines[start])) start--;
  if (start < 0) return null;
  const dash = /^([ \t]*)-/.exec(lines[start])![1].length;
  let end = hits[0] + 1;
  for (; end < lines.length; end++) {
    const l = lines[end];
    if (/^[ \t]*(#.*)?\r?$/.test(l)) continue;
    if (/^[ \t]*/.exec(l)![0].length <= dash) break;
  }
  const body = lines.slice(start, end).map((l) => l.replace(/\r$/, ''));
  return body.map((l) => (/^[ \t]*(#.*)?$/.test(l) ? '' : '  ' + l.slice(dash))).join('\n') + '\n';
}
