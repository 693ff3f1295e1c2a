// The import rules of docs/architecture.md, checked over the source: lib/'s folders are layers
// (a module imports its own folder and lower layers only), there are no import cycles, and cli/
// reaches lib/ only through the folders' public entry points (lib/<folder>/index.ts).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

/** lib/'s folders, lowest first. Keep in step with docs/architecture.md. */
const LAYERS = ['core', 'git', 'intents', 'mutation', 'trace', 'interop', 'guardrails', 'authority', 'attest', 'hooks', 'agents', 'lifecycle', 'report', 'demo'];

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((e) => {
    const p = join(dir, e);
    return statSync(p).isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** The relative modules a file imports (static, dynamic and re-exports), as paths from the root. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specs = [
    ...text.matchAll(/^(?:import|export)\b[^;'"]*?(?:from\s*)?(['"])(\.{1,2}\/[^'"]+)\1/gm), // static imports and re-exports
    ...text.matchAll(/\bimport\(\s*(['"])(\.{1,2}\/[^'"]+)\1\s*\)/g), // dynamic imports
  ].map((m) => m[2]);
  return specs.map((s) => relative(ROOT, resolve(dirname(file), s.replace(/\.js$/, '.ts'))).split('\\').join('/'));
}

const lib = sources(join(ROOT, 'lib')).map((f) => relative(ROOT, f).split('\\').join('/'));
const cli = sources(join(ROOT, 'cli')).map((f) => relative(ROOT, f).split('\\').join('/'));
const graph = new Map([...lib, ...cli].map((f) => [f, importsOf(join(ROOT, f))]));
/** The layer a module of lib/ is in: its folder under lib/ (a sub-folder such as lib/agents/shell/ is part of its layer). */
const folderOf = (f: string) => (f.split('/').length >= 3 ? f.split('/')[1] : null);
/** The sub-folder a module is in below its layer folder (lib/agents/shell/x.ts: lib/agents/shell), or null. */
const subFolderOf = (f: string) => (f.split('/').length >= 4 ? f.split('/').slice(0, -1).join('/') : null);

describe('architecture', () => {
  it('every module of lib/ sits in a known layer folder (lib/index.ts is the package entry)', () => {
    const stray = lib.filter((f) => f !== 'lib/index.ts' && !LAYERS.includes(folderOf(f) ?? ''));
    expect(stray).toEqual([]);
  });

  it('every layer folder has an index.ts whose header says what the folder is for', () => {
    const folders = [...new Set(lib.map(folderOf).filter((f): f is string => !!f))];
    for (const f of folders) {
      const index = `lib/${f}/index.ts`;
      expect(lib, `${index} is missing`).toContain(index);
      expect(readFileSync(join(ROOT, index), 'utf8'), `${index} has no header comment`).toMatch(new RegExp(`^/\\*\\*\\n \\* ${f}: `));
    }
  });

  it('a sub-folder of a layer is entered only through its index.ts, whose header says what it is for', () => {
    const subs = [...new Set(lib.map(subFolderOf).filter((d): d is string => !!d))];
    expect(subs).toContain('lib/agents/shell');
    for (const d of subs) {
      expect(lib, `${d}/index.ts is missing`).toContain(`${d}/index.ts`);
      expect(readFileSync(join(ROOT, `${d}/index.ts`), 'utf8'), `${d}/index.ts has no header comment`).toMatch(/^\/\*\*\n \* \S/);
    }
    const bad = [...graph].flatMap(([f, deps]) => deps.filter((d) => {
      const sub = subFolderOf(d);
      return sub !== null && !f.startsWith(`${sub}/`) && d !== `${sub}/index.ts`;
    }).map((d) => `${f} -> ${d}`));
    expect(bad).toEqual([]);
  });

  it('every module of a sub-folder starts with a header comment', () => {
    const bare = lib.filter((f) => subFolderOf(f) && !/^\/\*/.test(readFileSync(join(ROOT, f), 'utf8')));
    expect(bare).toEqual([]);
  });

  it('no module of lib/ is over 800 lines (a longer one is split into a sub-folder by phase)', () => {
    const long = lib.filter((f) => readFileSync(join(ROOT, f), 'utf8').split('\n').length > 800);
    expect(long).toEqual([]);
  });

  // Environment settings are parsed in lib/core/settings.ts (readSettings, hostEnv): the one lib
  // module that reads process.env (the CLI entry reads it too).
  const READS_PROCESS_ENV = ['lib/core/settings.ts'];
  it('process.env is read in lib/core/settings.ts and the modules not yet moved to it, nowhere else', () => {
    const readers = lib.filter((f) => /\bprocess\.env\b/.test(readFileSync(join(ROOT, f), 'utf8').replace(/^\s*(\/\/|\*).*$/gm, '')));
    expect(readers.filter((f) => !READS_PROCESS_ENV.includes(f))).toEqual([]);
    expect(READS_PROCESS_ENV.filter((f) => !readers.includes(f)), 'no longer reads process.env: take it off the list').toEqual([]);
  });

  it('no module of lib/ changes the process\'s environment, directory or stderr (a hook runs with its context, core/hook-context.ts)', () => {
    const changers = lib.filter((f) => /\bprocess\.env\s*=[^=]|\bprocess\.chdir\(|\bprocess\.stderr\.write\s*=[^=]/.test(readFileSync(join(ROOT, f), 'utf8').replace(/^\s*(\/\/|\*).*$/gm, '')));
    expect(changers).toEqual([]);
  });

  it('reads static, dynamic and re-export edges (the checks below see the real graph)', () => {
    expect(graph.get('lib/hooks/post-commit.ts')).toContain('lib/trace/record-commit.ts');
    expect(graph.get('lib/hooks/dispatch.ts')).toEqual(expect.arrayContaining(['lib/hooks/pre-commit.ts', 'lib/hooks/post-commit.ts']));
    expect(graph.get('lib/index.ts')).toContain('lib/agents/adapter.ts');
    expect([...graph.values()].flat().length).toBeGreaterThan(200);
  });

  it('imports only resolve to files that exist', () => {
    const missing = [...graph].flatMap(([f, deps]) => deps.filter((d) => !graph.has(d) && !d.startsWith('node_modules')).map((d) => `${f} -> ${d}`));
    expect(missing).toEqual([]);
  });

  it('no module of lib/ imports a higher layer', () => {
    const up = lib.flatMap((f) => {
      const from = folderOf(f);
      if (!from) return [];
      return graph.get(f)!.filter((d) => d.startsWith('lib/')).flatMap((d) => {
        const to = folderOf(d);
        return to === null || LAYERS.indexOf(to) > LAYERS.indexOf(from) ? [`${f} -> ${d}`] : [];
      });
    });
    expect(up).toEqual([]);
  });

  it('cli/ reaches lib/ only through the folders\' index.ts, and lib/ never imports cli/', () => {
    const bad = cli.flatMap((f) => graph.get(f)!.filter((d) => d.startsWith('lib/') && !/^lib\/[a-z-]+\/index\.ts$/.test(d)).map((d) => `${f} -> ${d}`));
    expect(bad).toEqual([]);
    const back = lib.flatMap((f) => graph.get(f)!.filter((d) => d.startsWith('cli/')).map((d) => `${f} -> ${d}`));
    expect(back).toEqual([]);
  });

  it('an index.ts re-exports its own folder only (lib/index.ts excepted)', () => {
    const bad = lib.filter((f) => f.endsWith('/index.ts') && folderOf(f)).flatMap((f) =>
      graph.get(f)!.filter((d) => folderOf(d) !== folderOf(f)).map((d) => `${f} -> ${d}`));
    expect(bad).toEqual([]);
  });

  it('the module graph has no cycles', () => {
    const state = new Map<string, 1 | 2>();
    const cycles: string[] = [];
    const visit = (f: string, path: string[]) => {
      if (state.get(f) === 2) return;
      if (state.get(f) === 1) {
        cycles.push([...path.slice(path.indexOf(f)), f].join(' -> '));
        return;
      }
      state.set(f, 1);
      for (const d of graph.get(f) ?? []) visit(d, [...path, f]);
      state.set(f, 2);
    };
    for (const f of graph.keys()) visit(f, []);
    expect(cycles).toEqual([]);
  });

  it('the layer list here is the one docs/architecture.md shows', () => {
    const doc = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
    const listed = /```layers\n([\s\S]*?)```/.exec(doc)?.[1].split('\n').filter((l) => /^\S/.test(l)).map((l) => l.split(/\s+/)[0]);
    expect(listed?.reverse()).toEqual(LAYERS);
  });
});
