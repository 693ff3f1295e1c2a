// Captures the hook payloads the real Claude Code CLI sends (test/fixtures/claude-code/, which
// test/integration/claude-code-hooks.test.ts feeds to the hooks): the pinned CLI
// (scripts/claude-code-e2e.mjs) runs headless in an intent worktree against the scripted mock of
// the Messages API (test/e2e/anthropic-mock.ts), with every hook command `intent init --agent
// claude-code` registered wrapped so that its input is kept before the hook runs. Paths are
// replaced by {{ROOT}} (the worktree) and {{TRANSCRIPTS}} (Claude Code's transcript folder).
//
//   npm run build && node scripts/claude-code-e2e.mjs install
//   npx vite-node scripts/capture-claude-code-fixtures.ts [--out <dir>]
//
// For a new Claude Code version: change CLAUDE_CODE_VERSION in scripts/claude-code-e2e.mjs, install,
// capture, and run the tests (the integration file and test/e2e/claude-code.test.ts).
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startMockApi, type MockApi, type Step } from '../test/e2e/anthropic-mock.js';
// @ts-expect-error: a plain ES module without types
import { CLAUDE_CODE_VERSION, claudeCodeBin, claudeCodeReady } from './claude-code-e2e.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CLI = join(ROOT, 'dist', 'bin', 'intent.js');
const MAIN = 'CAPTURE-MAIN-3a9';
const SUB = 'CAPTURE-SUB-8e1';

type Payload = Record<string, any>;

function sh(cwd: string, cmd: string, args: string[]): string {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}): ${r.stderr}${r.stdout}`);
  return r.stdout;
}
const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** A repository under `intent init --agent claude-code` with INT-001 (src/**) checked out; the worktree. */
function setUp(dir: string): string {
  const repo = join(dir, 'repo');
  mkdirSync(join(repo, 'src'), { recursive: true });
  mkdirSync(join(repo, 'docs'));
  writeFileSync(join(repo, 'README.md'), '# r\n');
  writeFileSync(join(repo, 'src', 'a.txt'), 'hello\n');
  writeFileSync(join(repo, 'docs', 'x.md'), 'x\n');
  sh(repo, 'git', ['init', '-q', '-b', 'main']);
  sh(repo, 'git', ['add', '-A']);
  sh(repo, 'git', ['commit', '-q', '-m', 'initial']);
  sh(repo, process.execPath, [CLI, 'init', '--agent', 'claude-code']);
  writeFileSync(join(repo, '.orchestration', 'active_intents.yaml'),
    'active_intents:\n  - id: "INT-001"\n    name: "Claude"\n    status: "PENDING"\n    owned_scope: ["src/**"]\n');
  sh(repo, 'git', ['add', '-A']);
  sh(repo, 'git', ['commit', '-q', '-m', 'claude code hooks']);
  return JSON.parse(sh(repo, process.execPath, [CLI, 'checkout', 'INT-001', '--json'])).path;
}

/**
 * Wraps every hook command of the worktree's .claude/settings.json: its input is appended to `log`,
 * then it runs. Returns each wrapped command with the command it wraps.
 */
function wrapHooks(wt: string, dir: string, log: string): Map<string, string> {
  const wrapped = new Map<string, string>();
  const keep = join(dir, 'keep-input.cjs');
  writeFileSync(keep, [
    "const fs = require('node:fs');",
    "const { spawnSync } = require('node:child_process');",
    'const input = fs.readFileSync(0);',
    "fs.appendFileSync(process.argv[2], JSON.stringify(JSON.parse(input.toString('utf8'))) + '\\n');",
    "const r = spawnSync('sh', ['-c', process.argv[3]], { input, stdio: ['pipe', 'inherit', 'inherit'] });",
    'process.exit(r.status ?? 2);',
  ].join('\n'));
  const file = join(wt, '.claude', 'settings.json');
  const settings = JSON.parse(readFileSync(file, 'utf8'));
  for (const entries of Object.values(settings.hooks) as { hooks: { command: string }[] }[][]) {
    for (const e of entries) {
      for (const h of e.hooks) {
        const original = h.command;
        h.command = `${quote(process.execPath)} ${quote(keep)} ${quote(log)} ${quote(original)}`;
        wrapped.set(h.command, original);
      }
    }
  }
  writeFileSync(file, JSON.stringify(settings, null, 2));
  return wrapped;
}

/** `value` with `replace` applied to every string in it. */
function mapStrings(value: unknown, replace: (s: string) => string): unknown {
  if (typeof value === 'string') return replace(value);
  if (Array.isArray(value)) return value.map((v) => mapStrings(v, replace));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapStrings(v, replace)]));
  return value;
}

function claude(cwd: string, prompt: string, api: MockApi, home: string, bin: string): Promise<{ code: number; out: string }> {
  const args = ['-p', prompt, '--output-format', 'json', '--model', 'claude-sonnet-4-5', '--allowedTools', 'Write,Edit,Read,Bash,Agent'];
  return new Promise((res, rej) => {
    const child = spawn(claudeCodeBin(), args, {
      cwd,
      env: {
        ...process.env, HOME: home, CLAUDE_CONFIG_DIR: join(home, '.claude'), PATH: `${bin}:${process.env.PATH}`,
        ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: 'dummy', DISABLE_AUTOUPDATER: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('error', rej);
    child.on('close', (code) => res({ code: code ?? -1, out }));
  });
}

async function main(): Promise<void> {
  const outAt = process.argv.indexOf('--out');
  const out = outAt > 0 ? resolve(process.argv[outAt + 1]) : join(ROOT, 'test', 'fixtures', 'claude-code');
  if (!claudeCodeReady()) throw new Error(`Claude Code ${CLAUDE_CODE_VERSION} is not installed: run \`node scripts/claude-code-e2e.mjs install\` first.`);
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'intent-capture-')));
  try {
    const wt = setUp(dir);
    const log = join(dir, 'payloads.jsonl');
    const wrapped = wrapHooks(wt, dir, log);
    const home = join(dir, 'home');
    const bin = join(dir, 'bin');
    mkdirSync(home);
    mkdirSync(bin);
    writeFileSync(join(bin, 'intent'), `#!/bin/sh\nexec ${quote(process.execPath)} ${quote(CLI)} "$@"\n`, { mode: 0o755 });
    const f = (p: string) => join(wt, p);
    // One tool call a step; the n-th call of a conversation is its n-th step (MockApi.calls).
    const steps: Step[] = [
      { tools: [{ name: 'Bash', input: { command: 'intent context INT-001', description: 'Load the intent context' } }] },
      { tools: [{ name: 'Write', input: { file_path: f('src/new.txt'), content: 'line1\nline2\n' } }] },
      { tools: [{ name: 'Read', input: { file_path: f('src/a.txt') } }] },
      { tools: [{ name: 'Edit', input: { file_path: f('src/a.txt'), old_string: 'hello', new_string: 'hello\nfrom the model' } }] },
      { tools: [{ name: 'Bash', input: { command: 'echo bashline > src/b.txt', description: 'write b' } }] },
      { tools: [{ name: 'Bash', input: { command: 'false', description: 'fail' } }] },
      { tools: [{ name: 'Agent', input: { description: 'Write the sub file', prompt: `${SUB}: write src/sub.txt`, subagent_type: 'general-purpose', model: 'haiku', run_in_background: false } }] },
      { text: 'done' },
    ];
    const api = await startMockApi({ [MAIN]: steps, [SUB]: [{ tools: [{ name: 'Write', input: { file_path: f('src/sub.txt'), content: 'from sub\n' } }] }, { text: 'done' }] });
    let run: { code: number; out: string };
    try {
      run = await claude(wt, `${MAIN}: do it`, api, home, bin);
    } finally {
      await api.close();
    }
    const payloads: Payload[] = readFileSync(log, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
    const call = (marker: string, n: number) => api.calls.get(marker)?.[n];
    const pick = (marker: string, n: number, event: string): Payload => {
      const id = call(marker, n);
      const p = payloads.find((x) => x.tool_use_id === id && x.hook_event_name === event);
      if (!p) throw new Error(`no ${event} payload for call ${n} of ${marker} (${id}); claude (exit ${run.code}) said: ${run.out}`);
      return p;
    };
    const chosen: Record<string, Payload> = {
      'Write.PreToolUse': pick(MAIN, 1, 'PreToolUse'),
      'Write.PostToolUse': pick(MAIN, 1, 'PostToolUse'),
      'Edit.PostToolUse': pick(MAIN, 3, 'PostToolUse'),
      'Read.PostToolUse': pick(MAIN, 2, 'PostToolUse'),
      'Bash.PreToolUse': pick(MAIN, 4, 'PreToolUse'),
      'Bash.PostToolUse': pick(MAIN, 4, 'PostToolUse'),
      'Bash.PostToolUseFailure': pick(MAIN, 5, 'PostToolUseFailure'),
      'subagent.Write.PostToolUse': pick(SUB, 0, 'PostToolUse'),
    };
    const main = chosen['Write.PostToolUse'];
    const transcripts = dirname(main.transcript_path);
    const sub = chosen['subagent.Write.PostToolUse'];
    const subFile = join(transcripts, sub.session_id, 'subagents', `agent-${sub.agent_id}.jsonl`);
    // The capture's own wrapper out (the transcript records the hook commands), then the paths.
    const clean = (s: string) => {
      for (const [w, original] of wrapped) s = s.split(w).join(original);
      return s.split(transcripts).join('{{TRANSCRIPTS}}').split(wt).join('{{ROOT}}');
    };
    const lines = readFileSync(subFile, 'utf8').split('\n').filter(Boolean).map((l) => JSON.stringify(mapStrings(JSON.parse(l), clean)));
    const files = {
      'payloads.json': `${JSON.stringify(mapStrings(chosen, clean), null, 2)}\n`,
      'subagent-transcript.jsonl': `${lines.join('\n')}\n`,
    };
    for (const [name, text] of Object.entries(files)) {
      const at = text.indexOf(dir);
      if (at >= 0) throw new Error(`${name} still names a path of this machine: …${text.slice(Math.max(0, at - 80), at + 120)}…: replace it in clean()`);
      writeFileSync(join(out, name), text);
    }
    process.stdout.write(`Claude Code ${CLAUDE_CODE_VERSION}: ${Object.keys(chosen).length} payloads and the subagent's transcript written to ${out}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
