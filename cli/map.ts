import { renderMap, writeMap, buildMap } from '../lib/trace/index.js';
import { emit } from './output.js';

/** `intent map`: regenerate .orchestration/intent_map.md from the notes. */
export function run(opts: { cwd: string; json: boolean; stdout: boolean }): void {
  if (opts.stdout) {
    const map = buildMap(opts.cwd);
    emit(opts.json, map, () => renderMap(map));
    return;
  }
  const r = writeMap(opts.cwd);
  emit(opts.json, { path: r.path, changed: r.changed, ...r.map }, () =>
    `intent: ${r.changed ? 'wrote' : 'unchanged'} ${r.path} (${r.map.intents.length} intent${r.map.intents.length === 1 ? '' : 's'}, ${r.map.commits} commit${r.map.commits === 1 ? '' : 's'})\n`);
}
