import { describe, expect, it } from 'vitest';
import { classifyChange, classifySource } from '../../lib/mutation/syntax/index.js';

const JWT_OLD = `import jwt from 'jsonwebtoken';
import { config } from './config';

export const ISSUER = 'intent';

export function login(user: { id: string }) {
  const payload = { sub: user.id, iss: ISSUER };
  return jwt.sign(payload, config.secret, { expiresIn: 3600 });
}

function helper(x: number): number {
  return x * 2;
}

export function twice(n: number) {
  return helper(n) + helper(n + 1);
}
`;

const refactor = { class: 'AST_REFACTOR' };

function evolution(v: { class: string; reason?: string }, ...parts: (string | RegExp)[]): void {
  expect(v.class).toBe('INTENT_EVOLUTION');
  expect(typeof v.reason).toBe('string');
  for (const p of parts) {
    if (typeof p === 'string') expect(v.reason).toContain(p);
    else expect(v.reason).toMatch(p);
  }
}

describe('classifySource: formatting', () => {
  it('ignores indentation, line breaks, quotes, semicolons and comments', () => {
    const formatted = `// Authentication entry points
import jwt from "jsonwebtoken"
import { config } from "./config"

/** The issuer claim. */
export const ISSUER = "intent"

export function login(user: {id: string}) {
    const payload = {sub: user.id, iss: ISSUER} // claims
    return jwt.sign(
        payload,
        config.secret,
        {expiresIn: 3600},
    )
}

function helper(x: number): number { return x * 2 }

/* doubled twice */
export function twice(n: number) { return helper(n) + helper(n + 1) }
`;
    expect(classifySource('src/auth/jwt.ts', JWT_OLD, formatted)).toEqual(refactor);
  });

  it('ignores trailing commas, redundant parentheses, quoted keys and numeric spelling', () => {
    const a = `const o = { a: 1, 'b-c': [1, 2], d: 0x10 };\nexport const f = (x) => x + 1;\n`;
    const b = `const o = { 'a': 1, "b-c": [1, 2,], d: 16, };\nexport const f = x => (x + 1);\n`;
    expect(classifySource('src/a.js', a, b)).toEqual(refactor);
  });

  it('ignores ASI vs explicit semicolons and blank lines in JS', () => {
    const a = `let x = 1\nlet y = 2\n\n\nconsole.log(x + y)\n`;
    const b = `let x = 1;\nlet y = 2;\nconsole.log(x + y);\n`;
    expect(classifySource('index.mjs', a, b)).toEqual(refactor);
  });

  it('treats JSX whitespace like React does', () => {
    const a = `export function App() {\n  return <div className="a"><span>Hello world</span></div>;\n}\n`;
    const b = `export function App() {\n  return (\n    <div className='a'>\n      <span>\n        Hello world\n      </span>\n    </div>\n  );\n}\n`;
    expect(classifySource('src/App.tsx', a, b)).toEqual(refactor);
    evolution(classifySource('src/App.tsx', a, a.replace('Hello world', 'Hello there')), 'function App', 'Hello there', 'src/App.tsx:2');
  });

  it('unchanged text is a refactor', () => {
    expect(classifySource('src/a.ts', JWT_OLD, JWT_OLD)).toEqual(refactor);
  });
});

describe('classifySource: renames', () => {
  it('a consistent rename of locals and parameters is a refactor', () => {
    const a = `export function total(items: number[], rate: number) {\n  let sum = 0;\n  for (const item of items) sum += item * rate;\n  return sum;\n}\n`;
    const b = `export function total(values: number[], factor: number) {\n  let acc = 0;\n  for (const v of values) acc += v * factor;\n  return acc;\n}\n`;
    expect(classifySource('src/total.ts', a, b)).toEqual(refactor);
  });

  it('shorthand properties and destructuring follow renames without changing keys', () => {
    const a = `export function f(o) {\n  const { name } = o;\n  return { name };\n}\n`;
    const b = `export function f(input) {\n  const { name: n } = input;\n  return { name: n };\n}\n`;
    expect(classifySource('src/f.js', a, b)).toEqual(refactor);
  });

  it('renaming a non-exported function and all its calls is a refactor', () => {
    const b = JWT_OLD.replace(/helper/g, 'double');
    expect(classifySource('src/auth/jwt.ts', JWT_OLD, b)).toEqual(refactor);
  });

  it('an inconsistent rename (one use left with the old name) is an evolution', () => {
    const a = `export function area(width: number, height: number) {\n  const result = width * height;\n  return result;\n}\n`;
    const b = `export function area(w: number, height: number) {\n  const result = w * height;\n  return width + result;\n}\n`;
    evolution(classifySource('src/area.ts', a, b), 'function area', 'width', 'src/area.ts:3');
  });

  it('a call left with the old name of a renamed function is an evolution', () => {
    const b = JWT_OLD.replace('function helper', 'function double').replace('return helper(n)', 'return double(n)');
    evolution(classifySource('src/auth/jwt.ts', JWT_OLD, b), 'function twice', 'helper');
  });

  it('a rename that captures an outer name is an evolution', () => {
    const a = `const limit = 10;\nexport function clamp(n: number) {\n  const max = 5;\n  return Math.min(n, max, limit);\n}\n`;
    const b = `const limit = 10;\nexport function clamp(n: number) {\n  const limit = 5;\n  return Math.min(n, limit, limit);\n}\n`;
    evolution(classifySource('src/clamp.ts', a, b), 'function clamp');
  });

  it('renaming the local alias of an import is a refactor; importing another name is not', () => {
    const a = `import { readFile } from 'node:fs/promises';\nexport const load = (p: string) => readFile(p, 'utf8');\n`;
    const b = `import { readFile as read } from 'node:fs/promises';\nexport const load = (p: string) => read(p, 'utf8');\n`;
    const c = `import { writeFile } from 'node:fs/promises';\nexport const load = (p: string) => writeFile(p, 'utf8');\n`;
    expect(classifySource('src/load.ts', a, b)).toEqual(refactor);
    evolution(classifySource('src/load.ts', a, c), 'function load', 'readFile became writeFile');
  });

  it('renaming an object property key is an evolution, renaming a private member is not', () => {
    const a = `export class Cache {\n  #store = new Map();\n  private hits = 0;\n  get(k: string) { this.hits++; return this.#store.get(k); }\n}\n`;
    const b = `export class Cache {\n  #entries = new Map();\n  private count = 0;\n  get(k: string) { this.count++; return this.#entries.get(k); }\n}\n`;
    expect(classifySource('src/cache.ts', a, b)).toEqual(refactor);
    const pub = a.replace('get(k: string)', 'fetch(k: string)');
    evolution(classifySource('src/cache.ts', a, pub), 'fetch');
    const key = `export const cfg = () => ({ expiresIn: 1 });\n`;
    evolution(classifySource('src/cfg.ts', key, key.replace('expiresIn', 'expires')), 'function cfg', 'expiresIn became expires');
  });
});

describe('classifySource: order', () => {
  it('reordered declarations are a refactor', () => {
    const a = `export interface User { id: string }\nexport function a() { return b(); }\nexport function b() { return 1; }\nconst LIMIT = 3;\n`;
    const b = `const LIMIT = 3;\nexport function b() { return 1; }\nexport interface User { id: string }\nexport function a() { return b(); }\n`;
    expect(classifySource('src/order.ts', a, b)).toEqual(refactor);
  });

  it('reordered imports and import specifiers are a refactor', () => {
    const a = `import { b, a } from './x';\nimport fs from 'node:fs';\nimport type { T } from './t';\nexport const f = (t: T) => a(b(fs, t));\n`;
    const b = `import fs from 'node:fs';\nimport type { T } from './t';\nimport { a } from './x';\nimport { b } from './x';\nexport const f = (t: T) => a(b(fs, t));\n`;
    expect(classifySource('src/imports.ts', a, b)).toEqual(refactor);
  });

  it('reordered class methods are a refactor', () => {
    const a = `export class A {\n  x() { return 1; }\n  y() { return this.x() + 1; }\n}\n`;
    const b = `export class A {\n  y() { return this.x() + 1; }\n  x() { return 1; }\n}\n`;
    expect(classifySource('src/A.ts', a, b)).toEqual(refactor);
  });

  it('reordered statements that run code are an evolution', () => {
    const a = `console.log('start');\nsetup();\n`;
    const b = `setup();\nconsole.log('start');\n`;
    evolution(classifySource('src/main.js', a, b), 'src/main.js');
  });

  it('a constant moved below the statement that reads it is an evolution', () => {
    const a = `const PORT = 8080;\nlisten(PORT);\n`;
    const b = `listen(PORT);\nconst PORT = 8080;\n`;
    evolution(classifySource('src/server.js', a, b), 'listen(PORT)');
  });
});

describe('classifySource: behaviour changes', () => {
  it('a changed literal names the function and both values', () => {
    const v = classifySource('src/auth/jwt.ts', JWT_OLD, JWT_OLD.replace('3600', '7200'));
    evolution(v, 'function login', 'literal 3600 became 7200', 'src/auth/jwt.ts:8');
  });

  it('an added if branch is an evolution', () => {
    const b = JWT_OLD.replace("  const payload", "  if (!user.id) throw new Error('no id');\n  const payload");
    evolution(classifySource('src/auth/jwt.ts', JWT_OLD, b), 'function login', 'if statement added', 'src/auth/jwt.ts:7');
  });

  it('a changed operator is an evolution', () => {
    evolution(classifySource('src/auth/jwt.ts', JWT_OLD, JWT_OLD.replace('x * 2', 'x + 2')), 'function helper', 'operator * became +');
  });

  it('changed call arguments are an evolution', () => {
    evolution(classifySource('src/auth/jwt.ts', JWT_OLD, JWT_OLD.replace('helper(n + 1)', 'helper(n, 1)')), 'function twice');
  });

  it('a new function is an evolution that names it', () => {
    const b = `${JWT_OLD}\nexport function validateToken(token: string) {\n  return jwt.verify(token, config.secret);\n}\n`;
    evolution(classifySource('src/auth/jwt.ts', JWT_OLD, b), 'new function validateToken', 'src/auth/jwt.ts:19');
  });

  it('a removed function is an evolution', () => {
    const a = `${JWT_OLD}\nexport function unused() {\n  return 0;\n}\n`;
    evolution(classifySource('src/auth/jwt.ts', a, JWT_OLD), 'function unused removed');
  });

  it('a changed type annotation is an evolution', () => {
    evolution(classifySource('src/auth/jwt.ts', JWT_OLD, JWT_OLD.replace('helper(x: number)', 'helper(x: bigint)')), 'function helper');
  });

  it('an export dropped from a declaration is an evolution', () => {
    evolution(classifySource('src/auth/jwt.ts', JWT_OLD, JWT_OLD.replace('export function twice', 'function twice')), 'twice', 'no longer exported');
  });

  it('let becoming const is an evolution', () => {
    evolution(classifySource('src/a.ts', 'export function f() { let x = 1; return x; }', 'export function f() { const x = 1; return x; }'), 'function f', 'let became const');
  });
});

describe('classifySource: classes, modules and modifiers', () => {
  it('renaming a class, its type parameter and private members consistently is a refactor', () => {
    const a = `export class Auth<T> {\n  private k: T;\n  constructor(k: T) { this.k = k; }\n  get(): T { return this.k; }\n}\nexport const a = new Auth(1);\n`;
    const b = `export class Authz<U> {\n  private key: U;\n  constructor(key: U) { this.key = key; }\n  get(): U { return this.key; }\n}\nexport const a = new Authz(1);\n`;
    expect(classifySource('src/auth.ts', a, b)).toEqual(refactor);
  });

  it('renaming a constructor parameter property consistently is a refactor', () => {
    const a = 'export class A { constructor(private x: number) {} get() { return this.x; } }';
    expect(classifySource('src/A.ts', a, a.replace(/\bx\b/g, 'y'))).toEqual(refactor);
  });

  it('swapping two names everywhere is a refactor, swapping them in one place is not', () => {
    const a = 'function a() { return 1 }\nfunction b() { return 2 }\nexport const r = a() - b();\n';
    expect(classifySource('src/s.ts', a, 'function b() { return 1 }\nfunction a() { return 2 }\nexport const r = b() - a();\n')).toEqual(refactor);
    evolution(classifySource('src/s.ts', a, 'function b() { return 1 }\nfunction a() { return 2 }\nexport const r = a() - b();\n'), 'const r', 'src/s.ts:3');
  });

  it('reordered class fields and enum members are an evolution', () => {
    evolution(classifySource('src/A.ts', 'class A { a = 1; b = this.a + 1 }', 'class A { b = this.a + 1; a = 1 }'), 'property A.b', 'comes before');
    evolution(classifySource('src/E.ts', 'export enum E { A, B }', 'export enum E { B, A }'), 'enum E');
  });

  it('an added modifier or argument is named', () => {
    evolution(classifySource('src/f.ts', 'export function f(a) { return a }', 'export async function f(a) { return a }'), 'function f', 'modifier async added');
    evolution(classifySource('src/f.ts', 'export function f(a) { return g(a) }', 'export function f(a) { return g(a, 1) }'), 'function f', 'literal 1 added to the arguments of call to g');
  });

  it('CommonJS exports compare by key: renaming the function is a refactor, renaming the key is not', () => {
    const a = "const fs = require('fs');\nfunction read(p) { return fs.readFileSync(p) }\nmodule.exports = { read };\n";
    expect(classifySource('src/io.cjs', a, "const fs = require('fs')\nfunction load(p) { return fs.readFileSync(p) }\nmodule.exports = { read: load }\n")).toEqual(refactor);
    evolution(classifySource('src/io.cjs', a, "const fs = require('fs')\nfunction load(p) { return fs.readFileSync(p) }\nmodule.exports = { load }\n"), 'read became load');
  });

  it('namespace imports of a file in the change follow its renamed exports', () => {
    const a = { path: 'src/a.ts', oldText: 'export function x() { return 1 }\n', newText: 'export function y() { return 1 }\n' };
    const ok = classifyChange([a, { path: 'src/b.ts', oldText: "import * as A from './a';\nexport const z = () => A.x();\n", newText: "import * as A from './a';\nexport const z = () => A.y();\n" }]);
    expect(ok.class).toBe('AST_REFACTOR');
    const stale = classifyChange([a, { path: 'src/b.ts', oldText: "import * as A from './a';\nexport const z = () => A.x();\n", newText: "import * as A from './a';\nexport const z = () => A.x();\n" }]);
    evolution(stale, 'function z', 'src/b.ts:2');
  });

  it('changing what a default export is, or its export name, is an evolution', () => {
    evolution(classifySource('src/d.ts', 'export default function () { return 1 }', 'export default function () { return 2 }'), 'default-exported function', 'literal 1 became 2');
    evolution(classifySource('src/d.ts', 'function f() {}\nexport { f as g };\n', 'function f() {}\nexport { f as k };\n'), 'export g renamed to k');
  });
});

describe('classifySource: scope subtleties', () => {
  it('a var initializer moved above code that assigns the var is an evolution', () => {
    evolution(classifySource('src/v.js', 'x = 5;\nconsole.log(x);\nvar x = 1;\n', 'var x = 1;\nx = 5;\nconsole.log(x);\n'), 'var x');
  });

  it('with eval in the file, local names count', () => {
    evolution(classifySource('src/e.js', 'function f(a) { return eval("a") }', 'function f(b) { return eval("a") }'), 'function f', 'a became b');
    expect(classifySource('src/e.js', 'function f(a) { return a } // eval', 'function f(b) { return b }')).toEqual(refactor);
  });

  it('a script that becomes an ES module (strict mode) is an evolution', () => {
    evolution(classifySource('src/s.js', 'function f(a) { return a }\n', 'function f(a) { return a }\nexport {};\n'), 'now an ES module');
  });
});

describe('classifyChange: several files', () => {
  it('an exported function renamed together with its import and call in another file is a refactor', () => {
    const v = classifyChange([
      { path: 'src/auth/jwt.ts', oldText: JWT_OLD, newText: JWT_OLD.replace('function login', 'function signIn') },
      {
        path: 'src/routes.ts',
        oldText: `import { login } from './auth/jwt';\nexport const route = (u: { id: string }) => login(u);\n`,
        newText: `import { signIn } from './auth/jwt.js';\nexport const route = (u: { id: string }) => signIn(u);\n`,
      },
    ]);
    expect(v).toEqual({ class: 'AST_REFACTOR', files: { 'src/auth/jwt.ts': refactor, 'src/routes.ts': refactor } });
  });

  it('a renamed export whose importer in the change still uses the old name is an evolution', () => {
    const v = classifyChange([
      { path: 'src/auth/jwt.ts', oldText: JWT_OLD, newText: JWT_OLD.replace('function login', 'function signIn') },
      {
        path: 'src/routes.ts',
        oldText: `import { login } from './auth/jwt';\nexport const route = (u: { id: string }) => login(u);\n`,
        newText: `import { login } from './auth/jwt';\nexport const route = (u: { id: string }) => login(u);\n`,
      },
    ]);
    evolution(v, 'function route', 'login');
    expect(v.files['src/routes.ts'].class).toBe('INTENT_EVOLUTION');
  });

  it('a function moved between two files is a refactor', () => {
    const a = `export function keep() {\n  return 1;\n}\n\nexport function moved(x: number) {\n  return x * 3;\n}\n`;
    const v = classifyChange([
      { path: 'src/a.ts', oldText: a, newText: `export function keep() {\n  return 1;\n}\n` },
      { path: 'src/b.ts', oldText: `export const B = 2;\n`, newText: `export const B = 2;\n\nexport function moved(y: number) { return y * 3 }\n` },
    ]);
    expect(v).toEqual({ class: 'AST_REFACTOR', files: { 'src/a.ts': refactor, 'src/b.ts': refactor } });
  });

  it('a helper moved into a new file, exported and imported back is a refactor', () => {
    const v = classifyChange([
      {
        path: 'src/main.ts',
        oldText: `function helper(s: string) {\n  return s.trim();\n}\nexport function main(s: string) {\n  return helper(s);\n}\n`,
        newText: `import { helper } from './util';\n\nexport function main(s: string) {\n  return helper(s);\n}\n`,
      },
      { path: 'src/util.ts', oldText: null, newText: `export function helper(s: string) {\n  return s.trim();\n}\n` },
    ]);
    expect(v.class).toBe('AST_REFACTOR');
  });

  it('a function moved and changed is an evolution', () => {
    const v = classifyChange([
      { path: 'src/a.ts', oldText: `export function moved(x: number) {\n  return x * 3;\n}\n`, newText: `` },
      { path: 'src/b.ts', oldText: null, newText: `export function moved(x: number) {\n  return x * 4;\n}\n` },
    ]);
    evolution(v, 'function moved', 'literal 3 became 4', 'src/b.ts:2');
    expect(v.files['src/b.ts'].class).toBe('INTENT_EVOLUTION');
  });

  it('a deleted file whose declarations all reappear elsewhere is a refactor', () => {
    const v = classifyChange([
      { path: 'src/old.ts', oldText: `export function one() { return 1; }\nexport function two() { return 2; }\n`, newText: null },
      { path: 'src/new.ts', oldText: null, newText: `export function two() { return 2; }\n\nexport function one() { return 1; }\n` },
    ]);
    expect(v.class).toBe('AST_REFACTOR');
  });

  it('an added file with new declarations is an evolution', () => {
    const v = classifyChange([{ path: 'src/fresh.ts', oldText: null, newText: `export function fresh() { return 1; }\n` }]);
    evolution(v, 'new function fresh', 'src/fresh.ts:1');
  });

  it('a deleted file whose declarations vanish is an evolution', () => {
    const v = classifyChange([{ path: 'src/gone.ts', oldText: `export function gone() { return 1; }\n`, newText: null }]);
    evolution(v, 'function gone removed');
  });

  it('the commit is an evolution when any file is, with that file’s reason', () => {
    const v = classifyChange([
      { path: 'src/a.ts', oldText: 'export const a = 1;\n', newText: "export const a = 1\n" },
      { path: 'src/b.ts', oldText: 'export const b = 1;\n', newText: 'export const b = 2;\n' },
    ]);
    expect(v.files['src/a.ts']).toEqual(refactor);
    evolution(v.files['src/b.ts'], 'const b', 'literal 1 became 2');
    expect(v.reason).toBe(v.files['src/b.ts'].reason);
  });
});

describe('other languages and hostile input', () => {
  it('a .py file with only whitespace changes is a refactor', () => {
    const a = `def area(w, h):\n    return w*h\n\n\nprint(area(2,3))\n`;
    const b = `def area(w, h):\n        return w * h\n\nprint(area(2, 3))   \n`;
    expect(classifySource('tools/area.py', a, b)).toEqual(refactor);
  });

  it('a .py file with a changed token is an evolution', () => {
    const a = `def area(w, h):\n    return w*h\n`;
    evolution(classifySource('tools/area.py', a, a.replace('w*h', 'w+h')), 'changed lines in tools/area.py (no syntax comparison for this language)');
  });

  it('a .py file whose nesting changed is an evolution', () => {
    const a = `for x in xs:\n    f(x)\n    g(x)\n`;
    const b = `for x in xs:\n    f(x)\ng(x)\n`;
    evolution(classifySource('loop.py', a, b), 'loop.py');
  });

  it('whitespace inside a string literal counts in the fallback', () => {
    evolution(classifySource('a.rb', `puts "a  b"\n`, `puts "a b"\n`), 'a.rb');
  });

  it('reformatted JSON is a refactor', () => {
    expect(classifySource('package.json', '{"a":1,"b":[1,2]}', '{\n  "a": 1,\n  "b": [\n    1,\n    2\n  ]\n}\n')).toEqual(refactor);
  });

  it('binary content is an evolution unless equal', () => {
    expect(classifySource('img.png', 'a\0b', 'a\0b')).toEqual(refactor);
    evolution(classifySource('img.png', 'a\0b', 'a\0c'), 'binary file img.png changed');
  });

  it('garbage new text is an evolution (syntax error) without throwing', () => {
    const v = classifySource('src/auth/jwt.ts', JWT_OLD, 'export function (((( {{ ]] <<< const = ;; class');
    evolution(v, 'syntax error', 'src/auth/jwt.ts:1');
  });

  it('random bytes and odd inputs never throw', () => {
    let seed = 7;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let k = 0; k < 20; k++) {
      const text = Array.from({ length: 300 }, () => String.fromCharCode(32 + Math.floor(rnd() * 95))).join('');
      for (const path of ['x.ts', 'x.tsx', 'x.js', 'x.py', 'x']) expect(() => classifySource(path, text, text + 'x')).not.toThrow();
    }
    expect(() => classifyChange([])).not.toThrow();
    expect(classifyChange([]).class).toBe('INTENT_EVOLUTION');
    expect(() => classifyChange([{ path: '', oldText: null, newText: null }])).not.toThrow();
    expect(() => classifyChange([null as never, { path: 'a.ts', oldText: 5 as never, newText: {} as never }])).not.toThrow();
    expect(() => classifySource('deep.ts', '', `export const x = ${'['.repeat(20000)}${']'.repeat(20000)};`)).not.toThrow();
  });

  it('a 3 MB file does not throw and falls back to tokens', () => {
    const line = 'export const value_0000 = "abcdefghijklmnopqrstuvwxyz";\n';
    const big = line.repeat(Math.ceil((3 * 1024 * 1024) / line.length));
    expect(classifySource('src/big.ts', big, big.replace(/= /g, '=   '))).toEqual(refactor);
    evolution(classifySource('src/big.ts', big, big.replace('abc', 'abd')), 'src/big.ts', '2 MB');
    evolution(classifySource('data/big.txt', big, `${big}x`), 'data/big.txt');
  });

  it('is deterministic', () => {
    const files = [
      { path: 'src/auth/jwt.ts', oldText: JWT_OLD, newText: JWT_OLD.replace('3600', '60').replace('x * 2', 'x * 3') },
      { path: 'b.py', oldText: 'a = 1\n', newText: 'a = 2\n' },
    ];
    expect(classifyChange(files)).toEqual(classifyChange(files));
    expect(JSON.stringify(classifyChange(files))).toBe(JSON.stringify(classifyChange(files)));
  });
});
