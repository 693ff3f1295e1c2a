import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { setIntentStatus } from '../../lib/intents/registry-edit.js';
import { findIntent, idsWithStatus, intentsWithStatus, loadRegistry, parseRegistry, statusSpansOf, type IntentStatus } from '../../lib/intents/registry.js';
import { TOOL_VERSION } from '../../lib/core/version.js';
import { PKG_ROOT, tempDir } from '../helpers.js';

// The registry cache (<git dir>/intent/registry.json, see lib/intents/registry.ts): a status edit
// patches it in place (one letter, one padded line, one more entry in the edit list) and moves no
// offset; the spans are moved through the edit list when read. A wrong offset after an edit would
// show as a wrong intent, status or span for an intent after the edited one: every read below is
// compared with a fresh parse of the file's text.

const NOW = new Date('2026-03-01T10:20:30.456Z');
const STYLES = ['PLAIN', "'", '"'] as const;

/** A registry of `n` intents with mixed quoting, some with a short `updated_at` (the stamp grows), some without. */
function registryText(n: number): string {
  const lines = ['# generated for the cache tests', 'active_intents:'];
  for (let i = 1; i <= n; i++) {
    const q = STYLES[i % 3] === 'PLAIN' ? '' : STYLES[i % 3];
    lines.push(`  - id: ${q}I-${i}${q}`, `    name: "Intent ${i} ✓"`, `    status: ${q}${i % 4 === 0 ? 'IN_PROGRESS' : 'PENDING'}${q}   # set by tools`);
    lines.push(`    owned_scope: ["src/m${i}/**"]`);
    if (i % 5 === 1) lines.push(`    updated_at: ${q}2026-01-0${(i % 9) + 1}${q}`);
    else if (i % 5 === 2) lines.push(`    updated_at: "2026-02-17T15:30:00+02:00"`);
  }
  return `${lines.join('\n')}\n`;
}

/** <dir>/.orchestration/active_intents.yaml with <dir>/.git/intent (where the cache lives). */
function registryFile(text: string): { file: string; cache: string } {
  const dir = tempDir();
  mkdirSync(join(dir, '.orchestration'));
  mkdirSync(join(dir, '.git', 'intent'), { recursive: true });
  const file = join(dir, '.orchestration', 'active_intents.yaml');
  writeFileSync(file, text);
  return { file, cache: join(dir, '.git', 'intent', 'registry.json') };
}

/** Every read of the cached registry equals the parse of the file's text, and each span covers its status. */
function expectCacheTrue(file: string): void {
  const text = readFileSync(file, 'utf8');
  const parsed = parseRegistry(text, file);
  // single lookups first (a fresh read each: no full parse behind them)
  for (const i of parsed.intents) {
    const r = loadRegistry(file);
    expect(findIntent(r, i.id)).toStrictEqual(i);
    const sp = statusSpansOf(r, i.id)!;
    expect(sp).toStrictEqual(parsed.spans![i.id]);
    expect(text.slice(sp.status.start, sp.status.end).replace(/^['"]|['"]$/g, '')).toBe(i.status);
  }
  expect(intentsWithStatus(loadRegistry(file), 'IN_PROGRESS')).toStrictEqual(parsed.intents.filter((i) => i.status === 'IN_PROGRESS'));
  // the ids by status, from the letters alone (a fresh read) and after a full parse (the same read)
  for (const status of ['PENDING', 'IN_PROGRESS', 'BLOCKED', 'COMPLETED', 'ABANDONED'] as const) {
    const want = new Set(parsed.intents.filter((i) => i.status === status).map((i) => i.id));
    const r = loadRegistry(file);
    expect(idsWithStatus(r, status)).toStrictEqual(want);
    void r.intents;
    expect(idsWithStatus(r, status)).toStrictEqual(want);
  }
  expect(loadRegistry(file)).toStrictEqual(parsed);
}

/** setIntentStatus in another process (the package's built module), as a hook or checkout does it. */
function setInChild(file: string, id: string, status: IntentStatus): void {
  const mod = pathToFileURL(join(PKG_ROOT, 'dist', 'lib', 'intents', 'registry-edit.js')).href;
  const res = spawnSync(process.execPath, ['--input-type=module', '-e',
    `import { setIntentStatus } from ${JSON.stringify(mod)}; process.stdout.write(String(setIntentStatus(process.argv[1], process.argv[2], process.argv[3], new Date(${NOW.getTime()}))));`,
    file, id, status], { encoding: 'utf8' });
  expect(res.status, res.stderr).toBe(0);
  expect(res.stdout).toBe('true');
}

describe('the registry cache after status edits', () => {
  it('an early intent edited in other processes: every later intent, status and span still reads true, in this process', () => {
    const { file, cache } = registryFile(registryText(40));
    loadRegistry(file); // fills the cache
    const before = readFileSync(cache);
    // I-1 has a short updated_at (its stamp grows by 10) and I-2 a long one (it shrinks); statuses change length each time
    for (const [id, status] of [['I-1', 'IN_PROGRESS'], ['I-2', 'BLOCKED'], ['I-1', 'COMPLETED'], ['I-3', 'IN_PROGRESS'], ['I-1', 'IN_PROGRESS']] as const) {
      setInChild(file, id, status);
      expectCacheTrue(file);
    }
    const after = readFileSync(cache);
    // patched, not rebuilt: the same length (the lines kept their room), the edits listed at the end
    expect(after.length).toBeGreaterThan(before.length);
    expect(after.subarray(0, after.lastIndexOf(0x0a, after.length - 2)).length).toBe(before.subarray(0, before.lastIndexOf(0x0a, before.length - 2)).length);
    expect(JSON.parse(after.toString('utf8', after.lastIndexOf(0x0a, after.length - 2) + 1))).toHaveLength(9); // I-1: 3 × (status, updated_at), I-2: 2, I-3 (no updated_at): 1
  });

  it('a late intent edited at the moved spans writes the same bytes as an edit that parses the YAML', () => {
    const text = registryText(30);
    const cached = registryFile(text);
    const plain = join(tempDir(), 'active_intents.yaml'); // no git dir beside it: no cache, always parsed
    writeFileSync(plain, text);
    loadRegistry(cached.file);
    for (const [id, status] of [['I-1', 'IN_PROGRESS'], ['I-6', 'ABANDONED'], ['I-30', 'IN_PROGRESS'], ['I-29', 'COMPLETED'], ['I-30', 'BLOCKED']] as const) {
      if (id === 'I-1' || id === 'I-6') setInChild(cached.file, id, status);
      else expect(setIntentStatus(cached.file, id, status, NOW)).toBe(true);
      expect(setIntentStatus(plain, id, status, NOW)).toBe(true);
      expect(readFileSync(cached.file, 'utf8')).toBe(readFileSync(plain, 'utf8'));
    }
    expectCacheTrue(cached.file);
  });

  it('a long edit list is folded into a rebuilt cache, which reads true', () => {
    const { file, cache } = registryFile(registryText(6));
    loadRegistry(file);
    const statuses: IntentStatus[] = ['BLOCKED', 'IN_PROGRESS', 'PENDING'];
    for (let k = 0; k < 140; k++) expect(setIntentStatus(file, `I-${(k % 6) + 1}`, statuses[Math.floor(k / 6) % 3], NOW)).toBe(true);
    const buf = readFileSync(cache);
    const edits = JSON.parse(buf.toString('utf8', buf.lastIndexOf(0x0a, buf.length - 2) + 1)) as unknown[];
    expect(edits.length).toBeLessThanOrEqual(256);
    expectCacheTrue(file);
  });

  it('a cache of the older format (a JSON header) is not read: the registry is parsed and the cache rebuilt', () => {
    const text = registryText(5);
    const { file, cache } = registryFile(text);
    // What the previous version wrote, with that version's key for this very text, but lying about I-1.
    const key = createHash('sha256').update(`${TOOL_VERSION}\0${text}`).digest('hex');
    const intents = parseRegistry(text, file).intents.map((i) => ({ ...i, status: 'COMPLETED' }));
    const lines = intents.map((i) => JSON.stringify(i));
    let at = 0;
    const index = Object.fromEntries(intents.map((i, k) => { const here = at; at += Buffer.byteLength(lines[k]) + 1; return [i.id, ['COMPLETED', here]]; }));
    writeFileSync(cache, `${JSON.stringify({ key, index, spans: at })}\n${lines.join('\n')}\n{}\n`);
    const r = loadRegistry(file);
    expect(findIntent(r, 'I-1')!.status).toBe('PENDING');
    expect(findIntent(r, 'I-4')!.status).toBe('IN_PROGRESS');
    expect(readFileSync(cache, 'utf8')).toMatch(/^intent-registry-cache\/2 [0-9a-f]{64}\nPPPIP\n/);
    expectCacheTrue(file);
  });

  it('a damaged cache with the right key is a miss, not a wrong answer', () => {
    const { file, cache } = registryFile(registryText(5));
    loadRegistry(file);
    const buf = readFileSync(cache);
    const [tag, letters, ids] = buf.toString('utf8').split('\n');
    // one offset off: the index no longer points at the start of a line
    const offsetsAt = tag.length + letters.length + ids.length + 3;
    const offsets = JSON.parse(buf.toString('utf8', offsetsAt, buf.indexOf(0x0a, offsetsAt))) as number[];
    offsets[offsets.length - 1] += 1;
    const patched = JSON.stringify(offsets);
    writeFileSync(cache, Buffer.concat([buf.subarray(0, offsetsAt), Buffer.from(patched.padEnd(buf.indexOf(0x0a, offsetsAt) - offsetsAt)), buf.subarray(buf.indexOf(0x0a, offsetsAt))]));
    expectCacheTrue(file);
  });

  it('a cache with zeroed bytes (what a crash can leave of a file written without fsync) is a miss', () => {
    const { file, cache } = registryFile(registryText(5));
    loadRegistry(file);
    const good = readFileSync(cache);
    const [tag, letters] = good.toString('utf8').split('\n');
    // Zeroed status letters (every status would read as none) and, separately, a zeroed intent line.
    const lettersAt = tag.length + 1;
    for (const [from, to] of [[lettersAt, lettersAt + letters.length], [good.length - 40, good.length - 20]]) {
      const bad = Buffer.from(good);
      bad.fill(0, from, to);
      writeFileSync(cache, bad);
      expectCacheTrue(file);
      // The miss rebuilt it.
      expect(readFileSync(cache).includes(0)).toBe(false);
    }
  });
});
