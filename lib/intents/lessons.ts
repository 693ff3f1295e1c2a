import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { IntentError } from '../core/errors.js';
import { stripInvisible } from '../core/invisible.js';
import { withLock } from '../core/lock.js';
import { openRepo, orchestrationPath, stateDir, type Repo } from '../git/repo.js';
import { resolveIntentId } from './active.js';
import { findIntent, loadRegistry } from './registry.js';
import { compileScope } from './scope.js';
import { PKG_ROOT } from '../core/version.js';

/** One entry of `.orchestration/AGENT.md`, the shared brain. */
export interface Lesson {
  /** `YYYY-MM-DD`, or "" when the heading did not parse. */
  date: string;
  /** The intent the lesson is tagged with, or null for a general lesson. */
  intentId: string | null;
  title: string;
  body: string;
}

/** The same rule the registry applies to intent ids (lib/intents/registry.ts). */
const INTENT_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
/** Longest lesson text kept; longer text is cut with "…". */
export const MAX_LESSON_CHARS = 2000;
/** Longest heading title. */
export const MAX_TITLE_CHARS = 80;

const FALLBACK_TEMPLATE = `# AGENT.md: the shared brain

Lessons learned and decisions that every agent working in this repository reads before it starts.
Append entries; do not rewrite history. One entry per lesson:

<!-- ## 2026-02-16 · INT-001 · short title
     What happened, what to do instead. -->
`;

/**
 * Parses the entries of AGENT.md: each entry is a heading line
 * `## <YYYY-MM-DD> · <INT-ID or "general"> · <title>` followed by body lines up to the next `## `
 * heading. The preamble and HTML comments are ignored; a malformed heading is kept as a general
 * lesson with date "".
 */
export function parseLessons(text: string): Lesson[] {
  // CommonMark hides an unclosed comment up to the end of the document; so do we.
  // An entry written before invisible characters were stripped, or by hand, is read without them too.
  const visible = stripInvisible(text, '\t\n\r').replace(/<!--[\s\S]*?(?:-->|$)/g, '');
  const lessons: Lesson[] = [];
  let current: { head: Omit<Lesson, 'body'>; lines: string[] } | null = null;
  const flush = (): void => {
    if (!current) return;
    const body = current.lines.map(unescapeLine).join('\n').replace(/^\s*\n/, '').trim();
    lessons.push({ ...current.head, body });
  };
  for (const line of visible.split(/\r?\n/)) {
    if (line.startsWith('## ') || line === '##') {
      flush();
      current = { head: parseHeading(line.slice(2).trim()), lines: [] };
    } else if (current) {
      current.lines.push(line);
    }
  }
  flush();
  return lessons;
}

function parseHeading(rest: string): Omit<Lesson, 'body'> {
  const parts = rest.split(/\s+·\s+/);
  if (parts.length >= 3 && DATE.test(parts[0])) {
    const tag = parts[1];
    const title = unescapeLine(parts.slice(2).join(' · ').trim());
    if (/^general$/i.test(tag)) return { date: parts[0], intentId: null, title };
    if (INTENT_ID.test(tag)) return { date: parts[0], intentId: tag, title };
  }
  return { date: '', intentId: null, title: unescapeLine(rest) };
}

/** Undoes `escapeLine`: `\#` at the start of a line and `<\!--` anywhere. */
function unescapeLine(line: string): string {
  return line.replace(/^(\s*)\\#/, '$1#').replace(/<\\!--/g, '<!--');
}

/** Keeps a body line from becoming a heading or opening an HTML comment that hides later entries. */
function escapeLine(line: string): string {
  return line.replace(/^(\s*)#/, '$1\\#').replace(/<!--/g, '<\\!--');
}

/** The lesson's text as one string: the body, with the title in front when the body does not start with it. */
export function lessonText(l: Lesson): string {
  if (!l.body) return l.title;
  const head = normalise(l.title.replace(/…$/, ''));
  if (!head || normalise(l.body).startsWith(head)) return l.body;
  return `${l.title}: ${l.body}`;
}

function normalise(s: string): string {
  return s.replace(/\s+/g, ' ').trim().toLowerCase();
}

/** The key two lessons are duplicates under: intent and whitespace-collapsed, case-folded text. */
function dedupeKey(l: Lesson): string {
  return `${l.intentId ?? ''}\0${normalise(`${l.title}\n${l.body}`)}`;
}

/** Cuts `s` to at most `max` characters (code points), ending with "…" when cut. */
function cut(s: string, max: number, atWord = false): string {
  const cps = Array.from(s);
  if (cps.length <= max) return s;
  let kept = cps.slice(0, max - 1).join('');
  if (atWord) {
    const space = kept.lastIndexOf(' ');
    if (space >= max / 2) kept = kept.slice(0, space);
  }
  return kept.trimEnd() + '…';
}

/**
 * Builds the lesson `appendLesson` writes (pure): control, format and other invisible characters
 * removed (a right-to-left override would reorder what the next agent's human reads), text cut to
 * MAX_LESSON_CHARS, the title taken from the first line or sentence.
 */
export function buildLesson(text: string, intentId: string | null, now: Date): Lesson {
  if (intentId !== null && !INTENT_ID.test(intentId)) {
    throw new IntentError(
      'INVALID_INPUT',
      `"${intentId}" is not a valid intent id: use letters, digits, "-" and "_" (at most 64), starting with a letter or digit.`,
      { intent: intentId },
    );
  }
  const clean = stripInvisible(text.replace(/\r\n?/g, '\n'))
    .split('\n')
    .map((l) => l.trimEnd())
    .join('\n')
    .trim();
  if (!clean) throw new IntentError('INVALID_INPUT', 'A lesson needs some text: intent lesson "What happened, what to do instead."', {});
  const body = cut(clean, MAX_LESSON_CHARS);
  const firstLine = body.split('\n')[0].trim();
  const sentence = /^(.+?[.!?])(?:\s|$)/.exec(firstLine)?.[1] ?? firstLine;
  const title = cut(sentence.replace(/\s+/g, ' '), MAX_TITLE_CHARS, true);
  return { date: now.toISOString().slice(0, 10), intentId, title, body };
}

/** The bytes one entry adds to AGENT.md: a blank line, the heading, the escaped body. */
export function formatLesson(l: Lesson): string {
  const heading = `## ${l.date} · ${l.intentId ?? 'general'} · ${l.title.replace(/\s+/g, ' ').replace(/<!--/g, '<\\!--')}`;
  const body = l.body ? l.body.split('\n').map(escapeLine).join('\n') + '\n' : '';
  return `\n${heading}\n${body}`;
}

/**
 * Checks a lesson's tag the way `intent lesson` and the MCP tool record_lesson both do: it names a
 * registered intent, and in an intent worktree only that worktree's own intent (or none: general).
 */
export function checkLessonTag(repo: Repo, intentId: string | null): void {
  // A malformed id is refused by buildLesson, with the rule for ids.
  if (intentId === null || !INTENT_ID.test(intentId)) return;
  const path = orchestrationPath(repo, 'active_intents.yaml');
  const registry = loadRegistry(path);
  if (!findIntent(registry, intentId)) {
    throw new IntentError(
      'UNKNOWN_INTENT',
      `Unknown intent "${intentId}": a lesson is tagged with an intent of ${path}, or "general". Known intents: ${registry.intents.map((i) => i.id).join(', ') || 'none'}.`,
      { intent: intentId, path, known: registry.intents.map((i) => i.id) },
    );
  }
  const own = resolveIntentId(repo);
  if (own && own.id !== intentId) {
    throw new IntentError(
      'INVALID_INPUT',
      `This worktree works on ${own.id}: a lesson recorded here is tagged ${own.id} or "general", not ${intentId}. Record ${intentId}'s lesson from its own worktree.`,
      { intent: intentId, worktreeIntent: own.id },
    );
  }
}

/**
 * The clone's own lessons, in AGENT.md's format: what intent learns by itself (a refused commit, an
 * opened breaker, a failed acceptance check) goes here, in intent's state folder, not into the
 * tracked AGENT.md, where it would leave the main worktree with changes nobody made (and stop the
 * next `intent done --merge`). `intent context` reads both.
 */
export function localLessonsFile(repo: Repo): string {
  return join(stateDir(repo), 'lessons.md');
}

/**
 * Appends one lesson to the main worktree's `.orchestration/AGENT.md` (or, `local`, to the
 * clone's own lessons file), under a lock shared by all worktrees, in one write. A lesson with the
 * same intent and text as an existing entry is not appended again.
 */
export function appendLesson(
  cwd: string,
  input: { text: string; intentId?: string | null; now?: Date; local?: boolean },
): { appended: boolean; lesson: Lesson; path: string } {
  const lesson = buildLesson(input.text, input.intentId ?? null, input.now ?? new Date());
  const repo = openRepo(cwd);
  const path = input.local ? localLessonsFile(repo) : orchestrationPath(repo, 'AGENT.md');
  return withLock(join(stateDir(repo), 'agent-md.lock'), () => {
    const existing = existsSync(path) ? readFileSync(path, 'utf8') : null;
    if (existing !== null) {
      const key = dedupeKey(lesson);
      const dup = parseLessons(existing).find((l) => dedupeKey(l) === key);
      if (dup) return { appended: false, lesson: dup, path };
    }
    let prefix = existing === null ? template() : existing === '' || existing.endsWith('\n') ? '' : '\n';
    // A hand-edited file that ends inside an unclosed comment would hide the new entry: close it.
    if (existing !== null && existing.replace(/<!--[\s\S]*?-->/g, '').includes('<!--')) prefix += '-->\n';
    mkdirSync(dirname(path), { recursive: true });
    appendFileSync(path, prefix + formatLesson(lesson));
    return { appended: true, lesson, path };
  });
}

function template(): string {
  try {
    const t = readFileSync(join(PKG_ROOT, 'templates', 'orchestration', 'AGENT.md'), 'utf8');
    return t.endsWith('\n') ? t : t + '\n';
  } catch {
    return FALLBACK_TEMPLATE;
  }
}

/** The literal part of a glob before its first wildcard, without a trailing "/" (may be ""). */
function literalPrefix(glob: string): string {
  const g = glob.replace(/^(\.\/)+/, '');
  const i = g.search(/[*?[\]{}()!+@\\]/);
  return (i < 0 ? g : g.slice(0, i)).replace(/\/+$/, '');
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Does the lesson's text mention a path inside the scope, or one of its globs' literal prefixes? */
function mentionsScope(text: string, scope: readonly string[]): boolean {
  const grants = scope.filter((g) => !g.startsWith('!'));
  for (const g of grants) {
    const prefix = literalPrefix(g);
    if (!prefix) continue;
    if (new RegExp(`(?<![\\w./-])${escapeRe(prefix)}(?![\\w-]|\\.\\w)`).test(text)) return true;
  }
  let matcher: ReturnType<typeof compileScope>;
  try {
    matcher = compileScope(scope);
  } catch {
    return false;
  }
  for (const raw of text.match(/[\w.@~+-]*\/[\w.@~+/-]*|[\w@~+-]+\.[A-Za-z]\w*/g) ?? []) {
    const p = raw.replace(/^(\.\/)+/, '').replace(/^\/+/, '').replace(/[./]+$/, '');
    if (p && matcher.matches(p)) return true;
  }
  return false;
}

/** Newest first: by date, then later in the file first; undated lessons last. */
function newestFirst(items: { l: Lesson; i: number }[]): Lesson[] {
  return items
    .sort((a, b) => (a.l.date === b.l.date ? b.i - a.i : a.l.date < b.l.date ? 1 : -1))
    .map((x) => x.l);
}

/**
 * The lessons that concern an intent, most relevant first: those tagged with its id, then those
 * whose text mentions a path in its scope, then general ones; each group newest first.
 */
export function lessonsFor(lessons: Lesson[], intent: { id: string; owned_scope: readonly string[] }): Lesson[] {
  const tagged: { l: Lesson; i: number }[] = [];
  const mentioning: { l: Lesson; i: number }[] = [];
  const general: { l: Lesson; i: number }[] = [];
  lessons.forEach((l, i) => {
    if (l.intentId === intent.id) tagged.push({ l, i });
    else if (mentionsScope(`${l.title}\n${l.body}`, intent.owned_scope)) mentioning.push({ l, i });
    else if (l.intentId === null) general.push({ l, i });
  });
  return [...newestFirst(tagged), ...newestFirst(mentioning), ...newestFirst(general)];
}
