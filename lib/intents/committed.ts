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
  const idLine = new RegExp(`^[ \\t]*(-[ \\t]+)?id:[ \\t]*(${escape(id)}|"${escape(id)}"|'${escape(id)}')[ \\t]*(#.*)?\\r?$`);
  const lineAt = (start: number) => {
    const end = text.indexOf('\n', start);
    return text.slice(start, end < 0 ? text.length : end);
  };
  // Only the lines that hold the id are tested (a registry of 10,000 intents has 40,000 lines).
  const hits = new Set<number>();
  for (let at = text.indexOf(id); at >= 0; at = text.indexOf(id, at + 1)) {
    const start = text.lastIndexOf('\n', at - 1) + 1;
    if (idLine.test(lineAt(start))) hits.add(start);
  }
  if (hits.size !== 1) return null;
  const hit = [...hits][0];
  let start = hit;
  while (!/^[ \t]*-([ \t]|\r?$)/.test(lineAt(start))) {
    if (start === 0) return null;
    start = text.lastIndexOf('\n', start - 2) + 1;
  }
  const dash = /^[ \t]*/.exec(lineAt(start))![0].length;
  let end = text.indexOf('\n', hit);
  while (end >= 0 && end + 1 < text.length) {
    const line = lineAt(end + 1);
    if (!/^[ \t]*(#.*)?\r?$/.test(line) && /^[ \t]*/.exec(line)![0].length <= dash) break;
    end = text.indexOf('\n', end + 1);
  }
  const body = text.slice(start, end < 0 ? text.length : end).split('\n').map((l) => l.replace(/\r$/, ''));
  return body.map((l) => (/^[ \t]*(#.*)?$/.test(l) ? '' : '  ' + l.slice(dash))).join('\n') + '\n';
}
