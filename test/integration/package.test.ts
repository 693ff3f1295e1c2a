import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PKG_ROOT, git, noteOf, registryYaml, run, tempDir, writeFiles } from '../helpers.js';
import { scaffoldName } from '../../lib/lifecycle/init.js';

// Black box: pack the package as npm would publish it, install it into a fresh project, and
// govern a fresh repository with the installed binary only.
describe('the packed package', () => {
  it('installs and governs a repository through its own bin', () => {
    const work = tempDir();
    const packed = run('npm', ['pack', '--ignore-scripts', '--pack-destination', work], PKG_ROOT);
    expect(packed.status, packed.stderr).toBe(0);
    const tgz = readdirSync(work).find((f) => f.endsWith('.tgz'))!;
    expect(tgz).toBeDefined();

    const project = join(work, 'project');
    writeFiles(project, { 'package.json': '{"name":"consumer","version":"1.0.0","private":true}\n' });
    const inst = run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', join(work, tgz)], project);
    expect(inst.status, inst.stderr).toBe(0);
    const bin = join(project, 'node_modules', '.bin', 'intent');

    // The Roo Code entry: `require` and `import` both get the self-contained CommonJS build.
    const probe = "console.log(typeof m.rooCheck, typeof m.rooSelectIntent, m.SELECT_ACTIVE_INTENT_TOOL.name)";
    const cjs = run('node', ['-e', `const m = require('intent-governance/roo-code'); ${probe}; console.log(require.resolve('intent-governance/roo-code').endsWith('roo-code.cjs'))`], project);
    expect(cjs.stdout, cjs.stderr).toBe('function function select_active_intent\ntrue\n');
    const esm = run('node', ['--input-type=module', '-e', `import * as m from 'intent-governance/roo-code'; ${probe}`], project);
    expect(esm.stdout, esm.stderr).toBe('function function select_active_intent\n');

    const repo = join(work, 'repo');
    writeFiles(repo, { 'src/a.ts': 'a\n', 'docs/x.md': 'x\n' });
    git(repo, 'init', '-q', '-b', 'main');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'initial');
    expect(run(bin, ['init'], repo).status).toBe(0);
    // Every scaffolded file, byte for byte as in the source templates (npm drops files named
    // .gitignore from a package: that template ships as `gitignore`).
    const installed = join(project, 'node_modules', 'intent-governance');
    const templates = join(PKG_ROOT, 'templates', 'orchestration');
    const expected = readdirSync(templates).map((t) => [scaffoldName(t), readFileSync(join(templates, t), 'utf8')] as const);
    expect(readdirSync(join(repo, '.orchestration')).sort()).toEqual(expected.map(([n]) => n).sort());
    for (const [name, text] of expected) expect(readFileSync(join(repo, '.orchestration', name), 'utf8'), name).toBe(text);
    expect(readFileSync(join(installed, 'LICENSE'), 'utf8')).toMatch(/^MIT License\n/);
    expect(JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')).license).toBe('MIT');
    writeFiles(repo, { '.orchestration/active_intents.yaml': registryYaml([{ id: 'INT-001', scope: ['src/**'] }]) });
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'registry');

    // The ledger stays out of `git add -A`.
    expect(run('git', ['check-ignore', '-q', '.orchestration/agent_trace.jsonl'], repo).status).toBe(0);

    const co = run(bin, ['checkout', 'INT-001', '--json'], repo);
    expect(co.status, co.stderr).toBe(0);
    const wt = JSON.parse(co.stdout).path as string;
    writeFiles(wt, { 'src/a.ts': 'a\nb\n' });
    git(wt, 'commit', '-q', '-am', 'in scope');
    expect(noteOf(wt)?.summary).toMatch(/^INT-001 .* · 1 file, 1 range$/);
    expect(existsSync(join(repo, '.orchestration', 'agent_trace.jsonl'))).toBe(true);
    expect(git(repo, 'status', '--porcelain', '--untracked-files=all')).not.toContain('agent_trace');

    writeFiles(wt, { 'docs/x.md': 'y\n' });
    const bad = run('git', ['commit', '-q', '-am', 'out of scope'], wt);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain('Scope Violation: INT-001 is not authorized to edit docs/x.md');
  });
});
