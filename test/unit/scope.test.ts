import { describe, expect, it } from 'vitest';
import { compileScope, globProblem, outOfScope, parseIgnoreFile } from '../../lib/intents/scope.js';

/** [globs, path, expected match] */
const MATCHES: [string[], string, boolean][] = [
  // `**` spans any depth, including dotfiles and dot-folders.
  [['src/**'], 'src/a.ts', true],
  [['src/**'], 'src/a/b/c/d.ts', true],
  [['src/**'], 'src/.env', true],
  [['src/**'], 'src/.hidden/x.ts', true],
  [['src/**'], 'srcx/a.ts', false],
  [['src/**'], 'lib/src/a.ts', false],
  [['src/**'], 'src', false],
  [['**/*.md'], 'README.md', true],
  [['**/*.md'], 'docs/deep/a.md', true],
  [['**/*.md'], '.github/x.md', true],
  [['**/*.md'], 'docs/a.mdx', false],
  [['**'], '.env', true],
  [['**'], 'a/.git-keep/b', true],
  // `*` stays in one segment and matches dotfiles.
  [['*.md'], 'README.md', true],
  [['*.md'], '.notes.md', true],
  [['*.md'], 'docs/a.md', false],
  [['src/*.ts'], 'src/a.ts', true],
  [['src/*.ts'], 'src/a/b.ts', false],
  [['.github/**'], '.github/workflows/ci.yml', true],
  // Exact paths are exact and case-sensitive.
  [['src/middleware/jwt.ts'], 'src/middleware/jwt.ts', true],
  [['src/middleware/jwt.ts'], 'src/middleware/jwt.tsx', false],
  [['src/middleware/jwt.ts'], 'SRC/middleware/jwt.ts', false],
  [['src/middleware/jwt.ts'], 'src/middleware/jwt.ts/x', false],
  // `dir/` means everything under it.
  [['src/auth/'], 'src/auth/a.ts', true],
  [['src/auth/'], 'src/auth/deep/er/a.ts', true],
  [['src/auth/'], 'src/auth/.secret', true],
  [['src/auth/'], 'src/authz/a.ts', false],
  [['src/auth/'], 'src/auth', false],
  // `./` prefix is the repository root.
  [['./src/*.ts'], 'src/a.ts', true],
  [['./src/*.ts'], 'src/a/b.ts', false],
  [['././README.md'], 'README.md', true],
  [['./docs/'], 'docs/x/y.md', true],
  // Negations win, whatever their position.
  [['src/**', '!src/legacy/**'], 'src/legacy/a.ts', false],
  [['src/**', '!src/legacy/**'], 'src/legacy/deep/a.ts', false],
  [['src/**', '!src/legacy/**'], 'src/legacyx/a.ts', true],
  [['!src/legacy/**', 'src/**'], 'src/legacy/a.ts', false],
  [['src/**', '!src/legacy/'], 'src/legacy/a.ts', false],
  [['src/**', '!**/*.test.ts'], 'src/a.test.ts', false],
  [['src/**', '!**/*.test.ts'], 'src/a.ts', true],
  [['src/**', 'src/legacy/keep.ts', '!src/legacy/**'], 'src/legacy/keep.ts', false],
  [['src/**', '!./src/gen/**'], 'src/gen/x.ts', false],
  // Unusual characters in paths.
  [['src/my file.ts'], 'src/my file.ts', true],
  [['src/my file.ts'], 'src/my  file.ts', false],
  [['src/ü/**'], 'src/ü/ä.ts', true],
  [['src/**'], 'src/日本語/ファイル.ts', true],
  [['src/"q".ts'], 'src/"q".ts', true],
  [["src/it's.ts"], "src/it's.ts", true],
  [['src/#x.ts'], 'src/#x.ts', true],
  [['#notes.md'], '#notes.md', true],
  [['src/**'], 'src/[x].ts', true],
  [['src/**'], 'src/tab\tx.ts', true],
  [['src/[[]x[]].ts'], 'src/[x].ts', true],
  [['src/[[]x[]].ts'], 'src/x.ts', false],
  // Character classes and braces.
  [['src/[ab].ts'], 'src/a.ts', true],
  [['src/[ab].ts'], 'src/c.ts', false],
  [['src/{a,b}/**'], 'src/b/x.ts', true],
  [['src/{a,b}/**'], 'src/c/x.ts', false],
  [['src/**/*.{ts,tsx}'], 'src/x/y.tsx', true],
  [['src/**/*.{ts,tsx}'], 'src/x/y.js', false],
];

describe('compileScope', () => {
  it.each(MATCHES)('%j matches %j → %s', (globs, path, want) => {
    for (const g of globs) expect(globProblem(g), `glob ${g} must be valid`).toBeNull();
    expect(compileScope(globs).matches(path)).toBe(want);
  });

  it('keeps the globs it was compiled from', () => {
    const globs = ['src/**', '!src/legacy/**'];
    expect(compileScope(globs).globs).toEqual(globs);
  });

  it('matches nothing with no positive glob', () => {
    expect(compileScope([]).matches('a')).toBe(false);
    expect(compileScope(['!a']).matches('b')).toBe(false);
  });
});

describe('globProblem', () => {
  it.each([
    ['src/**'], ['src/middleware/jwt.ts'], ['!src/auth/legacy/**'], ['src/auth/'], ['./src/*.ts'], ['**'], ['*.md'],
    ['src/{a,b}/*.ts'], ['src/[ab].ts'], ['src/[[]x[]].ts'], ['src/my file.ts'], ['src/ü/**'], ['.github/**'], ['a..b/c'], ['...'],
  ])('accepts %j', (g) => {
    expect(globProblem(g)).toBeNull();
  });

  it.each([
    ['', 'is empty'],
    ['   ', 'is empty'],
    ['!', 'negation "!" has no pattern after it'],
    ['! ', 'negation "!" has no pattern after it'],
    [' src/**', 'has leading or trailing whitespace'],
    ['src/** ', 'has leading or trailing whitespace'],
    ['/src/**', 'is an absolute path'],
    ['!/src/**', 'is an absolute path'],
    ['C:\\src\\**', 'is an absolute path'],
    ['c:/src/**', 'is an absolute path'],
    ['src\\auth\\**', 'contains a backslash'],
    ['src/\\[x\\].ts', 'contains a backslash'],
    ['../x', 'contains ".." and would leave the repository'],
    ['src/../../x', 'contains ".." and would leave the repository'],
    ['src/..', 'contains ".." and would leave the repository'],
    ['!../x', 'contains ".." and would leave the repository'],
    ['!!src/a', 'has a double negation'],
    ['src/a\nb', 'contains a control character'],
    ['src/a\0b', 'contains a control character'],
    ['src/[ab.ts', 'has unbalanced brackets or braces'],
    ['src/ab].ts', 'has unbalanced brackets or braces'],
    ['src/{a,b.ts', 'has unbalanced brackets or braces'],
    ['src/(a', 'has unbalanced brackets or braces'],
    ['[', 'has unbalanced brackets or braces'],
  ])('rejects %j: %s', (g, msg) => {
    const problem = globProblem(g);
    expect(problem).not.toBeNull();
    expect(problem!.startsWith(msg)).toBe(true);
  });

  it.each([
    [5, 'must be a string, got number 5'],
    [true, 'must be a string, got boolean true'],
    [null, 'must be a string, got null'],
    [undefined, 'must be a string, got undefined undefined'],
    [['a'], 'must be a string, got a list'],
    [{ a: 1 }, 'must be a string, got a mapping'],
  ])('rejects the non-string %j', (v, msg) => {
    expect(globProblem(v)).toBe(msg);
  });
});

describe('outOfScope', () => {
  const scope = compileScope(['src/**', '!src/legacy/**', '.orchestration/**']);
  const ignore = compileScope(parseIgnoreFile('package-lock.json\n**/*.generated.ts\n'));
  const paths = [
    'src/a.ts',
    'package-lock.json',
    'lib/x.generated.ts',
    'lib/b.ts',
    'src/legacy/old.ts',
    '.orchestration/active_intents.yaml',
    '.orchestration',
    '.orchestrationx/a',
    'README.md',
  ];

  it('lists the paths outside the scope in input order, ignoring .intentignore globs', () => {
    expect(outOfScope(paths, scope, ignore, false)).toEqual(['lib/b.ts', 'src/legacy/old.ts', '.orchestration', '.orchestrationx/a', 'README.md']);
  });

  it('without an ignore file, ignored paths are violations too', () => {
    expect(outOfScope(paths, scope, null, false)).toEqual([
      'package-lock.json', 'lib/x.generated.ts', 'lib/b.ts', 'src/legacy/old.ts', '.orchestration', '.orchestrationx/a', 'README.md',
    ]);
  });

  it('protects .orchestration/ from intent worktrees even when the scope grants it', () => {
    expect(outOfScope(paths, scope, ignore, true)).toEqual([
      'lib/b.ts', 'src/legacy/old.ts', '.orchestration/active_intents.yaml', '.orchestration', '.orchestrationx/a', 'README.md',
    ]);
  });

  it('protects .orchestration/ even when .intentignore lists it', () => {
    const ign = compileScope(['.orchestration/**', '**']);
    expect(outOfScope(['.orchestration/agent_trace.jsonl', 'anything/else'], scope, ign, true)).toEqual(['.orchestration/agent_trace.jsonl']);
    expect(outOfScope(['.orchestration/agent_trace.jsonl', 'anything/else'], scope, ign, false)).toEqual([]);
  });

  it('returns an empty list when everything is in scope, and keeps duplicates', () => {
    expect(outOfScope(['src/a.ts', 'src/b/c.ts'], scope, null, true)).toEqual([]);
    expect(outOfScope([], scope, null, true)).toEqual([]);
    expect(outOfScope(['x', 'x'], scope, null, true)).toEqual(['x', 'x']);
  });
});

describe('parseIgnoreFile', () => {
  it('skips comments and blank lines, trims, and handles CRLF', () => {
    const text = '# lockfiles\r\npackage-lock.json\r\n\r\n   \r\n  dist/  \r\n\t# indented comment\n*.lock\n# trailing';
    expect(parseIgnoreFile(text)).toEqual(['package-lock.json', 'dist/', '*.lock']);
  });

  it('returns nothing for an empty file and keeps `#` inside a line', () => {
    expect(parseIgnoreFile('')).toEqual([]);
    expect(parseIgnoreFile('\n\n')).toEqual([]);
    expect(parseIgnoreFile('a#b\n')).toEqual(['a#b']);
  });

  it('produces globs that compile and match as expected', () => {
    const ign = compileScope(parseIgnoreFile('# gen\r\ndist/\r\n**/*.snap\r\n'));
    expect(ign.matches('dist/a/b.js')).toBe(true);
    expect(ign.matches('test/__snapshots__/x.snap')).toBe(true);
    expect(ign.matches('src/a.ts')).toBe(false);
  });
});

describe('globs that cannot match in exponential time', () => {
  it('the registry refuses extglobs, naming the brace form to use instead', () => {
    for (const g of ['src/**/+(*.ts|*.js)', '@(src|lib)/**', 'src/*(a|b).ts', '!src/?(x).ts', 'src/!(legacy)/**']) {
      expect(globProblem(g), g).toMatch(/extglob pattern .* write the alternatives with braces instead, e\.g\. "src\/\*\*\/\*\.\{ts,js\}"/);
    }
    // Parentheses that are no extglob (a Next.js route group) and braces stay valid.
    for (const g of ['src/app/(auth)/**', 'src/**/*.{ts,js}', 'src/app/@modal/**']) expect(globProblem(g), g).toBeNull();
  });

  it('a scope that reaches the matcher unvalidated (a note\'s recorded scope) matches a long adversarial name at once: its parentheses are literal', () => {
    // With extglobs on, this name against +(*.ts|*.js) took 0.9 s at 84 characters and doubles with every 3 more.
    const scope = compileScope(['src/**/+(*.ts|*.js)']);
    for (const name of ['src/' + 'a.ts'.repeat(60) + 'x', 'src/' + '.js'.repeat(80) + '.j']) {
      expect(outOfScope([name], scope, null, false)).toEqual([name]);
    }
    expect(outOfScope(['src/+(x.ts|y.js)'], scope, null, false)).toEqual([]);
  }, 20_000); // (milliseconds when linear; with extglobs on, it does not finish)
});

describe('twins a folding file system takes for a path the scope excludes', () => {
  const scope = compileScope(['src/**', '!src/a/secret/**', '!src/café/**']);

  it('an excluded folder in another case or Unicode form is excluded too', () => {
    expect(outOfScope(['src/a/SECRET/key.txt', 'src/a/Secret/key.txt', 'src/cafe\u0301/x.ts', 'src/CAFÉ/x.ts'], scope, null, false))
      .toEqual(['src/a/SECRET/key.txt', 'src/a/Secret/key.txt', 'src/cafe\u0301/x.ts', 'src/CAFÉ/x.ts']);
    expect(outOfScope(['src/a/secrets.ts', 'src/b/SECRET/k.txt', 'src/CAFE/x.ts'], scope, null, false)).toEqual([]);
  });

  it('.orchestration/ in another case is the registry folder; a .git component is never allowed', () => {
    const all = compileScope(['**']);
    expect(outOfScope(['.ORCHESTRATION/active_intents.yaml', '.Orchestration/x'], all, null, true)).toEqual(['.ORCHESTRATION/active_intents.yaml', '.Orchestration/x']);
    expect(outOfScope(['.ORCHESTRATION/active_intents.yaml'], all, null, false)).toEqual([]);
    expect(outOfScope(['src/a/.git/config', 'src/.GIT/hooks/pre-commit', 'x/.git./config', 'x/GIT~1/config', 'src/.gitignore', 'src/.github/x'], all, null, false))
      .toEqual(['src/a/.git/config', 'src/.GIT/hooks/pre-commit', 'x/.git./config', 'x/GIT~1/config']);
  });
});
