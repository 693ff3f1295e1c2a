import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../lib/intents/config.js';
import { IntentError } from '../../lib/core/errors.js';
import { tempDir, writeFiles } from '../helpers.js';

const DEFAULTS = { requireIntent: false, worktreeDir: null, source: null };

/** parent/ (above the repository) → parent/repo (stopDir) → parent/repo/a/b (startDir). */
function layout(files: Record<string, string> = {}): { parent: string; root: string; deep: string } {
  const parent = tempDir('intent-config-');
  const root = join(parent, 'repo');
  const deep = join(root, 'a', 'b');
  mkdirSync(deep, { recursive: true });
  writeFiles(parent, files);
  return { parent, root, deep };
}

function configError(fn: () => unknown): IntentError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(IntentError);
    return e as IntentError;
  }
  throw new Error('expected loadConfig to throw');
}

describe('loadConfig', () => {
  it('returns the defaults when there is no configuration', () => {
    const { root, deep } = layout();
    expect(loadConfig(deep, root)).toEqual(DEFAULTS);
    expect(loadConfig(root, root)).toEqual(DEFAULTS);
  });

  it.each([
    ['.intentrc (JSON)', 'repo/.intentrc', '{ "requireIntent": true, "worktreeDir": "../wt" }'],
    ['.intentrc (YAML)', 'repo/.intentrc', 'requireIntent: true\nworktreeDir: ../wt\n'],
    ['.intentrc.json', 'repo/.intentrc.json', '{ "requireIntent": true, "worktreeDir": "../wt" }'],
    ['.intentrc.yaml', 'repo/.intentrc.yaml', 'requireIntent: true\nworktreeDir: "../wt"\n'],
    ['intent.config.cjs', 'repo/intent.config.cjs', 'module.exports = { requireIntent: true, worktreeDir: "../wt" };\n'],
    ['package.json "intent" key', 'repo/package.json', JSON.stringify({ name: 'x', version: '1.0.0', intent: { requireIntent: true, worktreeDir: '../wt' } })],
  ])('reads %s at the repository root from a subfolder', (_name, file, content) => {
    const { parent, root, deep } = layout({ [file]: content });
    const want = { requireIntent: true, worktreeDir: '../wt', source: join(parent, file) };
    expect(loadConfig(deep, root)).toEqual(want);
    expect(loadConfig(root, root)).toEqual(want);
  });

  it('keeps defaults for keys the file does not set', () => {
    const { parent, root } = layout({ 'repo/.intentrc.json': '{ "worktreeDir": "trees" }' });
    expect(loadConfig(root, root)).toEqual({ requireIntent: false, worktreeDir: 'trees', source: join(parent, 'repo/.intentrc.json') });
  });

  it('takes the nearest configuration on the way up', () => {
    const { parent, root, deep } = layout({
      'repo/.intentrc.json': '{ "worktreeDir": "far" }',
      'repo/a/.intentrc.json': '{ "worktreeDir": "near" }',
    });
    expect(loadConfig(deep, root)).toMatchObject({ worktreeDir: 'near', source: join(parent, 'repo/a/.intentrc.json') });
    expect(loadConfig(root, root)).toMatchObject({ worktreeDir: 'far' });
  });

  it('skips a package.json without an "intent" key', () => {
    const { parent, root, deep } = layout({
      'repo/a/package.json': '{ "name": "sub" }',
      'repo/.intentrc.json': '{ "requireIntent": true }',
    });
    expect(loadConfig(deep, root)).toEqual({ requireIntent: true, worktreeDir: null, source: join(parent, 'repo/.intentrc.json') });
  });

  it('never looks above stopDir', () => {
    const { parent, root, deep } = layout({
      '.intentrc.json': '{ "requireIntent": true }',
      'package.json': JSON.stringify({ name: 'outer', intent: { requireIntent: true } }),
      'intent.config.cjs': 'module.exports = { requireIntent: true };',
    });
    expect(loadConfig(deep, root)).toEqual(DEFAULTS);
    expect(loadConfig(root, root)).toEqual(DEFAULTS);
    // With the parent as the stop, the same file is found.
    expect(loadConfig(deep, parent).requireIntent).toBe(true);
  });

  it('does not read a broken file above stopDir either', () => {
    const { root, deep } = layout({ '.intentrc.json': '{ broken' });
    expect(loadConfig(deep, root)).toEqual(DEFAULTS);
  });

  it('reports broken JSON as CONFIG_INVALID naming the file', () => {
    const { parent, root, deep } = layout({ 'repo/.intentrc.json': '{ "requireIntent": ' });
    const e = configError(() => loadConfig(deep, root));
    expect(e.code).toBe('CONFIG_INVALID');
    expect(e.message).toContain(join(parent, 'repo', '.intentrc.json'));
  });

  it('reports a broken .intentrc as CONFIG_INVALID naming the file', () => {
    const { parent, root, deep } = layout({ 'repo/.intentrc': '{ "requireIntent": [ ' });
    const e = configError(() => loadConfig(deep, root));
    expect(e.code).toBe('CONFIG_INVALID');
    expect(e.message).toContain(join(parent, 'repo', '.intentrc'));
  });

  it('treats a package.json that does not parse as the project\'s problem, not a config error', () => {
    const { parent, root, deep } = layout({ 'repo/a/package.json': '{ "name": "x", ', 'repo/.intentrc.json': '{ "worktreeDir": "w" }' });
    expect(loadConfig(deep, root)).toEqual({ requireIntent: false, worktreeDir: 'w', source: join(parent, 'repo/.intentrc.json') });
    const only = layout({ 'repo/package.json': '{ "name": "x", ' });
    expect(loadConfig(only.root, only.root)).toEqual(DEFAULTS);
  });

  it.each([
    ['unknown key (wrong case)', '{ "requireintent": true }', 'requireintent', 'unknown key "requireintent"'],
    ['unknown key', '{ "requireIntent": true, "budget": 3 }', 'budget', 'unknown key "budget"; known keys are requireIntent, worktreeDir'],
    ['string for a boolean', '{ "requireIntent": "yes" }', 'requireIntent', '"requireIntent" must be a boolean, got "yes"'],
    ['number for a boolean', '{ "requireIntent": 1 }', 'requireIntent', '"requireIntent" must be a boolean, got 1'],
    ['boolean for a string', '{ "worktreeDir": false }', 'worktreeDir', '"worktreeDir" must be a string, got false'],
    ['null for a string', '{ "worktreeDir": null }', 'worktreeDir', '"worktreeDir" must be a string, got null'],
  ])('rejects %s as CONFIG_INVALID with the key in the message', (_name, content, key, msg) => {
    const { parent, root, deep } = layout({ 'repo/.intentrc.json': content });
    const e = configError(() => loadConfig(deep, root));
    expect(e.code).toBe('CONFIG_INVALID');
    expect(e.message).toContain(msg);
    expect(e.message).toContain(join(parent, 'repo', '.intentrc.json'));
    expect(e.data.key).toBe(key);
  });

  it.each([
    ['a list', '[1, 2]'],
    ['a string', '"requireIntent"'],
  ])('rejects a configuration that is %s', (_name, content) => {
    const { root } = layout({ 'repo/.intentrc.json': content });
    const e = configError(() => loadConfig(root, root));
    expect(e.code).toBe('CONFIG_INVALID');
    expect(e.message).toContain('must be an object');
  });

  it('rejects a bad package.json "intent" key', () => {
    const { parent, root } = layout({ 'repo/package.json': JSON.stringify({ name: 'x', intent: { requireIntent: 'no' } }) });
    const e = configError(() => loadConfig(root, root));
    expect(e.code).toBe('CONFIG_INVALID');
    expect(e.message).toContain(`${join(parent, 'repo', 'package.json')}: "requireIntent" must be a boolean`);
  });
});

describe('loadConfig between commits (the hook server reads it on every one)', () => {
  it('sees package.json gain and lose its "intent" key, a config file appear and go, and one in .config/', async () => {
    const { rmSync, writeFileSync, utimesSync } = await import('node:fs');
    const { root } = layout({ 'repo/package.json': '{ "name": "x" }' });
    expect(loadConfig(root, root)).toEqual(DEFAULTS);
    writeFileSync(join(root, 'package.json'), '{ "name": "x", "intent": { "requireIntent": true } }');
    expect(loadConfig(root, root).requireIntent).toBe(true);
    // The same size and modification time put back: the change time still tells.
    writeFileSync(join(root, 'package.json'), '{ "name": "y", "intent": { "requireIntent": true } }');
    utimesSync(join(root, 'package.json'), new Date(2020, 0, 1), new Date(2020, 0, 1));
    writeFileSync(join(root, 'package.json'), '{ "name": "x", "nope__": { "requireIntent": true } }');
    utimesSync(join(root, 'package.json'), new Date(2020, 0, 1), new Date(2020, 0, 1));
    expect(loadConfig(root, root)).toEqual(DEFAULTS);
    writeFileSync(join(root, '.intentrc.json'), '{ "worktreeDir": "../wt" }');
    expect(loadConfig(root, root).worktreeDir).toBe('../wt');
    rmSync(join(root, '.intentrc.json'));
    expect(loadConfig(root, root)).toEqual(DEFAULTS);
    mkdirSync(join(root, '.config'));
    writeFileSync(join(root, '.config', 'intentrc.json'), '{ "requireIntent": true }');
    expect(loadConfig(root, root).requireIntent).toBe(true);
  });
});
