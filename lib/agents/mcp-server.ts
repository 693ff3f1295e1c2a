import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import { resolveIntentId } from '../intents/active.js';
import { renderContext } from '../intents/context.js';
import { IntentError } from '../core/errors.js';
import { requestExpansion } from '../intents/expansion.js';
import { appendLesson } from '../intents/lessons.js';
import { findIntent, loadRegistry } from '../intents/registry.js';
import { openRepo, orchestrationPath } from '../git/repo.js';
import { TOOL_VERSION } from '../core/version.js';

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
export function activeIntentInfo(cwd: string): { intent_id: string; status: string; name: string; owned_scope: string[]; worktree: string } {
  const repo = openRepo(cwd);
  const active = resolveIntentId(repo);
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

/** An MCP server exposing the intent tools for the repository around `cwd` (not yet connected). */
export function createMcpServer(cwd: string): McpServer {
  const server = new McpServer({ name: MCP_SERVER_NAME, version: TOOL_VERSION });

  server.registerTool(
    'select_active_intent',
    {
      title: 'Select an intent and load its context',
      description:
        'Call this before editing code. Returns the intent\'s context as an <intent_context> block: its name, status, ' +
        'owned scope (the only paths commits may touch), constraints, acceptance criteria and lessons learned.',
      inputSchema: {
        intent_id: z.string().describe('intent id from .orchestration/active_intents.yaml, e.g. "INT-001"'),
        max_bytes: z.number().int().positive().optional().describe('cap the context at this many bytes'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ intent_id, max_bytes }) => toolCall(() => renderContext(cwd, intent_id, max_bytes === undefined ? {} : { maxBytes: max_bytes })),
  );

  server.registerTool(
    'get_active_intent',
    {
      title: 'The intent of this worktree',
      description:
        'Returns {intent_id, status, name, owned_scope, worktree} of the intent the worktree this server runs in works on, ' +
        'or an error when no intent is active there.',
      inputSchema: {},
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    () => toolCall(() => JSON.stringify(activeIntentInfo(cwd), null, 2)),
  );

  server.registerTool(
    'record_lesson',
    {
      title: 'Record a lesson learned',
      description:
        'Appends a lesson (what went wrong or what works, for the next agent) to the shared .orchestration/AGENT.md ' +
        'of the main worktree. Returns {appended, lesson, path}; appended is false when the same lesson is already there.',
      inputSchema: {
        text: z.string().describe('the lesson; the first line becomes its title'),
        intent_id: z.string().optional().describe('tag the lesson with this intent; omit for a general lesson shown to every intent'),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
    },
    ({ text, intent_id }) => toolCall(() => JSON.stringify(appendLesson(cwd, { text, intentId: intent_id }), null, 2)),
  );

  server.registerTool(
    'request_scope_expansion',
    {
      title: 'Ask a human to widen an intent\'s scope',
      description:
        'Files a request for more paths when the work needs files outside the intent\'s owned scope (commits there are refused). ' +
        'A human decides; nothing changes until then. globs: one or more repository-relative globs such as "src/billing/**".',
      inputSchema: {
        intent_id: z.string().describe('intent id, e.g. "INT-001"'),
        globs: z.array(z.string()).describe('repository-relative path globs to add, at least one, e.g. ["src/billing/**"]'),
        reason: z.string().describe('why the intent needs these paths (for the human who decides; at most 2000 characters)'),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    ({ intent_id, globs, reason }) => toolCall(() => {
      const r = requestExpansion(cwd, { intentId: intent_id, globs, reason, requestedBy: 'mcp' });
      return JSON.stringify({ ...r, message: `Filed ${r.id}; a human approves with: intent approve ${r.id}. Until then the scope stays as it is.` }, null, 2);
    }),
  );

  return server;
}

/**
 * Serves the tools over stdin/stdout until the client closes the connection (stdin ends).
 * Opens the repository first, so a server started outside a repository fails at once.
 */
export async function serveStdio(cwd: string): Promise<void> {
  openRepo(cwd);
  const server = createMcpServer(cwd);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
    process.stdin.once('close', () => resolve());
  });
  await server.connect(transport);
  await closed;
  await server.close();
}
