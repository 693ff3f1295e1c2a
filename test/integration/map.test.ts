import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkoutIntent, git, governedRepo, intent, writeFiles } from '../helpers.js';

describe('intent map', () => {
  it('names the functions, classes and methods each intent touched, deterministically', () => {
    const repo = governedRepo([{ id: 'INT-001', name: 'JWT auth', scope: ['src/**'] }, { id: 'INT-002', scope: ['lib/**'] }], {
      'src/auth.ts': 'export class Auth {\n  login(u: string) {\n    return u;\n  }\n}\n\nexport function helper() {\n  return 1;\n}\n',
      'lib/util.py': 'def first():\n    return 1\n\ndef second():\n    return 2\n',
    });
    const wt = checkoutIntent(repo, 'INT-001');
    writeFiles(wt, {
      'src/auth.ts': 'export class Auth {\n  login(u: string) {\n    return `jwt:${u}`;\n  }\n}\n\nexport function helper() {\n  return 1;\n}\n\nexport const verify = (t: string) => t.length > 0;\n',
    });
    git(wt, 'commit', '-q', '-am', 'jwt');
    const wt2 = checkoutIntent(repo, 'INT-002');
    writeFiles(wt2, { 'lib/util.py': 'def first():\n    return 1\n\ndef second():\n    x = 2\n    return x\n' });
    git(wt2, 'commit', '-q', '-am', 'py');

    const r = intent(repo, ['map']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('wrote');
    const md = readFileSync(join(repo, '.orchestration', 'intent_map.md'), 'utf8');
    expect(md).toContain('## INT-001 · JWT auth');
    expect(md).toMatch(/\| src\/auth\.ts \| [0-9a-f]{12} \| 3-3 \| human \| `sha256:[0-9a-f]{16}…` \| method Auth\.login \|/);
    expect(md).toMatch(/\| src\/auth\.ts \| [0-9a-f]{12} \| 10-11 \| human \| .* \| function verify \|/);
    expect(md).toMatch(/\| lib\/util\.py \| [0-9a-f]{12} \| 5-6 \| human \| .* \| def second\(\): \|/);
    // Deterministic: a second run changes nothing.
    expect(intent(repo, ['map']).stdout).toContain('unchanged');
    expect(readFileSync(join(repo, '.orchestration', 'intent_map.md'), 'utf8')).toBe(md);
    const json = JSON.parse(intent(repo, ['map', '--stdout', '--json']).stdout);
    expect(json.intents.map((i: any) => i.id)).toEqual(['INT-001', 'INT-002']);
  });

  it('names CommonJS constructs (exports.x = function, res.status = function status, a chain, a named callback, module.exports) and never a function\'s locals', () => {
    // The shapes of express's lib/response.js and lib/request.js.
    const before = [
      "'use strict';",
      "var http = require('http');",
      'var res = Object.create(http.ServerResponse.prototype);',
      'module.exports = res;',
      '',
      'res.status = function status(code) {',
      "  var message = 'invalid';",
      '  this.statusCode = code;',
      '  return this;',
      '};',
      '',
      'exports.json = function (obj) {',
      '  var body = JSON.stringify(obj);',
      '  return body;',
      '};',
      '',
      "defineGetter(res, 'protocol', function protocol() {",
      "  var proto = this.connection.encrypted ? 'https' : 'http';",
      '  return proto;',
      '});',
      '',
      'module.exports.create = function createApplication() {',
      '  var app = {};',
      '  return app;',
      '};',
      '',
      'res.contentType = res.type = function contentType(type) {',
      "  var ct = type.indexOf('/') === -1 ? 'application/' + type : type;",
      "  return this.set('Content-Type', ct);",
      '};',
      '',
      'function defineGetter(obj, name, getter) {',
      '  var desc = { configurable: true, enumerable: true, get: getter };',
      '  Object.defineProperty(obj, name, desc);',
      '}',
      '',
    ].join('\n');
    const repo = governedRepo([{ id: 'INT-001', scope: ['lib/**'] }], { 'lib/response.js': before });
    const wt = checkoutIntent(repo, 'INT-001');
    const after = before
      .replace("var message = 'invalid';", "var message = 'invalid status code';")
      .replace('var body = JSON.stringify(obj);', 'var body = JSON.stringify(obj, null, 2);')
      .replace("var proto = this.connection.encrypted ? 'https' : 'http';", "var proto = this.connection.encrypted ? 'https' : 'http:';")
      .replace('var app = {};', 'var app = { settings: {} };')
      .replace('var desc = { configurable: true,', 'var desc = { configurable: false,')
      .replace("'application/' + type", "'text/' + type")
      .replace('module.exports = res;', 'module.exports = function createResponse() {\n  var out = Object.create(res);\n  return out;\n};');
    writeFiles(wt, { 'lib/response.js': after });
    git(wt, 'commit', '-q', '-am', 'response tweaks');

    const json = JSON.parse(intent(repo, ['map', '--stdout', '--json']).stdout);
    const ranges = json.intents.find((i: any) => i.id === 'INT-001').files['lib/response.js'];
    const touches = Object.fromEntries(ranges.map((r: any) => [r.start, r.touches]));
    expect(touches).toEqual({
      4: ['function module.exports'],
      10: ['function res.status'],
      16: ['function exports.json'],
      21: ['function protocol'],
      26: ['function module.exports.create'],
      31: ['function res.contentType'],
      36: ['function defineGetter'],
    });
  });
});
