import { describe, expect, it } from 'vitest';
import { tokenSignature } from '../../lib/mutation/classify.js';
import { classifySource } from '../../lib/mutation/syntax/index.js';

/** Formatter-style refactors (what prettier and friends do): the syntax comparison calls each a refactor. */
const REFACTORS: [string, string][] = [
  ['const x = (a + 0x10) * 2;\n', 'const x = (a + 16) * 2;\n'],
  ['export const f = (x) => (x + 1);\n', 'export const f = x => x + 1;\n'],
  ["const s = 'it\\'s';\n", 'const s = "it\'s";\n'],
  ['const s = "tab\\there";\n', "const s = 'tab\\u0009here';\n"],
  ["const o = { 'a': 1, '10': 2 };\n", 'const o = { a: 1, 10: 2 };\n'],
  ['const n = .5 + 1.50 + 1_000 + 0XFF;\n', 'const n = 0.5 + 1.5 + 1000 + 0xff;\n'],
  ['const d = new Date;\n', 'const d = new Date();\n'],
];

describe('the token filter (settles an evolution without loading the compiler)', () => {
  it.each(REFACTORS)('is not finer than the syntax comparison: %j', (a, b) => {
    expect(classifySource('src/a.ts', a, b).class).toBe('AST_REFACTOR');
    expect(tokenSignature(a)).toBe(tokenSignature(b));
  });

  it('still tells changed values apart', () => {
    expect(tokenSignature('const x = 0x10;\n')).not.toBe(tokenSignature('const x = 17;\n'));
    expect(tokenSignature("const s = 'a b';\n")).not.toBe(tokenSignature("const s = 'a c';\n"));
    expect(tokenSignature('const x = a + b;\n')).not.toBe(tokenSignature('const x = a - b;\n'));
  });
});
