#!/usr/bin/env node
// Captures the Cline CLI's real hook payloads into test/fixtures/cline/cli-<version>/: runs the
// pinned CLI (scripts/cline-e2e.mjs) headless in an intent worktree against the scripted mock of
// an OpenAI-compatible API on 127.0.0.1 (test/e2e/openai-mock.mjs), with hook files that only
// save their stdin and answer {"cancel": false}. Also keeps the session files Cline writes (the
// model is there, not in the payloads), without the system prompt. Paths are replaced by
// __WORKSPACE__ (the worktree) and __CLINE_DIR__ (Cline's home).
//
//   npm run build && node scripts/cline-e2e.mjs install && node scripts/cline-capture.mjs
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startOpenAiMock } from '../test/e2e/openai-mock.mjs';
import { CLINE_VERSION, clineBin, clineReady } from './cline-e2e.mjs';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const CLI = join(ROOT, 'dist', 'bin', 'intent.js');
const OUT = join(ROOT, 'test', 'fixtures', 'cline', `cli-${CLINE_VERSION}`);
const MARK = 'CAPTURE-MAIN-2b7';
const SUB = 'CAPTURE-SUB-8e1';

/** What the model does, one step per turn; each tool call gives one PreToolUse and one PostToolUse payload. */
const STEPS = {
  [MARK]: [
    { text: 'Select the intent, and write with the shell.', tools: [{ name: 'run_commands', input: { commands: ['intent context INT-001', 'false', "printf 'export const s = 1;\\n' > src/auth/shell.ts"] } }] },
    { tools: [{ name: 'read_files', input: { files: [{ path: 'src/auth/a.ts' }] } }] },
    { tools: [{ name: 'editor', input: { path: 'src/auth/new.ts', new_text: 'export const n = 1;\n' } }] },
    { tools: [{ name: 'editor', input: { path: 'src/auth/a.ts', old_text: 'export const a = 1;', new_text: 'export const a = 2;' } }] },
    { tools: [{ name: 'editor', input: { path: 'src/auth/a.ts', new_text: '// top\n', insert_line: 1 } }] },
    { tools: [{ name: 'editor', input: { path: 'src/auth/a.ts', old_text: 'not in the file', new_text: 'x' } }] },
    { tools: [{ name: 'editor', input: { path: '/dev/null', old_text: 'intent refused this edit', new_text: '' } }] },
    { tools: [{ name: 'spawn_agent', input: { systemPrompt: `You are ${SUB}, a helper.`, task: `${SUB}: write src/auth/sub.ts` } }] },
    { text: 'Done.' },
  ],
  [SUB]: [
    { tools: [{ name: 'editor', input: { path: 'src/auth/sub.ts', new_text: 'export const sub = 1;\n' } }] },
    { text: 'Sub done.' },
  ],
};

const NAMES = ['run-commands', 'read-files', 'editor-create', 'editor-replace', 'editor-insert', 'editor-failed', 'editor-neutral', 'spawn-agent'];

function sh(cwd, cmd, args, env = process.env) {
  const r = spawnSync(cmd, args, { cwd, env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed in ${cwd}: ${r.stderr}${r.stdout}`);
  return r.stdout;
}

/** Sends SIGTERM to `pid` and waits (at most 20 s) until it has exited. */
export async function stopProcess(pid) {
  try { process.kill(pid, 'SIGTERM'); } catch { return; }
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    try { process.kill(pid, 0); } catch { return; }
    await new Promise((r) => setTimeout(r, 100));
  }
  try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ }
}

async function main() {
  if (!clineReady()) throw new Error(`Cline ${CLINE_VERSION} is not installed: node scripts/cline-e2e.mjs install`);
  if (!existsSync(CLI)) throw new Error('dist/ is missing: npm run build');
  const tmp = mkdtempSync(join(tmpdir(), 'cline-capture-'));
  const repo = join(tmp, 'repo');
  const home = join(tmp, 'cline-home');
  const dump = join(tmp, 'dump');
  const bin = join(tmp, 'bin');
  for (const d of [repo, home, dump, bin]) mkdirSync(d, { recursive: true });
  writeFileSync(join(bin, 'intent'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} "$@"\n`);
  chmodSync(join(bin, 'intent'), 0o755);
  const env = { ...process.env, PATH: `${bin}:${process.env.PATH}`, GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'Capture', GIT_AUTHOR_EMAIL: 'capture@example.com', GIT_COMMITTER_NAME: 'Capture', GIT_COMMITTER_EMAIL: 'capture@example.com' };
  sh(repo, 'git', ['init', '-q', '-b', 'main'], env);
  mkdirSync(join(repo, 'src', 'auth'), { recursive: true });
  mkdirSync(join(repo, 'docs'), { recursive: true });
  writeFileSync(join(repo, 'src', 'auth', 'a.ts'), 'export const a = 1;\n');
  writeFileSync(join(repo, 'docs', 'x.md'), '# x\n');
  sh(repo, 'git', ['add', '-A'], env);
  sh(repo, 'git', ['commit', '-q', '-m', 'initial'], env);
  sh(repo, process.execPath, [CLI, 'init'], env);
  mkdirSync(join(repo, '.orchestration'), { recursive: true });
  writeFileSync(join(repo, '.orchestration', 'active_intents.yaml'),
    'active_intents:\n  - id: "INT-001"\n    name: "JWT auth"\n    status: "PENDING"\n    owned_scope: ["src/auth/**"]\n');
  sh(repo, 'git', ['add', '.orchestration'], env);
  sh(repo, 'git', ['commit', '-q', '-m', 'register'], env);
  const wt = JSON.parse(sh(repo, process.execPath, [CLI, 'checkout', 'INT-001', '--json'], env)).path;
  // The capturing hooks: save stdin, answer "no objection".
  const hooks = join(wt, '.cline', 'hooks');
  mkdirSync(hooks, { recursive: true });
  for (const event of ['PreToolUse', 'PostToolUse']) {
    const file = join(hooks, event);
    writeFileSync(file, `#!/bin/sh\nf="${dump}/$(date +%s%N)-${event}.json"\ncat > "$f"\necho '{"cancel":false}'\n`);
    chmodSync(file, 0o755);
  }
  const api = await startOpenAiMock(STEPS);
  // Its own hub port: the default is shared by every Cline of the machine (test/e2e/cline.test.ts).
  const hubPort = await new Promise((res, rej) => {
    const srv = createServer();
    srv.once('error', rej);
    srv.listen(0, '127.0.0.1', () => { const { port } = srv.address(); srv.close(() => res(port)); });
  });
  const clineEnv = { ...env, CLINE_DIR: home, HOME: home, CLINE_HUB_PORT: String(hubPort) };
  let hubPid;
  try {
    sh(wt, clineBin(), ['auth', '-p', 'openai', '-k', 'dummy', '-m', 'mock-model', '-b', `${api.url}/v1`], clineEnv);
    const run = await new Promise((res, rej) => {
      const c = spawn(clineBin(), ['--json', '-t', '180', `${MARK}: do the steps.`], { cwd: wt, env: clineEnv, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      c.stdout.on('data', (d) => (stdout += d));
      c.on('error', rej);
      c.on('close', (code) => res({ code, stdout }));
    });
    const lock = join(home, 'data', 'locks', 'hub', 'production.json');
    if (existsSync(lock)) hubPid = JSON.parse(readFileSync(lock, 'utf8')).pid;
    if (run.code !== 0) throw new Error(`cline exited ${run.code}: ${run.stdout.slice(-2000)}`);
    const result = run.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l)).find((e) => e.type === 'run_result');
    const norm = (text) => text.replaceAll(wt, '__WORKSPACE__').replaceAll(home, '__CLINE_DIR__').replaceAll(tmp, '__TMP__');
    rmSync(OUT, { recursive: true, force: true });
    mkdirSync(OUT, { recursive: true });
    // Payloads in the order they came: pre/post of each tool call, named after the step.
    const files = readdirSync(dump).sort();
    const byCall = new Map();
    for (const f of files) {
      const p = JSON.parse(readFileSync(join(dump, f), 'utf8'));
      const call = (p.tool_call ?? p.tool_result)?.id;
      if (!byCall.has(call)) byCall.set(call, []);
      byCall.get(call).push(p);
    }
    const mainCalls = api.calls.get(MARK) ?? [];
    const subCalls = api.calls.get(SUB) ?? [];
    const named = [...mainCalls.map((id, i) => [id, NAMES[i]]), ...subCalls.map((id) => [id, 'subagent-editor-create'])];
    for (const [id, name] of named) {
      for (const p of byCall.get(id) ?? []) {
        const phase = p.hookName === 'tool_call' ? 'pre' : 'post';
        writeFileSync(join(OUT, `${phase}-${name}.json`), norm(JSON.stringify(p, null, 2)) + '\n');
      }
    }
    // Cline's session files (manifest, messages of the lead and of the subagent), without the system prompt.
    const sessions = join(home, 'data', 'sessions');
    for (const s of readdirSync(sessions)) {
      mkdirSync(join(OUT, 'sessions', s), { recursive: true });
      for (const f of readdirSync(join(sessions, s))) {
        const doc = JSON.parse(readFileSync(join(sessions, s, f), 'utf8'));
        delete doc.system_prompt;
        writeFileSync(join(OUT, 'sessions', s, f), norm(JSON.stringify(doc, null, 2)) + '\n');
      }
    }
    writeFileSync(join(OUT, 'run-result.json'), norm(JSON.stringify(result, null, 2)) + '\n');
    const told = Object.fromEntries(named.map(([id, name]) => [name, api.results.get(id)?.text ?? null]));
    writeFileSync(join(OUT, 'tool-results.json'), norm(JSON.stringify(told, null, 2)) + '\n');
    console.log(`captured ${readdirSync(OUT).length} files into ${OUT}`);
  } finally {
    // Cline's hub daemon outlives the command: stop it, and wait until it is gone before removing its home.
    if (hubPid) await stopProcess(hubPid);
    await api.close();
    rmSync(tmp, { recursive: true, force: true, maxRetries: 5 });
  }
}

await main();
