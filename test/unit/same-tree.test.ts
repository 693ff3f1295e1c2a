// The syntax comparison's shortcut (lib/mutation/syntax/same-tree.ts): a change that leaves every
// file's tree as it was is AST_REFACTOR without the full comparison; anything the tree says
// differently, including what a node holds as a plain property (an operator, a keyword, a flag),
// is not the same tree. Real TypeScript parser; the verdicts are checked against classifyChange.
import { describe, expect, it } from 'vitest';
import { sameTrees } from '../../lib/mutation/syntax/same-tree.js';
import { loadTypeScript } from '../../lib/mutation/syntax/sides.js';
import { toEntry } from '../../lib/mutation/syntax/entries.js';
import { classifyChange } from '../../lib/mutation/syntax/classify.js';

const ts = loadTypeScript()!;
const same = (oldText: string, newText: string, path = 'src/a.ts') => sameTrees(ts, [toEntry({ path, oldText, newText }, 0)]);

describe('the same-tree shortcut', () => {
  it.each([
    ['a comment', 'export const a = 1;\n', '// why\nexport const a = 1; /* note */\n'],
    ['layout', 'export function f(x: number) { return x + 1; }\n', 'export function f(x: number) {\n\n    return x + 1;\n}\n'],
    ['optional semicolons', 'const a = 1;\nconst b = 2;\n', 'const a = 1\nconst b = 2\n'],
    ['quote style', "import { a } from './a';\n", 'import { a } from "./a";\n'],
    ['JSX layout', 'export const v = <div className="x" id={a}>{a}</div>;\n', 'export const v = <div\n  className="x"\n  id={a}>{a}</div>;\n', 'src/a.tsx'],
  ])('%s: the same tree, and AST_REFACTOR', (_name, a, b, path = 'src/a.ts') => {
    expect(same(a, b, path)).toBe(true);
    expect(classifyChange([{ path, oldText: a, newText: b }]).class).toBe('AST_REFACTOR');
  });

  it.each([
    ['a prefix operator', 'export const a = -x;\n', 'export const a = +x;\n'],
    ['a postfix operator', 'x++;\n', 'x--;\n'],
    ['let for const', 'let a = 1;\n', 'const a = 1;\n'],
    ['a number', 'export const a = 1;\n', 'export const a = 2;\n'],
    ['a string', "export const a = 'a';\n", "export const a = 'b';\n"],
    ['a template\'s raw text (String.raw sees it)', 'export const a = String.raw`\\u0041`;\n', 'export const a = String.raw`A`;\n'],
    ['a line break return has to keep (ASI)', 'function f() { return x; }\n', 'function f() { return\nx; }\n'],
    ['a regular expression with // and a change after it', 'const r = /https?:\\/\\//; run(1);\n', 'const r = /https?:\\/\\//; run(2);\n'],
    ['export = for export default', 'const a = 1;\nexport = a;\n', 'const a = 1;\nexport default a;\n'],
    ['a type-only import', "import { a } from './a';\nexport const b = a;\n", "import type { a } from './a';\nexport const b = a;\n"],
    ['extends for implements', 'class A extends B {}\n', 'class A implements B {}\n'],
    ['keyof for unique', 'type T = keyof X;\n', 'type T = unique X;\n'],
    ['new.target for import.meta', 'const m = new.target;\n', 'const m = import.meta;\n'],
    ['a parenthesis', 'export const a = (b + c) * d;\n', 'export const a = b + c * d;\n'],
  ])('%s: not the same tree', (_name, a, b) => {
    expect(same(a, b)).toBe(false);
  });

  it('leaves a parse error, a renamed file, an added or deleted one to the full comparison', () => {
    expect(same('export const a = ;\n', 'export const a = ; // x\n')).toBe(false);
    expect(sameTrees(ts, [toEntry({ path: 'src/b.ts', oldPath: 'src/a.ts', oldText: 'const a = 1;\n', newText: 'const a = 1;\n' }, 0)])).toBe(false);
    expect(sameTrees(ts, [toEntry({ path: 'src/a.ts', oldText: null, newText: 'const a = 1;\n' }, 0)])).toBe(false);
    expect(sameTrees(ts, [toEntry({ path: 'src/a.ts', oldText: 'const a = 1;\n', newText: null }, 0)])).toBe(false);
  });
});
