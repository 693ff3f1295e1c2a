'use strict';
// The entry every installed git hook runs (`intent init` writes its path into the hook runner),
// copied by scripts/bundle.mjs to dist/bin/hook.cjs. It loads dist/bin/hooks.cjs, every hook in one
// CommonJS bundle, through a V8 code cache: compiling the bundle is most of what loading it costs
// (docs/decisions.md), and Node 20 has no compile cache of its own for it. The cache is one file per
// hook in dist/bin/.v8-cache/, named after the bundle's content hash (fixed at build time, below),
// node's version and the architecture; a run without one writes it when it exits, with the
// functions that run compiled; V8 rejects data from another build (the bundle is then compiled as
// usual and the cache rewritten). Where the package folder cannot be written there is no cache.
// The same code as dist/bin/hook.js (cli/hook.ts), which runners written before this file run. The
// loading is lib/mutation/ts-cache.ts's mechanism, written out here: this file runs before any of
// the package's code is loaded, so it cannot import it.
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');
const { createRequire, wrap } = require('node:module');

const BUNDLE = 'hooks.cjs';
const BUNDLE_HASH = '@BUNDLE_HASH@';

const [hook = '', ...args] = process.argv.slice(2);
// The runner starts node with NODE_EXTRA_CA_CERTS parked (lib/core/node-start.ts): put it back for
// the processes the hook starts.
const parked = process.env.INTENT_NODE_EXTRA_CA_CERTS;
delete process.env.INTENT_NODE_EXTRA_CA_CERTS;
if (parked !== undefined) process.env.NODE_EXTRA_CA_CERTS = parked;
const file = path.join(__dirname, BUNDLE);
const dir = path.join(__dirname, '.v8-cache');
const name = /^[a-z][a-z-]{0,40}$/.test(hook) ? hook : 'other';
const cacheFile = path.join(dir, `${name}-${BUNDLE_HASH}-${process.version}-${process.arch}.bin`);

let cached;
try {
  cached = fs.readFileSync(cacheFile);
} catch { /* none yet */ }
const script = new vm.Script(wrap(fs.readFileSync(file, 'utf8')), { filename: file, cachedData: cached });
const mod = { exports: {} };
script.runInThisContext()(mod.exports, createRequire(file), mod, file, __dirname);
if (!cached || script.cachedDataRejected) process.once('exit', () => writeCache(script.createCachedData()));

(async () => {
  const out = await mod.exports.runHook(hook, process.cwd(), process.env, () => fs.readFileSync(0, 'utf8'), args);
  exit(out.code, out.stderr);
})().catch((e) => {
  exit(1, `intent: hook ${hook} failed: ${(e && e.stack) || String(e)}\n`);
});

/**
 * Exits as soon as the hook is done: `process.exit` skips tearing down the heap and the isolate,
 * which a natural exit does (about 5 ms here). Through a write's callback, even an empty one: it
 * runs once everything written to stderr before it is flushed (writes to a pipe are asynchronous
 * on some systems); the cache is written on 'exit'.
 */
function exit(code, stderr) {
  process.stderr.write(stderr || '', () => process.exit(code));
}

/** Writes the cache (temp file + rename: a reader never sees half) and removes this hook's old ones. */
function writeCache(data) {
  const tmp = `${cacheFile}.${process.pid}.tmp`;
  try {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(tmp, data);
    fs.renameSync(tmp, cacheFile);
    for (const f of fs.readdirSync(dir)) {
      if (f.startsWith(`${name}-`) && f.endsWith('.bin') && path.join(dir, f) !== cacheFile) fs.rmSync(path.join(dir, f), { force: true });
    }
  } catch {
    fs.rmSync(tmp, { force: true }); // a read-only package: no cache
  }
}
