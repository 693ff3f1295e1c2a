import { appendLesson, checkLessonTag, resolveIntentId } from '../lib/intents/index.js';
import { openRepo } from '../lib/git/index.js';
import { emit } from './output.js';

/**
 * `intent lesson "<text>"`: appends a lesson to the main worktree's `.orchestration/AGENT.md`.
 * Without --intent, a lesson recorded in an intent worktree is tagged with that worktree's intent.
 */
export function run(opts: { cwd: string; text: string; intent?: string; json: boolean }): void {
  let intentId: string | null;
  if (opts.intent !== undefined) intentId = /^general$/i.test(opts.intent.trim()) ? null : opts.intent.trim();
  else intentId = resolveIntentId(openRepo(opts.cwd))?.id ?? null;
  checkLessonTag(openRepo(opts.cwd), intentId);
  const r = appendLesson(opts.cwd, { text: opts.text, intentId });
  const tag = r.lesson.intentId ?? 'general';
  emit(opts.json, r, () =>
    r.appended
      ? `Recorded lesson for ${tag} in ${r.path}: ${r.lesson.title}\n`
      : `Already recorded for ${tag} in ${r.path} (not appended again): ${r.lesson.title}\n`);
}
