import { existsSync, readFileSync } from 'node:fs';
import { BRANCH_PREFIX } from './active.js';
import { IntentError } from '../core/errors.js';
import { stripInvisible } from '../core/invisible.js';
import { gitStep, runGitSteps, runGitStepsAsync, type GitSteps } from '../git/process.js';
import { lessonsFor, lessonText, localLessonsFile, parseLessons, type Lesson } from './lessons.js';
import { findIntent, loadRegistry, type Intent } from './registry.js';
import { openRepoSteps, orchestrationPath, type Repo } from '../git/repo.js';
import { worktreeOfBranchSteps } from '../git/worktrees.js';
import { METADATA_KEY, NOTES_REF } from '../core/version.js';

/** Default size limit of the `<intent_context>` block, in UTF-8 bytes. */
export const DEFAULT_CONTEXT_BYTES = 4096;
/** The smallest limit accepted: below it even the intent's header and rules do not fit. */
export const MIN_CONTEXT_BYTES = 512;
/** How many commits (newest first, across all branches) are scanned for the intent's notes. */
const HISTORY_SCAN = 500;
/** Files listed per commit; the `files` attribute always has the full count. */
const FILES_PER_COMMIT = 8;

/** One governed commit of the intent, read from its note. */
export interface HistoryEntry {
  sha: string;
  date: string;
  subject: string;
  mutationClass: string;
  added: number;
  deleted: number;
  violations: number;
  files: { path: string; mutationClass: string }[];
}

// ---------------------------------------------------------------- XML

/**
 * Removes characters XML 1.0 does not allow (control characters except \t \n \r, lone surrogates,
 * U+FFFE/U+FFFF) and the invisible ones (bidi controls, zero-width and other format characters:
 * core/invisible.ts): every text in the block was written by someone else, often another agent.
 */
export function xmlClean(s: string): string {
  return stripInvisible(s.replace(/[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, ''), '\t\n\r');
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;', '\r': '&#13;' };

/** Escapes text content. */
export function xmlText(s: string): string {
  return xmlClean(s).replace(/[&<>"'\r]/g, (c) => ENTITIES[c]);
}

/** Escapes an attribute value (line breaks and tabs as character references, so parsers keep them). */
export function xmlAttr(s: string): string {
  return xmlClean(s).replace(/[&<>"'\r\n\t]/g, (c) => ENTITIES[c] ?? `&#${c.charCodeAt(0)};`);
}

const bytes = (s: string): number => Buffer.byteLength(s, 'utf8');

/**
 * Escapes `s` as text and cuts it, on a character boundary, so the escaped result takes at most
 * `max` bytes; a cut text ends with "…".
 */
function fitText(s: string, max: number, escape: (s: string) => string = xmlText): { text: string; cut: boolean } {
  const full = escape(s);
  if (bytes(full) <= max) return { text: full, cut: false };
  let used = 0;
  const budget = Math.max(0, max - 3); // "…" is 3 bytes
  const chars = Array.from(xmlClean(s));
  let n = 0;
  while (n < chars.length && used + bytes(escape(chars[n])) <= budget) used += bytes(escape(chars[n++]));
  // Not mid-word: back to the last whitespace. Only one over-long word (no whitespace before the
  // cut) is cut inside, as nothing else would be left of it.
  if (n < chars.length && !/\s/.test(chars[n])) {
    let k = n;
    while (k > 0 && !/\s/.test(chars[k - 1])) k--;
    if (k > 0) n = k;
  }
  while (n > 0 && /\s/.test(chars[n - 1])) n--;
  return { text: chars.slice(0, n).map(escape).join('') + '…', cut: true };
}

function attrs(list: [string, string | number | undefined][]): string {
  return list.filter(([, v]) => v !== undefined).map(([k, v]) => ` ${k}="${xmlAttr(String(v))}"`).join('');
}

// ---------------------------------------------------------------- history

/**
 * The intent's governed commits, newest first, read from refs/notes/intents in one `git log` over
 * all local branches (the newest HISTORY_SCAN commits). Notes that do not parse are skipped.
 */
export function intentHistory(repo: Repo, intentId: string, scan = HISTORY_SCAN): HistoryEntry[] {
  return runGitSteps(intentHistorySteps(repo, intentId, scan));
}

function* intentHistorySteps(repo: Repo, intentId: string, scan = HISTORY_SCAN): GitSteps<HistoryEntry[]> {
  const res = yield* gitStep(
    [
      '-c', 'log.showSignature=false', '-c', 'i18n.logOutputEncoding=UTF-8',
      'log', '--branches', '--no-color', '--no-show-signature', '--encoding=UTF-8', '--no-notes', `--notes=${NOTES_REF}`,
      '-z', `-n`, String(scan), '--format=tformat:%H%n%cI%n%s%n%N',
    ],
    { cwd: repo.root },
  );
  // No branches yet (a repository without commits) is an empty history, not an error.
  if (res.status !== 0) {
    if (res.stdout === '' && /does not have any commits|bad default revision|unknown revision/i.test(res.stderr)) return [];
    throw new IntentError('GIT_FAILED', `git log failed while reading the history of ${intentId}: ${res.stderr.trim()}`, { intent: intentId });
  }
  const out: HistoryEntry[] = [];
  for (const rec of res.stdout.split('\0')) {
    const m = /^([0-9a-f]{40,64})\n([^\n]*)\n([^\n]*)\n([\s\S]*)$/.exec(rec.replace(/^\n+/, ''));
    if (!m) continue;
    const meta = noteMetadata(m[4]);
    if (!meta || meta.intent_id !== intentId) continue;
    const files = Object.entries(isObject(meta.files) ? meta.files : {});
    let added = 0;
    let deleted = 0;
    for (const [, f] of files) {
      if (!isObject(f)) continue;
      added += num(f.added_lines);
      deleted += num(f.deleted_lines);
    }
    out.push({
      sha: m[1],
      date: m[2],
      subject: m[3],
      mutationClass: typeof meta.mutation_class === 'string' ? meta.mutation_class : 'UNKNOWN',
      added,
      deleted,
      violations: Array.isArray(meta.scope_violations) ? meta.scope_violations.length : 0,
      files: files.map(([path, f]) => ({ path, mutationClass: isObject(f) && typeof f.mutation_class === 'string' ? f.mutation_class : 'UNKNOWN' })),
    });
  }
  return out;
}

/** The `metadata["dev.intent"]` of a note's trace record (its first JSON line), or null. */
export function noteMetadata(note: string): Record<string, unknown> | null {
  for (const line of note.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const rec = JSON.parse(line) as unknown;
      const meta = isObject(rec) && isObject(rec.metadata) ? rec.metadata[METADATA_KEY] : undefined;
      if (isObject(meta) && typeof meta.intent_id === 'string') return meta;
    } catch { /* not the record */ }
    return null;
  }
  return null;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function num(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : 0;
}

// ---------------------------------------------------------------- rendering

/** What the block is made of besides lessons and history. */
export interface ContextParts {
  intent: Intent;
  /** The intent's worktree, when one is checked out. */
  worktree: string | null;
}

/** The rules, one sentence each, most important first. */
function rulesSentences(intent: Intent): string[] {
  return [
    ...(intent.status === 'IN_PROGRESS' ? [] : [`First run \`intent checkout ${intent.id}\`, then work in the worktree it prints.`]),
    'Edit only paths in owned_scope; keep every constraint.',
    'Commits touching other paths are rejected (Scope Violation).',
    `To ask for more scope: \`intent expand ${intent.id} <glob> --reason "…"\`.`,
    'Start the agent at the worktree root: one started in a subdirectory (Claude Code) runs without intent\'s hooks.',
    'Record lessons learned: `intent lesson "…"`.',
  ];
}

type ListName = 'owned_scope' | 'constraints' | 'acceptance_criteria' | 'acceptance_checks' | 'related_specs';
type Extra = 'worktree' | 'acceptance_checks' | 'related_specs' | 'assigned_agent';

/** How much of the fixed part to show. */
interface Shape {
  /** Every text item is cut to at most this many escaped bytes (Infinity: none is). */
  cap: number;
  /** The same for scope globs, which are cut only as a last resort (a cut glob is no glob). */
  globCap: number;
  /** How many items of each list to show. */
  keep: Record<ListName, number>;
  /** How many rule sentences to show. */
  rules: number;
  /** Last resort: the rules cut to this many escaped bytes (Infinity: whole sentences only). */
  rulesCap: number;
  /** Optional items shown (they come after the always-shown part in priority). */
  extras: Set<Extra>;
}

/** Renders the fixed part in `shape`: the lines before the lessons, the rules line, and whether anything was cut. */
function renderFixed(f: ContextParts, shape: Shape): { lines: string[]; rules: string; cut: boolean } {
  const { intent } = f;
  let cut = false;
  const fit = (s: string, escape?: (s: string) => string): string => {
    const r = fitText(s, shape.cap, escape);
    cut ||= r.cut;
    return r.text;
  };
  const lines: string[] = [`  <name>${fit(intent.name)}</name>`];
  if (f.worktree && shape.extras.has('worktree')) lines.push(`  <worktree branch="${xmlAttr(BRANCH_PREFIX + intent.id)}">${fit(f.worktree)}</worktree>`);
  if (intent.assigned_agent && shape.extras.has('assigned_agent')) lines.push(`  <assigned_agent>${fit(intent.assigned_agent)}</assigned_agent>`);
  const list = <T>(name: ListName, items: readonly T[], render: (item: T) => string, inline: boolean): void => {
    if (items.length === 0) return; // absent means none
    const n = Math.min(shape.keep[name], items.length);
    if (n < items.length) cut = true;
    const head = `  <${name}${n < items.length ? attrs([['shown', n], ['total', items.length]]) : ''}`;
    const shown = items.slice(0, n).map(render);
    if (n === 0) lines.push(`${head}/>`);
    else if (inline) lines.push(`${head}>${shown.join('')}</${name}>`);
    else lines.push(`${head}>`, ...shown.map((x) => `    ${x}`), `  </${name}>`);
  };
  list('owned_scope', intent.owned_scope, (g) => {
    const r = fitText(g, shape.globCap);
    cut ||= r.cut;
    return `<glob>${r.text}</glob>`;
  }, true);
  list('constraints', intent.constraints, (c) => `<constraint>${fit(c)}</constraint>`, false);
  list('acceptance_criteria', intent.acceptance_criteria, (c) => `<criterion>${fit(c)}</criterion>`, false);
  // The commands `intent done` runs: shown when they fit (an agent can run them before it finishes).
  if (intent.acceptance_checks?.length && shape.extras.has('acceptance_checks')) {
    list('acceptance_checks', intent.acceptance_checks, (c) => `<check>${fit(c)}</check>`, false);
  }
  if (intent.related_specs.length && shape.extras.has('related_specs')) {
    list('related_specs', intent.related_specs, (s) => `<spec type="${fit(s.type, xmlAttr)}">${fit(s.value)}</spec>`, true);
  }
  const sentences = rulesSentences(intent);
  if (shape.rules < sentences.length) cut = true;
  // The rules lose whole sentences first; they are cut inside one only as a last resort.
  const r = fitText(sentences.slice(0, shape.rules).join(' '), shape.rulesCap);
  cut ||= r.cut;
  const rules = `  <rules>${r.text}</rules>`;
  return { lines, rules, cut };
}

/** The lesson item cut to at most `budget` bytes (its text ends with "…"), or null when too little fits. */
function fitLesson(l: Lesson, budget: number): string | null {
  const text = Array.from(lessonText(l));
  const item = (n: number) => lessonItem({ ...l, title: '', body: text.slice(0, n - 1).join('').trimEnd() + '…' });
  let lo = 40;
  let hi = text.length - 1;
  let best: string | null = null;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const candidate = item(mid);
    if (bytes(candidate) <= budget) { best = candidate; lo = mid + 1; } else hi = mid - 1;
  }
  return best;
}

function lessonItem(l: Lesson): string {
  return `\n    <lesson${attrs([['date', l.date || undefined], ['intent', l.intentId ?? 'general']])}>${xmlText(lessonText(l))}</lesson>`;
}

function commitItem(h: HistoryEntry, withFiles: boolean): string {
  const head = `\n    <commit${attrs([
    ['sha', h.sha.slice(0, 12)],
    ['date', h.date],
    ['class', h.mutationClass],
    ['files', h.files.length],
    ['added', h.added],
    ['deleted', h.deleted],
    ['scope_violations', h.violations || undefined],
  ])}>${xmlText(h.subject)}`;
  if (!withFiles) return `${head}</commit>`;
  const files = h.files.slice(0, FILES_PER_COMMIT).map((f) => `<file${attrs([['path', f.path], ['class', f.mutationClass]])}/>`).join('');
  return `${head}${files}</commit>`;
}

/**
 * A section holding some of `total` items: `<tag …>` + items + `</tag>`, `<tag …/>` when none fit,
 * nothing at all when there are none.
 */
class Section {
  private readonly items: string[] = [];
  private itemBytes = 0;

  constructor(private readonly tag: string, private readonly total: number, private readonly countsFirst: boolean) {}

  private open(shown: number): string {
    const a: [string, number][] = this.countsFirst
      ? [['commits', this.total], ['shown', shown]]
      : [['shown', shown], ['total', this.total]];
    return `  <${this.tag}${attrs(a)}`;
  }

  /** Size in bytes with `extra` more items of `extraBytes` bytes in all. */
  size(extra = 0, extraBytes = 0): number {
    if (this.total === 0) return 0;
    const n = this.items.length + extra;
    const open = bytes(this.open(n));
    return n === 0 ? open + 2 : open + 1 + this.itemBytes + extraBytes + bytes(`\n  </${this.tag}>`);
  }

  add(item: string): void {
    this.items.push(item);
    this.itemBytes += bytes(item);
  }

  /** The section, or "" when there is nothing to show or leave out. */
  render(): string {
    if (this.total === 0) return '';
    const n = this.items.length;
    return n === 0 ? `${this.open(0)}/>` : `${this.open(n)}>${this.items.join('')}\n  </${this.tag}>`;
  }
}

/**
 * The `<intent_context>` block an agent gets from `select_active_intent(id)` / `intent context <ID>`:
 * valid XML of at most `maxBytes` UTF-8 bytes (including its final newline). The intent's name,
 * status, scope, constraints, acceptance criteria and rules are always there (cut, with
 * `truncated="true"`, only when they alone exceed the limit); then its worktree and specs, as many
 * lessons (most relevant first) and governed commits (newest first) as fit, with counts of what
 * was left out.
 */
export function renderContext(cwd: string, intentId: string, opts: { maxBytes?: number } = {}): string {
  return runGitSteps(renderContextSteps(cwd, intentId, opts));
}

/** `renderContext` without blocking on git (an editor's extension host). */
export function renderContextAsync(cwd: string, intentId: string, opts: { maxBytes?: number } = {}): Promise<string> {
  return runGitStepsAsync(renderContextSteps(cwd, intentId, opts));
}

function* renderContextSteps(cwd: string, intentId: string, opts: { maxBytes?: number }): GitSteps<string> {
  const maxBytes = opts.maxBytes ?? DEFAULT_CONTEXT_BYTES;
  if (!Number.isInteger(maxBytes) || maxBytes < MIN_CONTEXT_BYTES) {
    throw new IntentError('USAGE', `The context size limit must be a whole number of bytes, at least ${MIN_CONTEXT_BYTES}; got ${maxBytes}.`, { maxBytes });
  }
  const repo = yield* openRepoSteps(cwd);
  const registryFile = orchestrationPath(repo, 'active_intents.yaml');
  const registry = loadRegistry(registryFile);
  const intent = findIntent(registry, intentId);
  if (!intent) {
    const known = registry.intents.map((i) => i.id);
    throw new IntentError(
      'UNKNOWN_INTENT',
      `Unknown intent ${intentId}: it is not in ${registryFile}. Known intents: ${known.join(', ') || 'none'}.`,
      { intent: intentId, known },
    );
  }
  const read = (f: string) => (existsSync(f) ? parseLessons(readFileSync(f, 'utf8')) : []);
  const lessons = lessonsFor([...read(orchestrationPath(repo, 'AGENT.md')), ...read(localLessonsFile(repo))], intent);
  const history = yield* intentHistorySteps(repo, intent.id);
  // The intent's worktree, when one is checked out.
  const worktree = yield* worktreeOfBranchSteps(repo.mainRoot, `${BRANCH_PREFIX}${intent.id}`);
  return assemble({ intent, worktree }, lessons, history, maxBytes);
}

/** Lays out the block within `maxBytes` (pure; exported for tests). */
export function assemble(f: ContextParts, lessons: Lesson[], history: HistoryEntry[], maxBytes: number): string {
  const { intent } = f;
  const lessonSection = new Section('lessons', lessons.length, false);
  const historySection = new Section('history', history.length, true);
  const build = (fixed: { lines: string[]; rules: string; cut: boolean }): string =>
    [
      `<intent_context${attrs([['id', intent.id], ['status', intent.status], ['bytes_limit', maxBytes], ['truncated', fixed.cut ? 'true' : undefined]])}>`,
      ...fixed.lines,
      lessonSection.render(),
      historySection.render(),
      fixed.rules,
      '</intent_context>\n',
    ].filter((line) => line !== '').join('\n');
  type Layout = { size: number; fixed: ReturnType<typeof renderFixed> };
  const layout = (shape: Shape): Layout => {
    const fixed = renderFixed(f, shape);
    return { size: bytes(build(fixed)), fixed };
  };

  const allRules = rulesSentences(intent).length;
  const minRules = intent.status === 'IN_PROGRESS' ? 2 : 3;
  const shape: Shape = {
    cap: Infinity,
    globCap: Infinity,
    keep: { owned_scope: Infinity, constraints: Infinity, acceptance_criteria: Infinity, acceptance_checks: Infinity, related_specs: Infinity },
    rules: allRules,
    rulesCap: Infinity,
    extras: new Set(),
  };
  // 1. The always-shown part, whole if it fits; then the optional items, each if it fits.
  let chosen = layout(shape);
  if (chosen.size <= maxBytes) {
    for (const extra of ['worktree', 'acceptance_checks', 'related_specs', 'assigned_agent'] as const) {
      shape.extras.add(extra);
      const l = layout(shape);
      if (l.size <= maxBytes) chosen = l;
      else shape.extras.delete(extra);
    }
  } else {
    // 2. Too big alone: leave out the last rule sentences (hints), then cut every text item to the
    //    largest cap that fits (scope globs stay whole); failing that, leave out acceptance
    //    criteria, then constraints, from the end; then cut globs too; then leave out globs; then
    //    cut the remaining rules.
    while (chosen.size > maxBytes && shape.rules > minRules) {
      shape.rules--;
      chosen = layout(shape);
    }
    // The largest cap at which `sh` fits (globs cut too when `globs`), or null.
    const bestCap = (sh: Shape, globs: boolean): Layout | null => {
      let lo = 16;
      let hi = maxBytes;
      let best: Layout | null = null;
      while (lo <= hi) {
        const mid = (lo + hi) >> 1;
        const l = layout({ ...sh, cap: mid, globCap: globs ? mid : Infinity });
        if (l.size <= maxBytes) { best = l; lo = mid + 1; } else hi = mid - 1;
      }
      return best;
    };
    let best = chosen.size <= maxBytes ? chosen : bestCap(shape, false);
    const keep = shape.keep;
    keep.owned_scope = intent.owned_scope.length;
    keep.constraints = intent.constraints.length;
    keep.acceptance_criteria = intent.acceptance_criteria.length;
    for (const name of ['acceptance_criteria', 'constraints'] as const) {
      while (!best && keep[name] > 0) {
        keep[name]--;
        best = bestCap(shape, false);
      }
    }
    best ??= bestCap(shape, true);
    while (!best && keep.owned_scope > 1) {
      keep.owned_scope--;
      best = bestCap(shape, true);
    }
    for (shape.rulesCap = 160; !best && shape.rulesCap >= 64; shape.rulesCap -= 16) best = bestCap(shape, true);
    if (!best) throw new IntentError('USAGE', `The context of ${intent.id} does not fit in ${maxBytes} bytes; raise --max-bytes.`, { maxBytes });
    chosen = best;
  }
  const fixedSize = chosen.size - lessonSection.size() - historySection.size();

  // 3. Lessons, most relevant first, while they fit. A long lesson of another intent or a general
  //    one is passed over for shorter ones; the intent's own lesson is cut to fit instead, so
  //    trimming never drops it while general lessons stay.
  for (const l of lessons) {
    const room = maxBytes - fixedSize - historySection.size();
    const item = lessonItem(l);
    if (lessonSection.size(1, bytes(item)) <= room) lessonSection.add(item);
    else if (l.intentId === intent.id) {
      const cut = fitLesson(l, room - lessonSection.size(1, 0));
      if (cut) lessonSection.add(cut);
    }
  }

  // 4. History, newest first, while it fits (a commit's file list goes before the commit does).
  for (const h of history) {
    const room = maxBytes - fixedSize - lessonSection.size();
    const full = commitItem(h, true);
    const bare = commitItem(h, false);
    if (historySection.size(1, bytes(full)) <= room) historySection.add(full);
    else if (historySection.size(1, bytes(bare)) <= room) historySection.add(bare);
    else break;
  }
  return build(chosen.fixed);
}
