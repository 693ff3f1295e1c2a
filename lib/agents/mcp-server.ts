import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ErrorCode, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { randomUUID } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import * as z from 'zod';
import { resolveIntentId } from '../intents/active.js';
import { DEFAULT_CONTEXT_BYTES, MIN_CONTEXT_BYTES, renderContext } from '../intents/context.js';
import { IntentError, NO_ACTIVE_INTENT_MESSAGE } from '../core/errors.js';
import { recordHandshake, type AgentSession } from './handshake.js';
import { MAX_REASON_CHARS, MAX_REQUEST_GLOBS, requestExpansion } from '../intents/expansion.js';
import { appendLesson, checkLessonTag, MAX_LESSON_CHARS } from '../intents/lessons.js';
import { findIntent, loadRegistry } from '../intents/registry.js';
import { openRepo, orchestrationPath } from '../git/repo.js';
import { TOOL_VERSION } from '../core/version.js';
import { MAX_GLOB_CHARS } from '../intents/scope.js';
import { LineTransport } from './mcp-transport.js';

/** The MCP server name clients see. */
export const MCP_SERVER_NAME = 'intent';

/**
 * Runs `fn` as a tool call: its string is the text result; an error becomes an `isError` result
 * whose text is the error's JSON (`{code, message, data}`), so one bad call never stops the server.
 */
function toolCall(fn: () => string): CallToolResult {
  try {
    return { content: [{ type: 'text', text: fn() }] };
  } catch (e) {
    const body = e instanceof IntentError
      ? e.toJSON()
      : { code: 'INTERNAL', message: `internal error: ${(e as Error)?.message ?? String(e)}. Please report this.`, data: {} };
    return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }] };
  }
}

/** The intent of the worktree at `cwd`, as `get_active_intent` reports it. */
export function activeIntentInfo(cwd: string, selected: string | null = null): { intent_id: string; status: string; name: string; owned_scope: string[]; worktree: string } {
  const repo = openRepo(cwd);
  const active = resolveIntentId(repo) ?? (selected ? { id: selected, source: 'selection' } : null);
  if (!active) {
    throw new IntentError(
      'NO_ACTIVE_INTENT',
      `No intent is active in ${repo.root}: it is not an intent worktree (branch intent/<ID>) and INTENT_ID is not set. ` +
        'Open one with `intent checkout <ID>` and start the MCP server there, or call select_active_intent with an intent id.',
      { worktree: repo.root },
    );
  }
  const registryPath = orchestrationPath(repo, 'active_intents.yaml');
  const registry = loadRegistry(registryPath);
  const intent = findIntent(registry, active.id);
  if (!intent) {
    throw new IntentError(
      'UNKNOWN_INTENT',
      `This worktree works on ${active.id} (from its ${active.source}), but ${registryPath} does not define it. Known intents: ${registry.intents.map((i) => i.id).join(', ') || 'none'}. Ask a human to register it.`,
      { intent: active.id, source: active.source, path: registryPath },
    );
  }
  return { intent_id: intent.id, status: intent.status, name: intent.name, owned_scope: intent.owned_scope, worktree: repo.root };
}

/** The MCP SDK's own failures (arguments that fail a schema, unknown tools) as our `{code, message, data}`. */
function sdkError(message: string): CallToolResult {
  const text = String(message).replace(/^MCP error -?\d+: /, '');
  const unknown = /^Tool (\S+) (not found|disabled)/.exec(text);
  let error: IntentError;
  if (unknown) {
    const name = shorten(unknown[1], 64);
    error = new IntentError('USAGE', `There is no tool "${name}". The tools are: ${TOOLS.join(', ')}.`, { tool: name, tools: [...TOOLS] });
  } else {
    // The SDK says "Input validation error: Invalid arguments for tool <name>: <issue> at <path>" (one issue a line).
    const m = /^Input validation error: Invalid arguments for tool (\S+): ([\s\S]*)$/.exec(text);
    const issues = (m ? m[2] : text).split('\n').map((line) => {
      const at = / at ([\w.[\]]+)$/.exec(line);
      return { path: at ? at[1] : '', message: at ? line.slice(0, at.index) : line };
    });
    const field = issues.find((i) => i.path)?.path.split(/[.[]/)[0];
    const said = issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; ');
    error = new IntentError('INVALID_INPUT', `Invalid arguments${m ? ` for ${m[1]}` : ''}: ${said}. Check the tool's input schema and call it again.`, {
      ...(m ? { tool: m[1] } : {}),
      ...(field ? { field } : {}),
    });
  }
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(error.toJSON()) }] };
}

/** `s` cut to `max` characters, with "…" when cut (a client's own strings echoed in a message). */
function shorten(s: string, max: number): string {
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

type RequestHandler = (request: { method: string; params?: unknown }, extra: unknown) => Promise<unknown>;

/**
 * Wraps the SDK's request handlers so that a request whose params do not fit the method's schema
 * is answered with JSON-RPC `-32602` (Invalid params) and a short message naming the fields, not
 * the SDK's `-32603` (Internal error) with zod's raw dump; and so that `tools/call` with
 * `arguments` that are not an object (a string, a list) gets an `isError` result like any other
 * argument that fails a tool's schema.
 */
function guardRequests(server: McpServer): void {
  const handlers = (server.server as unknown as { _requestHandlers?: unknown })._requestHandlers;
  if (!(handlers instanceof Map)) throw new Error('the MCP SDK no longer keeps its request handlers in _requestHandlers: update guardRequests');
  for (const [method, handler] of [...(handlers as Map<string, RequestHandler>)]) {
    handlers.set(method, async (request: { method: string; params?: unknown }, extra: unknown) => {
      if (method === 'tools/call') {
        const bad = badArguments(request.params);
        if (bad) return bad;
      }
      try {
        return await handler(request, extra);
      } catch (e) {
        throw asInvalidParams(method, e);
      }
    });
  }
}

/** The isError result for a tools/call whose `arguments` are present but not an object. */
function badArguments(params: unknown): CallToolResult | null {
  if (typeof params !== 'object' || params === null || !('arguments' in params)) return null;
  const { arguments: args, name } = params as { arguments?: unknown; name?: unknown };
  if (args === undefined || (typeof args === 'object' && args !== null && !Array.isArray(args))) return null;
  const tool = typeof name === 'string' ? shorten(name, 64) : undefined;
  const got = args === null ? 'null' : Array.isArray(args) ? 'a list' : `a ${typeof args}`;
  const error = new IntentError(
    'INVALID_INPUT',
    `Invalid arguments${tool ? ` for ${tool}` : ''}: "arguments" must be a JSON object of the tool's parameters, got ${got}` +
      `${typeof args === 'string' ? ' (send the object itself, not a string holding its JSON)' : ''}. Check the tool's input schema and call it again.`,
    { ...(tool ? { tool } : {}), field: 'arguments' },
  );
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(error.toJSON()) }] };
}

/** A zod failure of a request's params as `-32602`, naming each field; other errors unchanged. */
function asInvalidParams(method: string, e: unknown): unknown {
  const issues = (e as { issues?: unknown })?.issues;
  if (e instanceof McpError || !Array.isArray(issues)) return e;
  const said = issues.slice(0, 5).map((i: { path?: unknown[]; message?: string }) => {
    const path = Array.isArray(i.path) && i.path.length ? i.path.map(String).join('.') : '(params)';
    return `${shorten(path, 80)}: ${shorten(String(i.message ?? 'invalid'), 200)}`;
  });
  // Not an McpError, whose message would start with "MCP error -32602: ": the SDK answers with
  // any error's numeric `code` and `message`.
  const message = `Invalid params for ${shorten(method, 64)}: ${said.join('; ')}${issues.length > 5 ? `; and ${issues.length - 5} more` : ''}.`;
  return Object.assign(new Error(message), { code: ErrorCode.InvalidParams });
}

const TOOLS = ['select_active_intent', 'get_active_intent', 'record_lesson', 'request_scope_expansion'] as const;
const INTENT_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
/** The largest context block a client may ask for, in bytes. */
const MAX_CONTEXT_BYTES = 1024 * 1024;
const intentId = () => z.string().regex(INTENT_ID, 'an intent id: letters, digits, "-" and "_", at most 64, e.g. "INT-001"');

/**
 * An MCP server exposing the intent tools for the repository around `cwd` (not yet connected).
 * The connection is one agent session: `select_active_intent` selects the intent for it (and
 * records the handshake that lets its writes through), and `get_active_intent` answers with it.
 */
export function createMcpServer(cwd: string): McpServer {
  const server = new McpServer({ name: MCP_SERVER_NAME, version: TOOL_VERSION });
  (server as unknown as { createToolError: (message: string) => CallToolResult }).createToolError = sdkError;
  const session: AgentSession = { agent: 'mcp', sessionId: randomUUID() };
  let selected: string | null = null;

  server.registerTool(
    'select_active_intent',
    {
      title: 'Select an intent and load its context',
      description:
        'Call this before editing code. Selects the intent for this session (writes are refused until you do) and returns ' +
        'its context as an <intent_context> block: its name, status, owned scope (the only paths commits may touch), ' +
        'constraints, acceptance criteria and lessons learned. In an intent worktree only that worktree\'s intent can be selected.',
      inputSchema: {
        intent_id: intentId().describe('intent id from .orchestration/active_intents.yaml, e.g. "INT-001"'),
        max_bytes: z.number().int().min(MIN_CONTEXT_BYTES).max(MAX_CONTEXT_BYTES).optional()
          .describe(`cap the context at this many bytes (${MIN_CONTEXT_BYTES} to ${MAX_CONTEXT_BYTES}; default ${DEFAULT_CONTEXT_BYTES})`),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    ({ intent_id, max_bytes }) => toolCall(() => {
      const repo = openRepo(cwd);
      const own = resolveIntentId(repo);
      if (own && own.id !== intent_id) {
        throw new IntentError(
          'NO_ACTIVE_INTENT',
          `${NO_ACTIVE_INTENT_MESSAGE}\nThis worktree (${repo.root}) works on ${own.id}, not ${intent_id}: select ${own.id}, or work on ${intent_id} in its own worktree (intent checkout ${intent_id}).`,
          { intent: intent_id, worktreeIntent: own.id, worktree: repo.root },
        );
      }
      const text = renderContext(cwd, intent_id, max_bytes === undefined ? {} : { maxBytes: max_bytes });
      selected = intent_id;
      recordHandshake(repo, session, intent_id);
      return text;
    }),
  );

  server.registerTool(
    'get_active_intent',
    {
      title: 'The intent of this worktree',
      description:
        'Returns {intent_id, status, name, owned_scope, worktree} of the intent this session works on: the worktree\'s own, ' +
        'or the one selected with select_active_intent; an error when there is neither.',
      inputSchema: {},
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    () => toolCall(() => JSON.stringify(activeIntentInfo(cwd, selected), null, 2)),
  );

  server.registerTool(
    'record_lesson',
    {
      title: 'Record a lesson learned',
      description:
        'Appends a lesson (what went wrong or what works, for the next agent) to the shared .orchestration/AGENT.md ' +
        'of the main worktree. Returns {appended, lesson, path}; appended is false when the same lesson is already there. ' +
        'Without intent_id the lesson is tagged with this worktree\'s (or the selected) intent.',
      inputSchema: {
        text: z.string().min(1).max(MAX_LESSON_CHARS).describe(`the lesson, at most ${MAX_LESSON_CHARS} characters; the first line becomes its title`),
        intent_id: z.union([intentId(), z.literal('general')]).optional()
          .describe('tag the lesson with this intent (in an intent worktree, only its own), or "general" for a lesson shown to every intent'),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
    },
    ({ text, intent_id }) => toolCall(() => {
      const repo = openRepo(cwd);
      const tag = intent_id === 'general' ? null : intent_id ?? resolveIntentId(repo)?.id ?? selected;
      checkLessonTag(repo, tag);
      return JSON.stringify(appendLesson(cwd, { text, intentId: tag }), null, 2);
    }),
  );

  server.registerTool(
    'request_scope_expansion',
    {
      title: 'Ask a human to widen an intent\'s scope',
      description:
        'Files a request for more paths when the work needs files outside the intent\'s owned scope (commits there are refused). ' +
        'A human decides; nothing changes until then. globs: one or more repository-relative globs such as "src/billing/**" ' +
        '(never .orchestration/ or .git/).',
      inputSchema: {
        intent_id: intentId().describe('intent id, e.g. "INT-001"'),
        globs: z.array(z.string().min(1).max(MAX_GLOB_CHARS)).min(1).max(MAX_REQUEST_GLOBS)
          .describe(`repository-relative path globs to add, 1 to ${MAX_REQUEST_GLOBS} of at most ${MAX_GLOB_CHARS} characters, e.g. ["src/billing/**"]`),
        reason: z.string().min(1).max(MAX_REASON_CHARS)
          .describe(`why the intent needs these paths, for the human who decides (at most ${MAX_REASON_CHARS} characters)`),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    ({ intent_id, globs, reason }) => toolCall(() => {
      const r = requestExpansion(cwd, { intentId: intent_id, globs, reason, requestedBy: 'mcp' });
      return JSON.stringify({ ...r, message: `Filed ${r.id}; a human approves with: intent approve ${r.id}. Until then the scope stays as it is.` }, null, 2);
    }),
  );

  guardRequests(server);
  return server;
}

/**
 * Serves the tools over stdin/stdout until the client closes the connection (stdin ends).
 * Opens the repository first, so a server started outside a repository fails at once.
 */
export async function serveStdio(cwd: string): Promise<void> {
  if (!existsSync(cwd) || !statSync(cwd).isDirectory()) {
    throw new IntentError('USAGE', `${cwd} is not a directory: pass --cwd <a worktree of the repository> (it defaults to the current directory).`, { cwd });
  }
  openRepo(cwd);
  const server = createMcpServer(cwd);
  const transport = new LineTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
    process.stdin.once('close', () => resolve());
  });
  await server.connect(transport);
  await closed;
  await server.close();
}
