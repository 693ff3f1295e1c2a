import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { IntentError } from '../../lib/core/errors.js';
import { stripInvisible } from '../../lib/core/invisible.js';
import {
  MAX_LESSON_CHARS, MAX_TITLE_CHARS, buildLesson, formatLesson, lessonText, lessonsFor, parseLessons, type Lesson,
} from '../../lib/intents/lessons.js';
import { PKG_ROOT } from '../helpers.js';

const NOW = new Date('2026-03-04T10:00:00Z');
const TEMPLATE = readFileSync(join(PKG_ROOT, 'templates', 'orchestration', 'AGENT.md'), 'utf8');

const L = (date: string, intentId: string | null, title: string, body = ''): Lesson => ({ date, intentId, title, body });

describe('parseLessons', () => {
  it('reads heading entries and their bodies; the preamble and HTML comments are ignored', () => {
    const text = `${TEMPLATE}
## 2026-02-16 · INT-001 · Use jose
jsonwebtoken has no ESM build.
Second line.

## 2026-02-17 · general · Lockfiles
Lockfiles are exempt.
<!-- a reviewer's note that nobody should read as a lesson
## 2026-01-01 · INT-009 · commented out -->
### A sub-heading stays in the body
`;
    expect(parseLessons(text)).toEqual([
      L('2026-02-16', 'INT-001', 'Use jose', 'jsonwebtoken has no ESM build.\nSecond line.'),
      L('2026-02-17', null, 'Lockfiles', 'Lockfiles are exempt.\n\n### A sub-heading stays in the body'),
    ]);
  });

  it('the template alone has no lessons (its example is a comment)', () => {
    expect(TEMPLATE).toContain('## 2026-02-16 · INT-001 · short title');
    expect(parseLessons(TEMPLATE)).toEqual([]);
    expect(parseLessons('')).toEqual([]);
  });

  it('keeps malformed headings as general lessons with date ""', () => {
    const text = [
      '## Just a title',
      'body a',
      '## 2026-13-xx · INT-001 · bad date',
      '## 2026-02-16 · not an id! · bad id',
      '## 2026-02-16 · INT-001',
      '##',
      'body f',
      '## 2026-02-16 · GENERAL · upper-case general is general',
    ].join('\n');
    expect(parseLessons(text)).toEqual([
      L('', null, 'Just a title', 'body a'),
      L('', null, '2026-13-xx · INT-001 · bad date'),
      L('', null, '2026-02-16 · not an id! · bad id'),
      L('', null, '2026-02-16 · INT-001'),
      L('', null, '', 'body f'),
      L('2026-02-16', null, 'upper-case general is general'),
    ]);
  });

  it('a title may contain the separator; CRLF files parse the same', () => {
    const text = '## 2026-02-16 · INT-001 · a · b · c\r\nline 1\r\nline 2\r\n';
    expect(parseLessons(text)).toEqual([L('2026-02-16', 'INT-001', 'a · b · c', 'line 1\nline 2')]);
  });

  it('an unclosed comment hides the rest of the file, as Markdown renders it', () => {
    expect(parseLessons('## 2026-01-01 · general · a\nx\n<!-- open\n## 2026-01-02 · general · b\n')).toEqual([L('2026-01-01', null, 'a', 'x')]);
  });

  it('lines indented or without the space after ## are not headings', () => {
    expect(parseLessons('## 2026-01-01 · general · a\n  ## not a heading\n###also body\n')).toEqual([
      L('2026-01-01', null, 'a', '## not a heading\n###also body'),
    ]);
  });
});

describe('buildLesson / formatLesson', () => {
  it('the title is the first sentence of the first line; the body is the whole text', () => {
    const l = buildLesson('  Use jose, not jsonwebtoken. It has no ESM build.\nSee src/auth/jwt.ts.  ', 'INT-001', NOW);
    expect(l).toEqual(L('2026-03-04', 'INT-001', 'Use jose, not jsonwebtoken.', 'Use jose, not jsonwebtoken. It has no ESM build.\nSee src/auth/jwt.ts.'));
    expect(lessonText(l)).toBe(l.body);
  });

  it('round-trips through the file format', () => {
    const lessons = [
      buildLesson('One line', null, NOW),
      buildLesson('Multi\n\nparagraph\n  indented', 'INT-002', NOW),
      buildLesson('# starts with a hash\n## 2020-01-01 · INT-666 · forged\n##\n   ## indented forged\n<!-- hides everything after', 'INT-003', NOW),
    ];
    const file = TEMPLATE + lessons.map(formatLesson).join('');
    expect(parseLessons(file)).toEqual(lessons);
  });

  it('text cannot forge a heading or open a comment that hides later entries', () => {
    const evil = buildLesson('ok\n## 2020-01-01 · INT-666 · forged\n<!--', 'INT-001', NOW);
    const entry = formatLesson(evil);
    expect(entry.split('\n').filter((line) => line.startsWith('## '))).toHaveLength(1);
    expect(entry).not.toContain('<!--');
    const file = entry + formatLesson(buildLesson('after', null, NOW));
    expect(parseLessons(file).map((l) => l.title)).toEqual(['ok', 'after']);
    expect(parseLessons(file)[0].body).toBe('ok\n## 2020-01-01 · INT-666 · forged\n<!--');
  });

  it('bounds: text is cut at 2000 characters with "…", the title at 80', () => {
    const long = buildLesson('word '.repeat(1000), null, NOW);
    expect(Array.from(long.body)).toHaveLength(MAX_LESSON_CHARS);
    expect(long.body.endsWith('…')).toBe(true);
    expect(Array.from(long.title).length).toBeLessThanOrEqual(MAX_TITLE_CHARS);
    expect(long.title.endsWith('…')).toBe(true);
    // Multi-byte characters are never split.
    const emoji = buildLesson('😀'.repeat(3000), null, NOW);
    expect(Array.from(emoji.body)).toHaveLength(MAX_LESSON_CHARS);
    expect(emoji.body).toBe('😀'.repeat(MAX_LESSON_CHARS - 1) + '…');
    expect(lessonText(long)).toBe(long.body);
  });

  it('strips control characters and normalises line ends', () => {
    expect(buildLesson('a\x00b\x1b[31m\r\nc\rd', null, NOW).body).toBe('ab[31m\nc\nd');
  });

  it('refuses empty text and ids the registry would refuse', () => {
    for (const text of ['', '   \n\t ']) {
      expect(() => buildLesson(text, null, NOW)).toThrow(IntentError);
    }
    for (const id of ['INT 1', '-x', '../x', 'a'.repeat(65), '']) {
      let thrown: unknown = null;
      try {
        buildLesson('text', id, NOW);
      } catch (e) {
        thrown = e;
      }
      expect(thrown, `accepted ${JSON.stringify(id)}`).toBeInstanceOf(IntentError);
      expect((thrown as IntentError).code).toBe('INVALID_INPUT');
    }
    expect(buildLesson('text', 'a'.repeat(64), NOW).intentId).toBe('a'.repeat(64));
  });
});

describe('lessonText', () => {
  it('puts a hand-written title in front of a body that does not repeat it', () => {
    expect(lessonText(L('2026-01-01', null, 'short title', 'What happened.'))).toBe('short title: What happened.');
    expect(lessonText(L('2026-01-01', null, 'only a title'))).toBe('only a title');
  });
});

describe('lessonsFor', () => {
  const intent = { id: 'INT-001', owned_scope: ['src/auth/**', 'src/middleware/jwt.ts', '!src/auth/legacy/**'] };

  it('tagged (newest first), then mentioning the scope (newest first), then general (newest first)', () => {
    const lessons = [
      L('2026-01-01', 'INT-001', 'tagged old'),
      L('2026-01-05', null, 'general new'),
      L('2026-01-02', 'INT-002', 'other intent, about src/auth/session.ts'),
      L('2026-01-03', 'INT-001', 'tagged new'),
      L('2026-01-01', null, 'general old'),
      L('2026-01-04', 'INT-002', 'other intent, unrelated', 'src/billing/x.ts'),
      L('2026-01-06', null, 'general about the middleware', 'Touching src/middleware/jwt.ts breaks the login.'),
      L('', null, 'malformed general'),
      L('2026-01-02', 'INT-001', 'tagged same day, later in the file'),
    ];
    expect(lessonsFor(lessons, intent).map((l) => l.title)).toEqual([
      'tagged new',
      'tagged same day, later in the file',
      'tagged old',
      'general about the middleware',
      'other intent, about src/auth/session.ts',
      'general new',
      'general old',
      'malformed general',
    ]);
  });

  it('a mention of a glob\'s literal prefix counts; similar names and negated paths do not', () => {
    const about = (text: string) => lessonsFor([L('2026-01-01', 'INT-009', text)], intent).length === 1;
    expect(about('The src/auth folder needs a README')).toBe(true);
    expect(about('see `src/auth/`')).toBe(true);
    expect(about('(src/middleware/jwt.ts)')).toBe(true);
    expect(about('./src/auth/x/y.ts is generated')).toBe(true);
    expect(about('src/authz is different')).toBe(false);
    expect(about('mysrc/auth/a.ts is elsewhere')).toBe(false);
    expect(about('src/middleware/jwt.tsx is elsewhere')).toBe(false);
    expect(about('src/billing/a.ts')).toBe(false);
    expect(about('nothing about paths')).toBe(false);
  });

  it('a glob with only a wildcard prefix is matched against the paths a lesson mentions', () => {
    const wide = { id: 'INT-001', owned_scope: ['**/*.sql'] };
    expect(lessonsFor([L('2026-01-01', 'INT-002', 'migrations/001_init.sql is slow')], wide)).toHaveLength(1);
    expect(lessonsFor([L('2026-01-01', 'INT-002', 'migrations are slow')], wide)).toHaveLength(0);
  });
});

describe('invisible characters (issue 27)', () => {
  it('buildLesson drops every bidi control, zero-width, tag and other format or control character, and keeps tabs and line breaks', () => {
    const bidi = '\u202A\u202B\u202C\u202D\u202E\u2066\u2067\u2068\u2069\u200E\u200F\u061C';
    const zeroWidth = '\u200B\u200C\u200D\u2060\uFEFF\u00AD';
    const l = buildLesson(`Keep${bidi}${zeroWidth} it\u{E0049}\u{E0047} plain.\u0007\u2028\tTabbed\r\nline two\u0085`, 'INT-001', new Date('2026-11-27T00:00:00Z'));
    expect(l.body).toBe('Keep it plain.\tTabbed\nline two');
    expect(l.title).toBe('Keep it plain.');
  });

  it('stripInvisible leaves ordinary letters, accents, CJK and emoji alone', () => {
    const text = 'Déjà vu: 日本語 😀 a→b «q»';
    expect(stripInvisible(text)).toBe(text);
  });
});
