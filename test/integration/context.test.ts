import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { assemble, type HistoryEntry } from '../../lib/intents/context.js';
import { IntentError } from '../../lib/core/errors.js';
import { parseLessons, type Lesson } from '../../lib/intents/lessons.js';
import type { Intent } from '../../lib/intents/registry.js';
import { CLI, checkoutIntent, git, governedRepo, intent, run, writeFiles, spawnAsync } from '../helpers.js';

// `intent context` (the handshake block) and `intent lesson` (the shared brain) as real processes
// against real repositories.

interface Element {
  name: string;
  attrs: Record<string, string>;
  children: Element[];
  text: string;
}

const ENTITY = /^&(amp|lt|gt|quot|apos|#[0-9]+|#x[0-9a-fA-F]+);/;
const NAME = /^[A-Za-z_][\w.-]*/;
const unescape = (s: string) =>
  s.replace(/&(amp|lt|gt|quot|apos|#[0-9]+|#x[0-9a-fA-F]+);/g, (_, e: string) =>
    ({ amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" })[e as 'amp'] ?? String.fromCodePoint(e.startsWith('#x') ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10)));

/**
 * A small well-formedness checker: one root element, matching tags, quoted attributes without raw
 * `<` or `&`, known entities only, no characters XML 1.0 forbids. Returns the parsed tree.
 */
function parseXml(xml: string): Element {
  const illegal = /[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u.exec(xml);
  if (illegal) throw new Error(`illegal character U+${illegal[0].codePointAt(0)!.toString(16)} at ${illegal.index}`);
  const stack: Element[] = [];
  let root: Element | null = null;
  let i = 0;
  const fail = (why: string): never => { throw new Error(`${why} at offset ${i}: ${JSON.stringify(xml.slice(Math.max(0, i - 40), i + 40))}`); };
  while (i < xml.length) {
    const c = xml[i];
    if (c === '<') {
      if (xml.startsWith('</', i)) {
        const m = NAME.exec(xml.slice(i + 2));
        if (!m) fail('bad end tag');
        const after = i + 2 + m![0].length;
        if (xml[after] !== '>') fail('bad end tag');
        const open = stack.pop();
        if (!open || open.name !== m![0]) fail(`</${m![0]}> does not close <${open?.name}>`);
        i = after + 1;
        continue;
      }
      const m = NAME.exec(xml.slice(i + 1));
      if (!m) fail('bad start tag (a raw "<" in text?)');
      if (root && stack.length === 0) fail('a second root element');
      const el: Element = { name: m![0], attrs: {}, children: [], text: '' };
      i += 1 + m![0].length;
      for (;;) {
        const ws = /^\s*/.exec(xml.slice(i))![0].length;
        i += ws;
        if (xml.startsWith('/>', i)) { i += 2; break; }
        if (xml[i] === '>') { i += 1; stack.push(el); break; }
        if (ws === 0) fail('attributes must be separated by whitespace');
        const a = /^([A-Za-z_][\w.-]*)="([^"<]*)"/.exec(xml.slice(i));
        if (!a) fail('bad attribute (unquoted, or containing "<")');
        if (a![1] in el.attrs) fail(`duplicate attribute ${a![1]}`);
        for (let j = a![2].indexOf('&'); j >= 0; j = a![2].indexOf('&', j + 1)) {
          if (!ENTITY.test(a![2].slice(j))) fail('raw "&" in an attribute');
        }
        el.attrs[a![1]] = unescape(a![2]);
        i += a![0].length;
      }
      if (stack.length > (stack[stack.length - 1] === el ? 1 : 0)) stack[stack.length - (stack[stack.length - 1] === el ? 2 : 1)].children.push(el);
      else root = el;
      continue;
    }
    const next = xml.indexOf('<', i);
    const text = xml.slice(i, next < 0 ? xml.length : next);
    for (let j = text.indexOf('&'); j >= 0; j = text.indexOf('&', j + 1)) {
      if (!ENTITY.test(text.slice(j))) { i += j; fail('raw "&" in text'); }
    }
    if (text.includes('>')) fail('raw ">" in text');
    if (stack.length === 0 && text.trim() !== '') fail('text outside the root element');
    if (stack.length) stack[stack.length - 1].text += unescape(text);
    i = next < 0 ? xml.length : next;
  }
  if (stack.length) throw new Error(`unclosed <${stack[stack.length - 1].name}>`);
  if (!root) throw new Error('no root element');
  return root;
}

const child = (el: Element, name: string): Element => {
  const c = el.children.find((x) => x.name === name);
  if (!c) throw new Error(`<${el.name}> has no <${name}>`);
  return c;
};
const bytes = (s: string) => Buffer.byteLength(s, 'utf8');

/** Commits `files` in `cwd` with its own committer date, so history order is unambiguous. */
function commit(cwd: string, files: Record<string, string>, message: string, day: number): string {
  writeFiles(cwd, files);
  git(cwd, 'add', '-A');
  const date = `2026-01-${String(day).padStart(2, '0')}T12:00:00Z`;
  const r = run('git', ['commit', '-q', '-m', message], cwd, { GIT_COMMITTER_DATE: date, GIT_AUTHOR_DATE: date });
  if (r.status !== 0) throw new Error(`commit failed: ${r.stderr}`);
  return git(cwd, 'rev-parse', 'HEAD').trim();
}

const INTENTS = [
  { id: 'INT-001', name: 'JWT Authentication Migration', scope: ['src/auth/**', 'src/middleware/jwt.ts'] },
  { id: 'INT-002', name: 'Invoice rounding', scope: ['src/billing/**'] },
  { id: 'INT-003', name: 'Not started', scope: ['docs/**'] },
];
const FILES = { 'README.md': '# r\n', 'src/auth/a.ts': 'a\n', 'src/billing/b.ts': 'b\n' };

/** A governed repository with INT-001..003 registered, nothing checked out. */
function lessonRepo(): string {
  return governedRepo(INTENTS, FILES);
}

function twoIntentRepo(): { repo: string; wt1: string; wt2: string; shas: string[]; otherSha: string } {
  const repo = lessonRepo();
  const wt1 = checkoutIntent(repo, 'INT-001');
  const wt2 = checkoutIntent(repo, 'INT-002');
  const shas = [
    commit(wt1, { 'src/auth/a.ts': 'a\nb\n' }, 'auth: first', 2),
    commit(wt1, { 'src/auth/token.ts': 'export const t = 1;\n', 'src/middleware/jwt.ts': 'x\ny\nz\n' }, 'auth: second', 3),
  ];
  const otherSha = commit(wt2, { 'src/billing/b.ts': 'b\nc\n' }, 'billing: round', 4);
  shas.push(commit(wt1, { 'src/auth/a.ts': 'a\n' }, 'auth: third & <last>', 5));
  return { repo, wt1, wt2, shas, otherSha };
}

describe('intent context', () => {
  it('prints well-formed XML naming the intent, its scope, worktree and governed history (newest first)', () => {
    const { repo, wt1, shas, otherSha } = twoIntentRepo();
    // Notes that are not trace records are skipped, not fatal.
    git(repo, 'notes', '--ref=intents', 'add', '-m', 'not a record\n{broken json', 'HEAD');
    const r = intent(repo, ['context', 'INT-001']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const root = parseXml(r.stdout);
    expect(root.name).toBe('intent_context');
    expect(root.attrs).toEqual({ id: 'INT-001', status: 'IN_PROGRESS', bytes_limit: '4096' });
    expect(child(root, 'name').text).toBe('JWT Authentication Migration');
    expect(child(root, 'owned_scope').children.map((g) => g.text)).toEqual(['src/auth/**', 'src/middleware/jwt.ts']);
    expect(child(root, 'worktree').text).toBe(wt1);
    expect(child(root, 'worktree').attrs.branch).toBe('intent/INT-001');
    expect(child(root, 'rules').text).toContain('owned_scope');
    expect(child(root, 'rules').text).toContain('intent expand INT-001');

    const history = child(root, 'history');
    expect(history.attrs).toEqual({ commits: '3', shown: '3' });
    const commits = history.children;
    expect(commits.map((c) => c.attrs.sha)).toEqual([shas[2], shas[1], shas[0]].map((s) => s.slice(0, 12)));
    expect(r.stdout).not.toContain(otherSha.slice(0, 12));
    expect(commits[0].text).toBe('auth: third & <last>');
    expect(commits[0].attrs).toMatchObject({ class: 'INTENT_EVOLUTION', files: '1', added: '0', deleted: '1' });
    expect(commits[0].attrs.date).toMatch(/^2026-01-05T12:00:00/);
    expect(commits[1].attrs).toMatchObject({ files: '2', added: '4', deleted: '0' });
    expect(commits[1].children.map((f) => f.attrs.path).sort()).toEqual(['src/auth/token.ts', 'src/middleware/jwt.ts']);
    expect(bytes(r.stdout)).toBeLessThanOrEqual(4096);

    // The same from inside a worktree (any worktree: the main worktree's registry governs).
    const fromWt = intent(join(wt1, 'src'), ['context', 'INT-001']);
    expect(fromWt.status, fromWt.stderr).toBe(0);
    expect(fromWt.stdout).toBe(r.stdout);
  });

  it('--json prints {intent, context, bytes}; an intent not in progress says so and tells the agent to check it out', () => {
    const { repo } = twoIntentRepo();
    const r = intent(repo, ['context', 'INT-002', '--json']);
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(Object.keys(out).sort()).toEqual(['bytes', 'context', 'intent']);
    expect(out.intent).toBe('INT-002');
    expect(out.bytes).toBe(bytes(out.context));
    expect(child(parseXml(out.context), 'history').attrs).toEqual({ commits: '1', shown: '1' });

    const p = intent(repo, ['context', 'INT-003']);
    expect(p.status, p.stderr).toBe(0);
    const root = parseXml(p.stdout);
    expect(root.attrs.status).toBe('PENDING');
    expect(child(root, 'rules').text).toContain('intent checkout INT-003');
    // No worktree, no commits, no lessons: those elements are absent (absent means none).
    expect(root.children.map((c) => c.name)).toEqual(['name', 'owned_scope', 'rules']);
  });

  it('escapes markup and quotes, and strips characters XML forbids', () => {
    const repo = governedRepo([{ id: 'INT-001', scope: ['src/**'] }], { 'src/x.ts': 'x\n' });
    writeFiles(repo, {
      '.orchestration/active_intents.yaml': `active_intents:
  - id: "INT-001"
    name: "<script>alert(\\"x\\")</script> & 'q' ]]>"
    status: "IN_PROGRESS"
    owned_scope: ["src/**", "src/[ab]&c/**"]
    constraints: ["a < b && c > d", "say \\"hi\\" & 'bye'\\ttab\\u0007\\x01\\x1b"]
    acceptance_criteria: ["<!-- not a comment --> <![CDATA[x]]>"]
    related_specs: [{ type: "spec\\"&<type>", value: "REQ-<1>" }]
`,
    });
    git(repo, 'commit', '-q', '-am', 'evil registry');
    const wt = checkoutIntent(repo, 'INT-001');
    commit(wt, { 'src/a&b <c>.ts': 'x\n', "src/q'\".ts": 'y\n' }, 'files with <&"\'> in their names', 2);
    const r = intent(repo, ['context', 'INT-001']);
    expect(r.status, r.stderr).toBe(0);
    const root = parseXml(r.stdout);
    expect(r.stdout).not.toContain('<script');
    expect(r.stdout).not.toContain('<!--');
    expect(r.stdout).not.toContain('<![CDATA[');
    expect(child(root, 'name').text).toBe(`<script>alert("x")</script> & 'q' ]]>`);
    expect(child(root, 'constraints').children.map((c) => c.text)).toEqual(['a < b && c > d', `say "hi" & 'bye'\ttab`]);
    expect(child(root, 'acceptance_criteria').children[0].text).toBe('<!-- not a comment --> <![CDATA[x]]>');
    expect(child(root, 'owned_scope').children[1].text).toBe('src/[ab]&c/**');
    expect(child(root, 'related_specs').children[0].attrs.type).toBe('spec"&<type>');
    const files = child(root, 'history').children[0].children.map((f) => f.attrs.path).sort();
    expect(files).toEqual(['src/a&b <c>.ts', `src/q'".ts`]);
    expect(child(root, 'history').children[0].text).toBe(`files with <&"'> in their names`);
  });

  it('stays within --max-bytes, well formed, at every limit; says how much was left out', () => {
    const { repo, wt1 } = twoIntentRepo();
    for (let i = 0; i < 6; i++) {
      const l = intent(wt1, ['lesson', `Lesson ${i}: ünïcødé 😀 text that takes some room in src/auth/${i}.ts, repeated ${'x'.repeat(40 * i)}`]);
      expect(l.status, l.stderr).toBe(0);
    }
    const full = parseXml(intent(repo, ['context', 'INT-001']).stdout);
    expect(child(full, 'lessons').attrs).toEqual({ shown: '6', total: '6' });

    const small = intent(repo, ['context', 'INT-001', '--max-bytes', '600']);
    expect(small.status, small.stderr).toBe(0);
    expect(bytes(small.stdout)).toBeLessThanOrEqual(600);
    const root = parseXml(small.stdout);
    expect(root.attrs.bytes_limit).toBe('600');
    expect(child(root, 'name').text).toBe('JWT Authentication Migration');
    expect(child(root, 'owned_scope').children.map((g) => g.text)).toEqual(['src/auth/**', 'src/middleware/jwt.ts']);
    const lessons = child(root, 'lessons');
    const history = child(root, 'history');
    expect(Number(lessons.attrs.shown)).toBeLessThan(Number(lessons.attrs.total));
    expect(Number(history.attrs.shown)).toBeLessThan(Number(history.attrs.commits));
    expect(lessons.children).toHaveLength(Number(lessons.attrs.shown));
    expect(history.children).toHaveLength(Number(history.attrs.shown));

    for (const limit of [512, 700, 900, 1200, 1600, 2500]) {
      const r = intent(repo, ['context', 'INT-001', '--max-bytes', String(limit)]);
      expect(r.status, `${limit}: ${r.stderr}`).toBe(0);
      expect(bytes(r.stdout), String(limit)).toBeLessThanOrEqual(limit);
      const x = parseXml(r.stdout);
      expect(child(x, 'lessons').children).toHaveLength(Number(child(x, 'lessons').attrs.shown));
      expect(child(x, 'history').children).toHaveLength(Number(child(x, 'history').attrs.shown));
    }
  });

  it('a registry too big for the limit is cut with "…" and truncated="true", still within the limit', () => {
    const repo = governedRepo([{ id: 'INT-001', scope: ['src/**'] }]);
    const constraints = Array.from({ length: 30 }, (_, i) => `"Constraint ${i}: ${'é'.repeat(100)} & more"`).join(', ');
    writeFiles(repo, {
      '.orchestration/active_intents.yaml': `active_intents:
  - id: "INT-001"
    name: "${'Ω'.repeat(500)}"
    status: "IN_PROGRESS"
    owned_scope: ["src/**", "lib/**"]
    constraints: [${constraints}]
`,
    });
    git(repo, 'commit', '-q', '-am', 'big registry');
    for (const limit of [512, 1000, 3000]) {
      const r = intent(repo, ['context', 'INT-001', '--max-bytes', String(limit)]);
      expect(r.status, r.stderr).toBe(0);
      expect(bytes(r.stdout)).toBeLessThanOrEqual(limit);
      const root = parseXml(r.stdout);
      expect(root.attrs.truncated).toBe('true');
      expect(child(root, 'name').text.endsWith('…')).toBe(true);
      expect(child(root, 'name').text.startsWith('ΩΩ')).toBe(true);
      expect(child(root, 'owned_scope').children.map((g) => g.text)).toEqual(['src/**', 'lib/**']);
      expect(child(root, 'rules').text).toContain('owned_scope');
    }
  });

  it('an unknown id exits 1 and lists the known ids; a bad --max-bytes is a usage error (exit 2)', () => {
    const repo = lessonRepo();
    const r = intent(repo, ['context', 'INT-999']);
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('INT-999');
    expect(r.stderr).toContain('INT-001, INT-002, INT-003');
    const j = intent(repo, ['context', 'INT-999', '--json']);
    expect(j.status).toBe(1);
    expect(JSON.parse(j.stdout).error).toMatchObject({ code: 'UNKNOWN_INTENT', data: { known: ['INT-001', 'INT-002', 'INT-003'] } });

    for (const n of ['10', '511', 'abc', '1e4', '-5']) {
      const u = intent(repo, ['context', 'INT-001', '--max-bytes', n]);
      expect(u.status, n).toBe(2);
      expect(u.stdout).toBe('');
      expect(u.stderr).not.toMatch(/internal error/i);
    }
    const min = intent(repo, ['context', 'INT-001', '--max-bytes', '512']);
    expect(min.status, min.stderr).toBe(0);
    expect(bytes(min.stdout)).toBeLessThanOrEqual(512);
    expect(child(parseXml(min.stdout), 'rules').text).toContain('intent checkout INT-001');
  });
});

describe('the well-formedness checker used here', () => {
  it('rejects what is not well formed', () => {
    expect(parseXml('<a x="1"><b>t &amp; &#38; u</b><c/></a>\n').children.map((c) => c.name)).toEqual(['b', 'c']);
    for (const bad of ['<a><b></a></b>', '<a>x < y</a>', '<a>x & y</a>', '<a x=1/>', '<a x="<"/>', '<a x="&"/>', '<a x="1"x="2"/>',
      '<a/><b/>', 'text<a/>', '<a>', '<a>\u0001</a>', '<a x="1" x="1"/>', '<a>&nbsp;</a>']) {
      expect(() => parseXml(bad), bad).toThrow();
    }
  });
});

describe('the layout within the byte limit (pure, randomised)', () => {
  it('is always within the limit and well formed, or refuses with USAGE', () => {
    let seed = 42;
    const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n);
    const pick = <T>(xs: T[]) => xs[rnd(xs.length)];
    const word = () => pick(['a', 'src/auth/**', 'é', '😀', '<&>"\'', 'lorem ipsum dolor', '\u0007', 'x'.repeat(rnd(300))]);
    const text = (n: number) => Array.from({ length: 1 + rnd(n) }, word).join(' ');
    let refused = 0;
    for (let round = 0; round < 300; round++) {
      const id = pick(['INT-001', 'X', 'a'.repeat(64)]);
      const intentObj: Intent = {
        id, name: text(20), status: pick(['IN_PROGRESS', 'PENDING', 'BLOCKED'] as const),
        owned_scope: Array.from({ length: 1 + rnd(6) }, () => pick(['src/**', 'lib/a.ts', `deep/${'d/'.repeat(rnd(30))}**`])),
        constraints: Array.from({ length: rnd(8) }, () => text(10)),
        acceptance_criteria: Array.from({ length: rnd(5) }, () => text(10)),
        related_specs: Array.from({ length: rnd(3) }, () => ({ type: 'specification', value: text(3) })),
        ...(rnd(2) ? { assigned_agent: text(2) } : {}),
      };
      const lessons: Lesson[] = Array.from({ length: rnd(10) }, () => ({ date: '2026-01-01', intentId: pick([null, id]), title: text(3), body: text(30) }));
      const history: HistoryEntry[] = Array.from({ length: rnd(20) }, (_, i) => ({
        sha: String(i).padStart(40, 'a'), date: '2026-01-01T00:00:00+00:00', subject: text(5), mutationClass: 'INTENT_EVOLUTION',
        added: rnd(100), deleted: rnd(100), violations: rnd(2),
        files: Array.from({ length: rnd(12) }, () => ({ path: text(2), mutationClass: 'AST_REFACTOR' })),
      }));
      const limit = pick([512, 600, 800, 1024, 2048, 4096, 8192]);
      let xml: string;
      try {
        xml = assemble({ intent: intentObj, worktree: rnd(2) ? `/tmp/${text(3)}` : null }, lessons, history, limit);
      } catch (e) {
        expect((e as IntentError).code, String(e)).toBe('USAGE');
        refused++;
        continue;
      }
      expect(bytes(xml), xml).toBeLessThanOrEqual(limit);
      const root = parseXml(xml);
      expect(root.attrs.id).toBe(id);
      expect(root.children.some((c) => c.name === 'owned_scope')).toBe(true);
      // The rules are whole unless the block says it was cut.
      if (!child(root, 'rules').text.includes('owned_scope')) expect(root.attrs.truncated).toBe('true');
      if (limit >= 1024 && id.length < 64) expect(child(root, 'rules').text).toContain('owned_scope');
    }
    expect(refused).toBeLessThan(10);
  });
});

describe('intent lesson', () => {
  const agentMd = (repo: string) => readFileSync(join(repo, '.orchestration', 'AGENT.md'), 'utf8');
  /** A governed repository with worktrees for INT-001 and INT-002 (no commits in them). */
  const worktrees = () => {
    const repo = lessonRepo();
    return { repo, wt1: checkoutIntent(repo, 'INT-001'), wt2: checkoutIntent(repo, 'INT-002') };
  };

  it('appends to the main worktree\'s AGENT.md; in an intent worktree it is tagged with that intent', () => {
    const { repo, wt1 } = worktrees();
    const before = agentMd(repo);
    const a = intent(wt1, ['lesson', 'Use jose, not jsonwebtoken. It has no ESM build.', '--json']);
    expect(a.status, a.stderr).toBe(0);
    const out = JSON.parse(a.stdout);
    expect(out).toMatchObject({ appended: true, path: join(repo, '.orchestration', 'AGENT.md') });
    expect(out.lesson).toMatchObject({ intentId: 'INT-001', title: 'Use jose, not jsonwebtoken.' });
    expect(out.lesson.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const text = agentMd(repo);
    expect(text.startsWith(before)).toBe(true);
    expect(text.slice(before.length)).toBe(`\n## ${out.lesson.date} · INT-001 · Use jose, not jsonwebtoken.\nUse jose, not jsonwebtoken. It has no ESM build.\n`);
    // The worktree's own copy is untouched (and the worktree stays clean).
    expect(git(wt1, 'status', '--porcelain')).toBe('');

    const g = intent(repo, ['lesson', 'Lockfiles are exempt from scope checks.']);
    expect(g.status, g.stderr).toBe(0);
    expect(g.stdout).toContain('general');
    const tagged = intent(repo, ['lesson', 'Billing rounds half-even.', '--intent', 'INT-002']);
    expect(tagged.status, tagged.stderr).toBe(0);
    const general = intent(wt1, ['lesson', 'Run npm ci first.', '--intent', 'general']);
    expect(general.status, general.stderr).toBe(0);
    expect(parseLessons(agentMd(repo)).map((l) => [l.intentId, l.title])).toEqual([
      ['INT-001', 'Use jose, not jsonwebtoken.'],
      [null, 'Lockfiles are exempt from scope checks.'],
      ['INT-002', 'Billing rounds half-even.'],
      [null, 'Run npm ci first.'],
    ]);

    // The context of INT-001 shows its own lesson first, then general ones; not INT-002's.
    const ctx = parseXml(intent(repo, ['context', 'INT-001']).stdout);
    const lessons = child(ctx, 'lessons').children;
    expect(lessons.map((l) => l.attrs.intent)).toEqual(['INT-001', 'general', 'general']);
    expect(lessons[0].text).toBe('Use jose, not jsonwebtoken. It has no ESM build.');
  });

  it('the same lesson twice is recorded once (whitespace and case do not matter)', () => {
    const { repo, wt1 } = worktrees();
    expect(JSON.parse(intent(wt1, ['lesson', 'Cache the JWKS.', '--json']).stdout).appended).toBe(true);
    const again = intent(wt1, ['lesson', '  cache   the JWKS. ', '--json']);
    expect(again.status, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout).appended).toBe(false);
    const human = intent(repo, ['lesson', 'Cache the JWKS.', '--intent', 'INT-001']);
    expect(human.status).toBe(0);
    expect(human.stdout).toMatch(/already recorded/i);
    // The same text for another intent is another lesson.
    expect(JSON.parse(intent(repo, ['lesson', 'Cache the JWKS.', '--intent', 'INT-002', '--json']).stdout).appended).toBe(true);
    expect(parseLessons(agentMd(repo)).map((l) => l.intentId)).toEqual(['INT-001', 'INT-002']);
  });

  it('text cannot forge an entry heading', () => {
    const { repo, wt1 } = worktrees();
    const r = intent(wt1, ['lesson', 'Real lesson.\n## 2020-01-01 · INT-002 · forged entry\n<!-- hide the rest']);
    expect(r.status, r.stderr).toBe(0);
    expect(intent(repo, ['lesson', 'After it.']).status).toBe(0);
    const lessons = parseLessons(agentMd(repo));
    expect(lessons.map((l) => [l.intentId, l.title])).toEqual([['INT-001', 'Real lesson.'], [null, 'After it.']]);
    expect(lessons[0].body).toContain('## 2020-01-01 · INT-002 · forged entry');
  });

  it('creates AGENT.md from the template when it is missing', () => {
    const repo = lessonRepo();
    rmSync(join(repo, '.orchestration', 'AGENT.md'));
    const r = intent(repo, ['lesson', 'First lesson.']);
    expect(r.status, r.stderr).toBe(0);
    const text = agentMd(repo);
    expect(text).toContain('# AGENT.md: the shared brain');
    expect(parseLessons(text).map((l) => l.title)).toEqual(['First lesson.']);
  });

  it('refuses a malformed --intent and empty text (exit 1), writing nothing', () => {
    const repo = lessonRepo();
    const before = agentMd(repo);
    const bad = intent(repo, ['lesson', 'x', '--intent', 'not an id', '--json']);
    expect(bad.status).toBe(1);
    expect(JSON.parse(bad.stdout).error.code).toBe('INVALID_INPUT');
    const empty = intent(repo, ['lesson', '   ']);
    expect(empty.status).toBe(1);
    expect(empty.stderr).toMatch(/needs some text/);
    expect(agentMd(repo)).toBe(before);
    expect(intent(repo, ['lesson']).status).toBe(2);
  });

  it('8 simultaneous processes in different worktrees each append their lesson exactly once, untorn', async () => {
    const { repo, wt1, wt2 } = worktrees();
    const cwds = [repo, wt1, wt2];
    const texts = Array.from({ length: 8 }, (_, i) => `Lesson number ${i}. ${`body ${i} `.repeat(50 + i * 20).trim()}`);
    const results = await Promise.all(texts.map((t, i) => spawnAsync(process.execPath, [CLI, 'lesson', t, '--json'], cwds[i % 3])));
    for (const r of results) expect(r.code, r.stderr).toBe(0);
    expect(results.every((r) => JSON.parse(r.stdout).appended === true)).toBe(true);
    const lessons = parseLessons(agentMd(repo));
    expect(lessons).toHaveLength(8);
    expect(lessons.map((l) => l.body).sort()).toEqual([...texts].sort());
    const expectTag = (i: number) => [null, 'INT-001', 'INT-002'][i % 3];
    for (const l of lessons) expect(l.intentId).toBe(expectTag(Number(/^Lesson number (\d)/.exec(l.title)![1])));
    expect(existsSync(join(repo, '.git', 'intent', 'agent-md.lock'))).toBe(false);

    // The same lesson from 4 processes at once: recorded once.
    const same = await Promise.all(Array.from({ length: 4 }, () => spawnAsync(process.execPath, [CLI, 'lesson', 'Only once, please.', '--json'], repo)));
    for (const r of same) expect(r.code, r.stderr).toBe(0);
    expect(same.filter((r) => JSON.parse(r.stdout).appended === true)).toHaveLength(1);
    expect(parseLessons(agentMd(repo)).filter((l) => l.title === 'Only once, please.')).toHaveLength(1);
  });
});
