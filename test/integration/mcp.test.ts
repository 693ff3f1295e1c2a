import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { listExpansionRequests } from '../../lib/intents/expansion.js';
import { CLI, checkoutIntent, git, governedRepo, intent, PKG_ROOT, tempDir } from '../helpers.js';

// `intent mcp` as a real process, driven by the SDK's own client over a real stdio connection.

const INTENTS = [
  { id: 'INT-001', name: 'JWT Authentication Migration', scope: ['src/auth/**', '!src/auth/legacy/**'] },
  { id: 'INT-002', name: 'Invoice rounding fix', scope: ['src/billing/**'] },
];

interface Text { type: 'text'; text: string }
interface Result { isError?: boolean; content: Text[] }

const clients: Client[] = [];
afterEach(async () => {
  while (clients.length) await clients.pop()!.close();
});

/** Starts `intent mcp --cwd <dir>` and connects the SDK client to it. */
async function connect(dir: string): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', '--cwd', dir],
    // The pinned git settings of test/setup.ts (the SDK passes only a few variables by default).
    env: Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined)),
    stderr: 'pipe',
  });
  let err = '';
  transport.stderr?.on('data', (c: Buffer) => { err += c.toString('utf8'); });
  const client = new Client({ name: 'intent-test', version: '0.0.0' });
  await client.connect(transport);
  clients.push(client);
  return { client, stderr: () => err };
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<Result> {
  return (await client.callTool({ name, arguments: args })) as unknown as Result;
}

/** The `{code, message, data}` of an isError result. */
function errorOf(r: Result): { code: string; message: string; data: Record<string, unknown> } {
  expect(r.isError, JSON.stringify(r)).toBe(true);
  return JSON.parse(r.content[0].text);
}

describe('intent mcp', () => {
  it('serves the four tools, with input schemas, under the name "intent"', async () => {
    const repo = governedRepo(INTENTS);
    const { client } = await connect(repo);
    expect(client.getServerVersion()?.name).toBe('intent');
    const { tools } = await client.listTools();
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(Object.keys(byName).sort()).toEqual(['get_active_intent', 'record_lesson', 'request_scope_expansion', 'select_active_intent']);
    for (const t of tools) {
      expect(t.description, t.name).toBeTruthy();
      expect(t.inputSchema.type, t.name).toBe('object');
    }
    const props = (n: string) => Object.keys(byName[n].inputSchema.properties ?? {}).sort();
    expect(props('select_active_intent')).toEqual(['intent_id', 'max_bytes']);
    expect(byName.select_active_intent.inputSchema.required).toEqual(['intent_id']);
    expect(props('get_active_intent')).toEqual([]);
    expect(props('record_lesson')).toEqual(['intent_id', 'text']);
    expect(byName.record_lesson.inputSchema.required).toEqual(['text']);
    expect(props('request_scope_expansion')).toEqual(['globs', 'intent_id', 'reason']);
    expect([...(byName.request_scope_expansion.inputSchema.required as string[])].sort()).toEqual(['globs', 'intent_id', 'reason']);
    expect((byName.request_scope_expansion.inputSchema.properties as any).globs).toMatchObject({ type: 'array', items: { type: 'string' } });
  });

  it('select_active_intent returns the <intent_context> of the named intent', async () => {
    const repo = governedRepo(INTENTS);
    const { client } = await connect(repo);
    const r = await call(client, 'select_active_intent', { intent_id: 'INT-001' });
    expect(r.isError ?? false, JSON.stringify(r)).toBe(false);
    expect(r.content[0].type).toBe('text');
    const text = r.content[0].text;
    expect(text).toContain('<intent_context');
    expect(text).toContain('INT-001');
    expect(text).toContain('JWT Authentication Migration');
    expect(text).toContain('src/auth/**');
    const small = await call(client, 'select_active_intent', { intent_id: 'INT-001', max_bytes: 4096 });
    expect(small.isError ?? false, JSON.stringify(small)).toBe(false);
    expect(Buffer.byteLength(small.content[0].text)).toBeLessThanOrEqual(4096);
    expect(errorOf(await call(client, 'select_active_intent', { intent_id: 'INT-404' })).message).toContain('INT-404');
  });

  it('get_active_intent reports the intent of an intent worktree, and an error in the main worktree', async () => {
    const repo = governedRepo(INTENTS);
    const wt = checkoutIntent(repo, 'INT-002');
    const inWorktree = await connect(wt);
    const r = await call(inWorktree.client, 'get_active_intent');
    expect(r.isError ?? false, JSON.stringify(r)).toBe(false);
    expect(JSON.parse(r.content[0].text)).toEqual({
      intent_id: 'INT-002', status: 'IN_PROGRESS', name: 'Invoice rounding fix', owned_scope: ['src/billing/**'], worktree: wt,
    });
    const inMain = await connect(repo);
    const e = errorOf(await call(inMain.client, 'get_active_intent'));
    expect(e.code).toBe('NO_ACTIVE_INTENT');
    expect(e.message).toContain('No intent is active');
    expect(e.message).toContain('intent checkout');
  });

  it('record_lesson appends to the main worktree\'s AGENT.md, also from an intent worktree', async () => {
    const repo = governedRepo(INTENTS);
    const wt = checkoutIntent(repo, 'INT-001');
    const { client } = await connect(wt);
    const r = await call(client, 'record_lesson', { text: 'Token refresh needs the clock skew option. Set it to 30s.', intent_id: 'INT-001' });
    expect(r.isError ?? false, JSON.stringify(r)).toBe(false);
    const out = JSON.parse(r.content[0].text);
    expect(out.appended).toBe(true);
    expect(out.lesson).toMatchObject({ intentId: 'INT-001', title: 'Token refresh needs the clock skew option.' });
    expect(out.path).toBe(join(repo, '.orchestration', 'AGENT.md'));
    const md = readFileSync(join(repo, '.orchestration', 'AGENT.md'), 'utf8');
    expect(md).toContain('· INT-001 · Token refresh needs the clock skew option.');
    // The worktree's own copy is untouched: lessons are shared through the main worktree.
    expect(readFileSync(join(wt, '.orchestration', 'AGENT.md'), 'utf8')).not.toContain('clock skew');
    const general = JSON.parse((await call(client, 'record_lesson', { text: 'Run npm run build before the tests.', intent_id: 'general' })).content[0].text);
    expect(general.lesson.intentId).toBeNull();
    expect(errorOf(await call(client, 'record_lesson', { text: '   ' })).code).toBe('INVALID_INPUT');
  });

  it('request_scope_expansion files a PENDING request from "mcp", visible to every worktree', async () => {
    const repo = governedRepo(INTENTS);
    const wt = checkoutIntent(repo, 'INT-001');
    const { client } = await connect(wt);
    const r = await call(client, 'request_scope_expansion', {
      intent_id: 'INT-001', globs: ['src/billing/plan.ts', 'src/shared/**'], reason: 'JWT claims carry the billing plan',
    });
    expect(r.isError ?? false, JSON.stringify(r)).toBe(false);
    const req = JSON.parse(r.content[0].text);
    expect(req).toMatchObject({
      intent: 'INT-001', globs: ['src/billing/plan.ts', 'src/shared/**'], reason: 'JWT claims carry the billing plan',
      requested_by: 'mcp', status: 'PENDING',
    });
    expect(req.message).toContain(`intent approve ${req.id}`);
    const file = join(repo, '.git', 'intent', 'requests', `${req.id}.json`);
    const stored = { ...req };
    delete stored.message;
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(stored);
    expect(listExpansionRequests(repo)).toEqual([stored]);
    expect(listExpansionRequests(wt)).toEqual([stored]);
  });

  it('bad inputs return isError results with the error JSON, and the server keeps serving', async () => {
    const repo = governedRepo(INTENTS);
    const { client, stderr } = await connect(repo);
    const unknown = errorOf(await call(client, 'request_scope_expansion', { intent_id: 'INT-404', globs: ['src/**'], reason: 'x' }));
    expect(unknown.code).toBe('UNKNOWN_INTENT');
    expect(unknown.message).toContain('INT-001, INT-002');
    const empty = errorOf(await call(client, 'request_scope_expansion', { intent_id: 'INT-001', globs: [], reason: 'x' }));
    expect(empty.code).toBe('INVALID_INPUT');
    expect(empty.data.field).toBe('globs');
    const dotdot = errorOf(await call(client, 'request_scope_expansion', { intent_id: 'INT-001', globs: ['src/../../etc/**'], reason: 'x' }));
    expect(dotdot.code).toBe('INVALID_INPUT');
    expect(dotdot.message).toContain('contains ".."');
    const noReason = errorOf(await call(client, 'request_scope_expansion', { intent_id: 'INT-001', globs: ['src/x/**'], reason: '' }));
    expect(noReason.data.field).toBe('reason');
    // Arguments that do not fit the schema are refused by the SDK, as an error result too.
    const wrongType = await call(client, 'request_scope_expansion', { intent_id: 'INT-001', globs: 'src/**', reason: 'x' });
    expect(wrongType.isError).toBe(true);
    expect(listExpansionRequests(repo)).toEqual([]);
    // Still up: a later call works.
    const ok = await call(client, 'request_scope_expansion', { intent_id: 'INT-001', globs: ['src/x/**'], reason: 'needs x' });
    expect(ok.isError ?? false, JSON.stringify(ok)).toBe(false);
    expect(listExpansionRequests(repo)).toHaveLength(1);
    expect(stderr()).toBe('');
  });

  it('refuses to start outside a repository (exit 1, says why)', () => {
    const dir = tempDir();
    const r = intent(dir, ['mcp', '--cwd', dir]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('not inside a git repository');
  });
});

describe('intent mcp: the session, limits and validation (issue 14)', () => {
  it('the schemas carry every limit the server enforces', async () => {
    const repo = governedRepo(INTENTS);
    const { client } = await connect(repo);
    const { tools } = await client.listTools();
    const prop = (tool: string, name: string) => (tools.find((t) => t.name === tool)!.inputSchema.properties as any)[name];
    expect(prop('select_active_intent', 'max_bytes')).toMatchObject({ type: 'integer', minimum: 512 });
    expect(prop('select_active_intent', 'intent_id').pattern).toBeTruthy();
    expect(prop('record_lesson', 'text')).toMatchObject({ type: 'string', minLength: 1, maxLength: 2000 });
    expect(prop('request_scope_expansion', 'globs')).toMatchObject({ type: 'array', minItems: 1, maxItems: 100, items: { type: 'string', minLength: 1 } });
    expect(prop('request_scope_expansion', 'reason')).toMatchObject({ type: 'string', minLength: 1, maxLength: 2000 });
  });

  it('schema failures and unknown tools are isError results with our {code, message, data}', async () => {
    const repo = governedRepo(INTENTS);
    const { client } = await connect(repo);
    const wrongType = errorOf(await call(client, 'request_scope_expansion', { intent_id: 'INT-001', globs: 'src/**', reason: 'x' }));
    expect(wrongType).toMatchObject({ code: 'INVALID_INPUT', data: { tool: 'request_scope_expansion', field: 'globs' } });
    expect(wrongType.message).toContain('globs');
    const small = errorOf(await call(client, 'select_active_intent', { intent_id: 'INT-001', max_bytes: 100 }));
    expect(small).toMatchObject({ code: 'INVALID_INPUT', data: { field: 'max_bytes' } });
    const emptyGlob = errorOf(await call(client, 'request_scope_expansion', { intent_id: 'INT-001', globs: [''], reason: 'x' }));
    expect(emptyGlob.data.field).toBe('globs');
    const longReason = errorOf(await call(client, 'request_scope_expansion', { intent_id: 'INT-001', globs: ['src/x/**'], reason: 'r'.repeat(2001) }));
    expect(longReason.data.field).toBe('reason');
    const unknown = errorOf(await call(client, 'frobnicate', {}));
    expect(unknown.code).toBe('USAGE');
    expect(unknown.message).toContain('select_active_intent');
    expect(listExpansionRequests(repo)).toEqual([]);
  });

  it('limits a lesson\'s length: 200,000 characters are refused and AGENT.md is left alone', async () => {
    const repo = governedRepo(INTENTS);
    const { client } = await connect(repo);
    const agentMd = join(repo, '.orchestration', 'AGENT.md');
    const before = existsSync(agentMd) ? readFileSync(agentMd, 'utf8') : null;
    const e = errorOf(await call(client, 'record_lesson', { text: 'x'.repeat(200_000) }));
    expect(e).toMatchObject({ code: 'INVALID_INPUT', data: { field: 'text' } });
    expect(existsSync(agentMd) ? readFileSync(agentMd, 'utf8') : null).toBe(before);
  });

  it('select_active_intent selects for the session: get_active_intent answers with it, and the handshake is recorded', async () => {
    const repo = governedRepo(INTENTS);
    const { client } = await connect(repo);
    expect(errorOf(await call(client, 'get_active_intent')).code).toBe('NO_ACTIVE_INTENT');
    expect((await call(client, 'select_active_intent', { intent_id: 'INT-002' })).isError ?? false).toBe(false);
    expect(JSON.parse((await call(client, 'get_active_intent')).content[0].text)).toMatchObject({ intent_id: 'INT-002', name: 'Invoice rounding fix' });

    // In an intent worktree only its own intent can be selected; the selection is the worktree's.
    const wt = checkoutIntent(repo, 'INT-001');
    const inWt = await connect(wt);
    const other = errorOf(await call(inWt.client, 'select_active_intent', { intent_id: 'INT-002' }));
    expect(other.code).toBe('NO_ACTIVE_INTENT');
    expect(other.message).toContain('You must cite a valid active Intent ID.');
    expect(other.message).toContain('works on INT-001');
    expect((await call(inWt.client, 'select_active_intent', { intent_id: 'INT-001' })).isError ?? false).toBe(false);
    const gitDir = git(wt, 'rev-parse', '--path-format=absolute', '--git-dir').trim();
    const records = readdirSync(join(gitDir, 'intent-handshake')).map((f) => JSON.parse(readFileSync(join(gitDir, 'intent-handshake', f), 'utf8')));
    expect(records).toEqual([expect.objectContaining({ agent: 'mcp', intent: 'INT-001' })]);
  });

  it('record_lesson validates its tag like `intent lesson`: known intents only, and in a worktree only its own', async () => {
    const repo = governedRepo(INTENTS);
    const wt = checkoutIntent(repo, 'INT-001');
    const { client } = await connect(wt);
    expect(errorOf(await call(client, 'record_lesson', { text: 'A lesson.', intent_id: 'INT-404' })).code).toBe('UNKNOWN_INTENT');
    const foreign = errorOf(await call(client, 'record_lesson', { text: 'A lesson.', intent_id: 'INT-002' }));
    expect(foreign.code).toBe('INVALID_INPUT');
    expect(foreign.message).toContain('works on INT-001');
    const own = JSON.parse((await call(client, 'record_lesson', { text: 'Untagged in a worktree means its intent.' })).content[0].text);
    expect(own.lesson.intentId).toBe('INT-001');
    const cli = intent(wt, ['lesson', 'From the CLI, for another intent.', '--intent', 'INT-002']);
    expect(cli.status).not.toBe(0);
    expect(cli.stderr).toContain('works on INT-001');
    expect(intent(repo, ['lesson', 'Unknown tag.', '--intent', 'INT-404']).stderr).toContain('Unknown intent "INT-404"');
  });

  it('request_scope_expansion refuses governance paths, like `intent expand`', async () => {
    const repo = governedRepo(INTENTS);
    const { client } = await connect(repo);
    for (const glob of ['.orchestration/**', '.orchestration/active_intents.yaml', './.git/hooks/*']) {
      const e = errorOf(await call(client, 'request_scope_expansion', { intent_id: 'INT-001', globs: [glob], reason: 'x' }));
      expect(e.code, glob).toBe('INVALID_INPUT');
      expect(e.message, glob).toContain('governance state');
    }
    expect(intent(repo, ['expand', 'INT-001', '.orchestration/**', '--reason', 'x']).stderr).toContain('governance state');
    expect(listExpansionRequests(repo)).toEqual([]);
  });

  it('says what is wrong with a --cwd that does not exist', () => {
    const dir = join(tempDir(), 'missing');
    const r = intent(tempDir(), ['mcp', '--cwd', dir]);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain(`${dir} is not a directory`);
    expect(r.stderr).not.toMatch(/git (is )?missing|ENOENT/);
  });

  it('trimming keeps the intent\'s own lessons before general ones', async () => {
    const repo = governedRepo(INTENTS);
    const { client } = await connect(repo);
    const own = `Own lesson: ${'refresh tokens rotate on every use; '.repeat(40)}`;
    expect((await call(client, 'record_lesson', { text: own, intent_id: 'INT-001' })).isError ?? false).toBe(false);
    for (let i = 0; i < 5; i++) await call(client, 'record_lesson', { text: `General lesson ${i}: keep commits small.`, intent_id: 'general' });
    const r = await call(client, 'select_active_intent', { intent_id: 'INT-001', max_bytes: 1200 });
    expect(r.isError ?? false, JSON.stringify(r)).toBe(false);
    const text = r.content[0].text;
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(1200);
    expect(text).toMatch(/<lesson[^>]*intent="INT-001"[^>]*>Own lesson: refresh tokens rotate/);
  });
});

/** `intent mcp` driven by a raw client: lines written to its stdin, JSON lines read from its stdout. */
async function rawSession(dir: string, hello = RAW_HELLO): Promise<{ send: (line: string) => void; next: () => Promise<any>; close: () => void; initialize: any }> {
  const child = spawn(process.execPath, [CLI, 'mcp', '--cwd', dir], { stdio: ['pipe', 'pipe', 'pipe'] });
  const lines: string[] = [];
  const waiting: ((line: string) => void)[] = [];
  let buf = '';
  child.stdout.on('data', (c: Buffer) => {
    buf += c.toString('utf8');
    for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      const w = waiting.shift();
      if (w) w(line);
      else lines.push(line);
    }
  });
  const session = {
    send: (line: string) => { child.stdin.write(line + '\n'); },
    next: () => new Promise<any>((resolve, reject) => {
      const got = lines.shift();
      if (got !== undefined) return resolve(JSON.parse(got));
      const timer = setTimeout(() => reject(new Error('no answer from intent mcp within 20 s')), 20_000);
      waiting.push((line) => { clearTimeout(timer); resolve(JSON.parse(line)); });
    }),
    close: () => { child.stdin.end(); },
  };
  raws.push(session);
  session.send(JSON.stringify(hello.initialize));
  const initialize = await session.next();
  expect(initialize.result?.serverInfo?.name, JSON.stringify(initialize)).toBe('intent');
  session.send(JSON.stringify(hello.initialized));
  return { ...session, initialize };
}

/** A client's first two messages: `initialize` (id 0) and `notifications/initialized`. */
const RAW_HELLO = {
  initialize: { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } },
  initialized: { jsonrpc: '2.0', method: 'notifications/initialized' },
};
const raws: { close: () => void }[] = [];
afterEach(() => {
  while (raws.length) raws.pop()!.close();
});

describe('intent mcp: protocol errors and hostile text (issue 27)', () => {
  it('a line that is not JSON gets -32700, a JSON value that is not JSON-RPC -32600, and the server keeps serving', async () => {
    const repo = governedRepo(INTENTS);
    const s = await rawSession(repo);
    s.send('{"jsonrpc": "2.0", "id": 7, "method": "tools/list"');
    const parse = await s.next();
    expect(parse).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
    expect(parse.error.message).toContain('not JSON');
    s.send(JSON.stringify({ jsonrpc: '2.0', id: 8, method: 42 }));
    expect(await s.next()).toMatchObject({ id: 8, error: { code: -32600 } });
    s.send(JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }));
    const list = await s.next();
    expect(list.id).toBe(9);
    expect(list.result.tools.map((t: { name: string }) => t.name)).toContain('select_active_intent');
  });

  it('tools/call with arguments as a string is an isError result with our shape, not -32603 with a zod dump', async () => {
    const repo = governedRepo(INTENTS);
    const s = await rawSession(repo);
    s.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'select_active_intent', arguments: '{"intent_id":"INT-001"}' } }));
    const r = await s.next();
    expect(r.id).toBe(1);
    expect(r.error).toBeUndefined();
    expect(r.result.isError).toBe(true);
    const body = JSON.parse(r.result.content[0].text);
    expect(body).toMatchObject({ code: 'INVALID_INPUT', data: { tool: 'select_active_intent', field: 'arguments' } });
    expect(body.message).toContain('"arguments" must be a JSON object');
    expect(body.message).toContain('not a string holding its JSON');
    s.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get_active_intent', arguments: ['x'] } }));
    expect(JSON.parse((await s.next()).result.content[0].text).message).toContain('got a list');
  });

  it('params that do not fit the method get -32602 naming the field, not -32603', async () => {
    const repo = governedRepo(INTENTS);
    const s = await rawSession(repo);
    s.send(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { arguments: {} } }));
    const r = await s.next();
    expect(r).toMatchObject({ id: 3, error: { code: -32602 } });
    expect(r.error.message).toMatch(/^Invalid params for tools\/call: params.name: /);
    expect(r.error.message).not.toContain('"code"');
    // JSON-RPC 2.0: params that are not a structured value make the whole request invalid.
    s.send(JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: 'select_active_intent' }));
    expect(await s.next()).toMatchObject({ id: 4, error: { code: -32600 } });
    s.send(JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 42 } }));
    expect(await s.next()).toMatchObject({ id: 5, error: { code: -32602 } });
  });

  it('a 100,000-character glob, tool name or id is refused with a clear INVALID_INPUT or USAGE, never INTERNAL', async () => {
    const repo = governedRepo(INTENTS);
    const { client } = await connect(repo);
    const long = 'src/' + 'a'.repeat(100_000);
    const glob = errorOf(await call(client, 'request_scope_expansion', { intent_id: 'INT-001', globs: [long], reason: 'x' }));
    expect(glob).toMatchObject({ code: 'INVALID_INPUT', data: { field: 'globs' } });
    expect(glob.message.length).toBeLessThan(1000);
    const id = errorOf(await call(client, 'select_active_intent', { intent_id: 'I'.repeat(100_000) }));
    expect(id).toMatchObject({ code: 'INVALID_INPUT', data: { field: 'intent_id' } });
    expect(id.message.length).toBeLessThan(1000);
    const tool = errorOf(await call(client, 'x'.repeat(100_000), {}));
    expect(tool.code).toBe('USAGE');
    expect(tool.message.length).toBeLessThan(1000);
    const big = errorOf(await call(client, 'select_active_intent', { intent_id: 'INT-001', max_bytes: 1e12 }));
    expect(big.data.field).toBe('max_bytes');
    // The same limit holds for `intent expand` and for globs that reach the library directly.
    const cli = intent(repo, ['expand', 'INT-001', long, '--reason', 'x']);
    expect(cli.status).not.toBe(0);
    expect(cli.stderr).toContain('characters long; at most 1024');
    expect(cli.stderr).not.toContain('INTERNAL');
    expect(listExpansionRequests(repo)).toEqual([]);
  });

  it('record_lesson strips bidi controls and invisible characters before other agents read the lesson', async () => {
    const repo = governedRepo(INTENTS);
    const { client } = await connect(repo);
    const hostile = 'Use the \u202Etxt.exe\u202C helper.\u200B Zero\u2066width\u2069\u200E\u200F\uFEFF and \u{E0041}\u{E0042}tags\u00AD.\tTabs stay.';
    const r = await call(client, 'record_lesson', { text: hostile, intent_id: 'INT-001' });
    expect(r.isError ?? false, JSON.stringify(r)).toBe(false);
    const md = readFileSync(join(repo, '.orchestration', 'AGENT.md'), 'utf8');
    expect(md).toContain('Use the txt.exe helper. Zerowidth and tags.\tTabs stay.');
    expect(md).not.toMatch(/[\u202A-\u202E\u2066-\u2069\u200B-\u200F\uFEFF\u00AD]|\u{E0041}/u);
    const ctx = (await call(client, 'select_active_intent', { intent_id: 'INT-001' })).content[0].text;
    expect(ctx).toContain('Use the txt.exe helper.');
    expect(ctx).not.toMatch(/[\u202A-\u202E\u2066-\u2069\u200B-\u200F\uFEFF]/);
  });

  it('a lesson written into AGENT.md by hand with a right-to-left override reaches the context block without it', async () => {
    const repo = governedRepo(INTENTS);
    appendFileSync(join(repo, '.orchestration', 'AGENT.md'), '\n## 2026-01-01 · INT-001 · Hand \u202Ewritten\n\u2067Body\u2069 with \u200Bhidden text.\n');
    const { client } = await connect(repo);
    const ctx = (await call(client, 'select_active_intent', { intent_id: 'INT-001' })).content[0].text;
    expect(ctx).toContain('Body with hidden text.');
    expect(ctx).not.toMatch(/[\u202A-\u202E\u2066-\u2069\u200B]/);
  });

  it('a scope-expansion reason is stored without invisible characters, and a glob holding one is refused', async () => {
    const repo = governedRepo(INTENTS);
    const { client } = await connect(repo);
    const ok = JSON.parse((await call(client, 'request_scope_expansion', { intent_id: 'INT-001', globs: ['src/x/**'], reason: 'needs \u202Ex\u202C for \u200Bbilling' })).content[0].text);
    expect(ok.reason).toBe('needs x for billing');
    const e = errorOf(await call(client, 'request_scope_expansion', { intent_id: 'INT-001', globs: ['src/\u202Egpj.**'], reason: 'x' }));
    expect(e.code).toBe('INVALID_INPUT');
    expect(e.message).toContain('invisible character');
  });
});

describe('intent mcp and the real Codex CLI\'s MCP client (issue 27)', () => {
  it('answers what Codex 0.171.0 sends at startup (clientInfo "codex-mcp-client", protocol 2025-06-18, its experimental capabilities)', async () => {
    const fixture = JSON.parse(readFileSync(join(PKG_ROOT, 'test', 'fixtures', 'codex', 'mcp-client.json'), 'utf8'));
    const [initialize, initialized, list] = fixture.client_to_server;
    expect(initialize.params.clientInfo).toEqual({ name: 'codex-mcp-client', title: 'Codex', version: fixture.version });
    const repo = governedRepo(INTENTS);
    const s = await rawSession(repo, { initialize, initialized });
    expect(s.initialize).toMatchObject({ jsonrpc: '2.0', id: 0, result: { protocolVersion: '2025-06-18', serverInfo: { name: 'intent' }, capabilities: { tools: {} } } });
    s.send(JSON.stringify(list));
    const tools = await s.next();
    expect(tools.id).toBe(list.id);
    expect(tools.result.tools.map((t: { name: string }) => t.name).sort()).toEqual(['get_active_intent', 'record_lesson', 'request_scope_expansion', 'select_active_intent']);
    s.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'select_active_intent', arguments: { intent_id: 'INT-001' } } }));
    const selected = await s.next();
    expect(selected.result.isError ?? false, JSON.stringify(selected)).toBe(false);
    expect(selected.result.content[0].text).toMatch(/^<intent_context id="INT-001"/);
  });
});
