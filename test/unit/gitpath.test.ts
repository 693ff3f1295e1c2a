import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cQuote, matchName, recordPath, recordPathOf, splitNulPaths, unquoteBytes } from '../../lib/git/paths.js';
import { stagedPaths, stagedPathsAndPatch } from '../../lib/git/diff.js';
import { predictsSyntax } from '../../lib/mutation/ahead.js';
import { syntaxOf } from '../../lib/mutation/languages.js';
import { git, makeRepo, PKG_ROOT } from '../helpers.js';

// File names are bytes: the recorded form keeps names that are not UTF-8 apart (lib/git/paths.ts).

const b = (...parts: (string | number[])[]) => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : Buffer.from(p))));

describe('recorded path form', () => {
  it('writes UTF-8 names as themselves and the rest quoted as git quotes them, so no two names share a form', () => {
    expect(recordPath(b('src/café ✓.ts'))).toBe('src/café ✓.ts');
    expect(recordPath(b('src/caf', [0xe9], '.txt'))).toBe('"src/caf\\351.txt"');
    expect(recordPath(b('src/caf', [0xe8], '.txt'))).toBe('"src/caf\\350.txt"');
    // a UTF-8 name that starts with a double quote is quoted too, so a quoted form is never a real name
    expect(recordPath(b('"top".txt'))).toBe('"\\"top\\".txt"');
    expect(recordPath(b('a"b'))).toBe('a"b');
    expect(recordPath(b('tab\there'))).toBe('tab\there');
  });

  it('round-trips: the bytes of a recorded quoted form are the name; matchName decodes it for the globs', () => {
    for (const name of [b('src/caf', [0xe9], '.txt'), b('"x'), b([0xff, 0xfe, 0x0a, 0x5c, 0x22, 0x07])]) {
      const rec = recordPath(name);
      expect(rec.startsWith('"')).toBe(true);
      expect(unquoteBytes(rec).equals(name)).toBe(true);
      expect(recordPathOf(rec)).toBe(rec);
    }
    expect(matchName('"src/caf\\351.txt"')).toBe('src/caf\uFFFD.txt');
    expect(matchName('src/plain.txt')).toBe('src/plain.txt');
  });

  it("quotes exactly like git's core.quotePath, and reads git's -z output by bytes", () => {
    const repo = makeRepo();
    const names = [b('src/caf', [0xe9], '.txt'), b('src/ü ber.txt'), b('src/q"uote\\.txt'), b('src/', [0x01, 0x7f, 0xc3], 'x')];
    mkdirSync(join(repo, 'src'));
    for (const n of names) writeFileSync(Buffer.concat([Buffer.from(repo + '/'), n]), 'x\n');
    git(repo, 'add', '-A');
    const quoted = git(repo, '-c', 'core.quotePath=true', 'ls-files').split('\n').filter((l) => l.startsWith('src/') || l.startsWith('"src/'));
    const z = spawnSync('git', ['ls-files', '-z', 'src'], { cwd: repo }).stdout as Buffer;
    const fromZ = splitNulPaths(z);
    const ours = names.map((n) => cQuote(n));
    // git quotes every name here that has a byte outside printable ASCII; ours matches it byte for byte
    for (const q of quoted.filter((l) => l.startsWith('"'))) expect(ours).toContain(q);
    expect(fromZ.sort()).toEqual(quoted.map(recordPathOf).sort());
  });
});

describe("pre-commit's one staged diff: every path, and the TS/JS files' patch", () => {
  const attributes = join(PKG_ROOT, 'git-hooks', 'compiled.gitattributes');
  const names = [b('src/caf', [0xe9], '.ts'), b('src/new\nline.md'), b('src/"q".MJS'), b('src/a b.json'), b('src/x.tsx'), b('docs/n.txt')];
  const setup = () => {
    const repo = makeRepo();
    mkdirSync(join(repo, 'src'));
    mkdirSync(join(repo, 'docs'));
    const file = (n: Buffer) => Buffer.concat([Buffer.from(repo + '/'), n]);
    for (const n of names) writeFileSync(file(n), 'export const a = 1;\n');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'base');
    for (const n of names) writeFileSync(file(n), 'export const a = 2;\n');
    writeFileSync(join(repo, 'src', 'added.js'), 'x\n');
    git(repo, 'add', '-A');
    return repo;
  };

  it('lists the same paths as stagedPaths and diffs only the TS/JS files (any case), names quoted alike', () => {
    const repo = setup();
    const { paths, patch } = stagedPathsAndPatch(repo, attributes, 1_000_000);
    expect(paths.sort()).toEqual(stagedPaths(repo).sort());
    expect(paths).toHaveLength(7);
    const blocks = patch!.split(/^(?=diff --git )/m);
    const hunked = blocks.filter((x) => x.includes('\n@@ ')).map((x) => x.split('\n')[0]);
    expect(hunked).toEqual([
      'diff --git "a/src/\\"q\\".MJS" "b/src/\\"q\\".MJS"',
      'diff --git a/src/added.js b/src/added.js',
      'diff --git "a/src/caf\\351.ts" "b/src/caf\\351.ts"',
      'diff --git a/src/x.tsx b/src/x.tsx',
    ]);
    // the others are named, their content unread
    expect(blocks.filter((x) => x.includes('Binary files'))).toHaveLength(3);
    expect(patch).not.toContain('+export const a = 2;\ndiff --git a/docs');
    // the prediction reads the TS/JS part only
    expect(predictsSyntax(patch!)).toBe(false);
  });

  it('a patch over the limit is left out; a list of paths cut short is read again in full', () => {
    const repo = setup();
    const cut = stagedPathsAndPatch(repo, attributes, 200);
    expect(cut.patch).toBeNull();
    expect(cut.paths.sort()).toEqual(stagedPaths(repo).sort());
    const many = makeRepo();
    for (let i = 0; i < 400; i++) writeFileSync(join(many, `file-${i}.ts`), `export const v${i} = ${i};\n`);
    git(many, 'add', '-A');
    const r = stagedPathsAndPatch(many, attributes, 4096);
    expect(r.patch).toBeNull();
    expect(r.paths).toHaveLength(400); // the raw part alone is ~40 kB: cut short, read again
    expect(r.paths.sort()).toEqual(stagedPaths(many).sort());
  });

  it('the shipped attributes leave exactly the compiled extensions diffable', () => {
    const repo = makeRepo();
    const files = ['a.ts', 'b.MTS', 'c.cts', 'd.Tsx', 'e.js', 'f.mjs', 'g.CJS', 'h.jsx', 'i.md', 'j.json', 'k.tsv', 'l.d.ts', 'js', 'm.ts.bak'];
    const out = spawnSync('git', ['-c', `core.attributesFile=${attributes}`, 'check-attr', 'diff', '--', ...files], { cwd: repo, encoding: 'utf8' }).stdout;
    const diffable = out.trim().split('\n').filter((l) => l.endsWith(': diff: unspecified')).map((l) => l.split(':')[0]);
    expect(diffable).toEqual(files.filter((f) => syntaxOf(f)));
    expect(diffable).toHaveLength(9);
  });
});
