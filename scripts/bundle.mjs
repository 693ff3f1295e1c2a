#!/usr/bin/env node
// Second build step (after tsc): bundles the programs that run as processes, from the tsc output
// (dist/cli, dist/lib), into self-contained files in dist/bin/. A git hook runs on every commit,
// and Node resolving and loading ~25 modules of ours plus minimatch's, diff's and yaml's many
// files cost more than the hook's work (docs/decisions.md has the measurements).
//
//   dist/bin/hook.cjs        what every installed git hook runs (cli/hook-entry.cjs): loads
//   dist/bin/hooks.cjs       every hook in one CommonJS bundle, through a V8 code cache;
//   dist/bin/hook.js         the same as an ES module (cli/hook.ts + lib/hooks/dispatch.ts), run by
//                            runners written before hook.cjs;
//   dist/bin/hook-<m>.js     each hook's module (lib/hooks/<m>.ts), one file each, loaded by hook.js
//                            for that hook only;
//   dist/bin/intent.js       the `intent` command (cli/main.ts);
//   dist/bin/cmd-<c>.js      each command (cli/<c>.ts), one file each, loaded by intent.js;
//   dist/bin/agent-hook.js   the agents' hook entry (cli/agent-hook.ts);
//   dist/bin/yaml.cjs        yaml, shared, loaded only where a registry must really be parsed;
//   dist/roo-code.cjs        the Roo Code entry as one self-contained CommonJS file (rooCodeCjs).
// One file per lazily loaded module, not a code-split bundle: Node loads one file of 200 KB
// faster than twenty chunks of 10 KB (measured: post-commit 12 ms against 36 ms).
//
// Bundled: our code, commander, minimatch, diff, yaml (as yaml.cjs). Left to Node's resolver
// (loaded rarely, or big and self-contained): typescript, ajv, ajv-formats, cosmiconfig, the MCP
// SDK and zod.
import { build } from 'esbuild';
import { readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sourceHash, STAMP } from './source-hash.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
// Built beside dist/bin/ and renamed into place when complete: a hook that runs while the package
// is rebuilt finds the old programs or the new ones, never a half-written or missing file (only
// for the moment between two renames, which the runner waits out).
const final = join(dist, 'bin');
const out = join(dist, `bin.next-${process.pid}`);

/** The relative modules `file` loads with a dynamic `import('./x.js')`: the split points. */
function lazyImports(file) {
  return [...new Set([...readFileSync(file, 'utf8').matchAll(/import\('\.\/([\w-]+)\.js'\)/g)].map((m) => m[1]))];
}

/** A dynamic import of `./<m>.js` from `importer` loads the separate file `./<prefix><m>.js`. */
const apart = (importer, modules, prefix) => ({
  name: 'apart',
  setup(b) {
    const re = new RegExp(`^\\./(${modules.join('|')})\\.js$`);
    b.onResolve({ filter: re }, (args) =>
      args.importer === importer && args.kind === 'dynamic-import' ? { path: `./${prefix}${re.exec(args.path)[1]}.js`, external: true } : undefined);
  },
});

/**
 * Every file uses the one dist/bin/yaml.cjs: `import … from 'yaml'` points there, and so does
 * lib/intents/registry.ts's lazy `createRequire(import.meta.url)('yaml')` (which esbuild does not follow).
 */
const sharedYaml = {
  name: 'shared-yaml',
  setup(b) {
    b.onResolve({ filter: /^yaml$/ }, () => ({ path: './yaml.cjs', external: true }));
    b.onLoad({ filter: /[\\/]dist[\\/]lib[\\/].+\.js$/ }, async (args) => {
      const text = await readFile(args.path, 'utf8');
      return { contents: text.replace(/createRequire\(import\.meta\.url\)\('yaml'\)/g, "createRequire(import.meta.url)('./yaml.cjs')"), loader: 'js' };
    });
  },
};

const esm = (entry, outfile, plugins = []) =>
  build({
    entryPoints: [entry],
    outfile: join(out, outfile),
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: ['typescript', 'ajv', 'ajv/*', 'ajv-formats', 'cosmiconfig', '@modelcontextprotocol/sdk', '@modelcontextprotocol/sdk/*', 'zod', 'zod/*'],
    // Bundled CommonJS (commander) calls require() for Node's own modules.
    banner: { js: "import { createRequire as __intentCreateRequire } from 'node:module'; const require = __intentCreateRequire(import.meta.url);" },
    plugins: [sharedYaml, ...plugins],
    logLevel: 'warning',
  });

/**
 * dist/roo-code.cjs: the Roo Code entry (lib/agents/roo-code.ts) as one self-contained CommonJS
 * file. Roo bundles its extension with esbuild as CommonJS and ships it without node_modules;
 * the `./roo-code` export's `module` condition (which esbuild and webpack pick, Node does not) and
 * its `require` condition point here. Everything is inlined: yaml, minimatch, diff, and what
 * `createRequire(import.meta.url)(x)` loads (rewritten to `require(x)` so esbuild follows it).
 * core/version's package-root lookup runs at load through `import.meta.url`, which a CommonJS
 * bundle inside another bundle cannot answer: the version is fixed at build time instead, and the
 * package root is unknown (nothing on the Roo path reads it). The build fails on any warning
 * (`import.meta` left over, an unresolved require) or when version.js no longer has the shape
 * rewritten here.
 */
async function rooCodeCjs() {
  const version = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version;
  const cjsSafe = {
    name: 'cjs-safe',
    setup(b) {
      b.onLoad({ filter: /[\\/]dist[\\/]lib[\\/].+\.js$/ }, async (args) => {
        let text = await readFile(args.path, 'utf8');
        text = text.replace(/const require = createRequire\(import\.meta\.url\);/g, '').replace(/createRequire\(import\.meta\.url\)\(/g, 'require(');
        if (/[\\/]core[\\/]version\.js$/.test(args.path)) {
          const before = text;
          text = text
            .replace(/export const PKG_ROOT = \(\(\) => \{[\s\S]*?\n\}\)\(\);/, "export const PKG_ROOT = '';")
            .replace(/export const TOOL_VERSION = [^;]+;/, `export const TOOL_VERSION = ${JSON.stringify(version)};`);
          if (before === text || /import\.meta/.test(text)) throw new Error('bundle: lib/core/version.ts changed shape; update rooCodeCjs() in scripts/bundle.mjs');
        }
        return { contents: text, loader: 'js' };
      });
    },
  };
  const res = await build({
    entryPoints: [join(dist, 'lib', 'agents', 'roo-code.js')],
    outfile: join(dist, `roo-code.cjs.next-${process.pid}`),
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    plugins: [cjsSafe],
    logLevel: 'silent',
  });
  if (res.warnings.length) throw new Error(`bundle: dist/roo-code.cjs: ${res.warnings.map((w) => w.text).join('; ')}`);
  await rename(join(dist, `roo-code.cjs.next-${process.pid}`), join(dist, 'roo-code.cjs'));
}

/**
 * dist/bin/hooks.cjs and dist/bin/hook.cjs: every hook (lib/hooks/dispatch.ts and what it loads)
 * in one CommonJS bundle, and the entry the installed hooks run (cli/hook-entry.cjs), which loads
 * the bundle through a V8 code cache named after the bundle's content hash (filled in here). An
 * ES module cannot be loaded with cached data on Node 20. `import.meta.url` becomes the bundle's
 * own file URL; the build fails on a warning or on a dynamic import() left in the bundle (a
 * script loaded through vm cannot run one).
 */
async function hooksCjs() {
  const file = join(out, 'hooks.cjs');
  const res = await build({
    entryPoints: [hookRun],
    outfile: file,
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    external: ['typescript', 'ajv', 'ajv/*', 'ajv-formats', 'cosmiconfig'],
    define: { 'import.meta.url': '__intent_url' },
    banner: { js: "var __intent_url = require('node:url').pathToFileURL(__filename).href;" },
    plugins: [sharedYaml],
    logLevel: 'silent',
  });
  if (res.warnings.length) throw new Error(`bundle: dist/bin/hooks.cjs: ${res.warnings.map((w) => w.text).join('; ')}`);
  const text = await readFile(file, 'utf8');
  if (/\bimport\(/.test(text)) throw new Error('bundle: dist/bin/hooks.cjs still has a dynamic import()');
  const hash = createHash('sha256').update(text).digest('hex').slice(0, 16);
  const entry = (await readFile(join(root, 'cli', 'hook-entry.cjs'), 'utf8')).replace('@BUNDLE_HASH@', hash);
  await writeFile(join(out, 'hook.cjs'), entry, { mode: 0o755 });
}

const main = join(dist, 'cli', 'main.js');
const hookRun = join(dist, 'lib', 'hooks', 'dispatch.js');
const commands = lazyImports(main);
const hooks = lazyImports(hookRun);
// The inputs' fingerprint is taken as bundling starts (right after tsc) and written when it has
// succeeded: a source edited while the bundles are made leaves the stamp stale, which is safe.
const inputs = sourceHash(root);
await rm(join(root, STAMP), { force: true });
if (!commands.includes('checkout') || !hooks.includes('post-commit')) throw new Error(`bundle: unexpected split points: ${commands} / ${hooks}`);

// Left by builds that were interrupted.
for (const f of await readdir(dist).catch(() => [])) {
  if (/^(bin\.(next|old)-|roo-code\.cjs\.next-)[0-9]+$/.test(f)) await rm(join(dist, f), { recursive: true, force: true });
}
await rm(out, { recursive: true, force: true });
await Promise.all([
  esm(main, 'intent.js', [apart(main, commands, 'cmd-')]),
  ...commands.map((c) => esm(join(dist, 'cli', `${c}.js`), `cmd-${c}.js`)),
  esm(join(dist, 'cli', 'hook.js'), 'hook.js', [apart(hookRun, hooks, 'hook-')]),
  ...hooks.map((m) => esm(join(dist, 'lib', 'hooks', `${m}.js`), `hook-${m}.js`)),
  esm(join(dist, 'cli', 'agent-hook.js'), 'agent-hook.js'),
  build({ entryPoints: [join(root, 'node_modules', 'yaml', 'dist', 'index.js')], outfile: join(out, 'yaml.cjs'), bundle: true, format: 'cjs', platform: 'node', target: 'node20', logLevel: 'warning' }),
  rooCodeCjs(),
  hooksCjs(),
]);

// dist/bin/trace-validator.cjs: the Agent Trace schema compiled by ajv at build time (its
// standalone code), which verify and the authority's gate load instead of compiling the schema
// in every process (~250 ms of a verify on a small repository).
{
  const require = createRequire(import.meta.url);
  const Ajv2020 = require('ajv/dist/2020.js').default;
  const addFormats = require('ajv-formats').default;
  const standalone = require('ajv/dist/standalone/index.js').default;
  const { _ } = require('ajv/dist/compile/codegen/index.js');
  const ajv = new Ajv2020({ strict: false, allErrors: false, code: { source: true, formats: _`require("ajv-formats/dist/formats").fullFormats` } });
  addFormats(ajv);
  const schema = JSON.parse(readFileSync(join(root, 'schemas', 'agent-trace', 'trace-record.schema.json'), 'utf8'));
  await writeFile(join(out, 'trace-validator.cjs'), standalone(ajv, ajv.compile(schema)));
}

// Into place: the old folder renamed away, the new one renamed in, the old one removed.
const old = join(dist, `bin.old-${process.pid}`);
await rename(final, old).catch((e) => {
  if (e.code !== 'ENOENT') throw e;
});
await rename(out, final);
await rm(old, { recursive: true, force: true });

// Last: the fingerprint of the inputs this build was made from (scripts/source-hash.mjs).
await writeFile(join(root, STAMP), `${inputs}\n`);
