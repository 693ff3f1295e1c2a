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
});
