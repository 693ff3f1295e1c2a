import { blame } from '../lib/trace/index.js';
import { emit } from './output.js';

/** `intent blame <file>`: who wrote each line, under which intent. */
export function run(opts: { cwd: string; file: string; json: boolean }): void {
  const r = blame(opts.cwd, opts.file);
  emit(opts.json, r, () => {
    const who = (l: (typeof r.lines)[number]) => (l.contributor === 'ai' ? `ai:${l.model_id ?? '?'}` : l.contributor ?? '-');
    const wWho = Math.max(5, ...r.lines.map((l) => who(l).length));
    const wIntent = Math.max(6, ...r.lines.map((l) => (l.intent ?? '-').length));
    const wNum = String(r.lines.length).length;
    return r.lines
      .map((l) => `${(l.commit ?? 'uncommitted').slice(0, 11).padEnd(11)} ${(l.intent ?? '-').padEnd(wIntent)} ${who(l).padEnd(wWho)} ${l.imported ? '~' : l.source === 'hash' ? '#' : ' '} ${String(l.line).padStart(wNum)}| ${l.text}`)
      .join('\n') + (r.lines.length ? '\n' : '');
  });
}
