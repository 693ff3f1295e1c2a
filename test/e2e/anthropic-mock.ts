/**
 * A scripted stand-in for the Anthropic Messages API on 127.0.0.1, for end-to-end tests with the
 * real Claude Code CLI. Each conversation is picked by a marker in its first user message (the
 * prompt of `claude -p`, or an Agent tool's prompt for a subagent); its n-th answer is the script's
 * n-th step. `POST /v1/messages` streams the step as server-sent events (message_start,
 * content_block_start/delta/stop with `input_json_delta` for tool calls, message_delta,
 * message_stop); every other endpoint answers harmlessly. Every tool result Claude Code sends back
 * is kept, so a test can assert what the model was told.
 */
import type { ServerResponse } from 'node:http';
import { scriptBook, sendJson, serveLoopback, startEvents } from './mock-server.mjs';

/** One answer of the model: optional text, then tool calls. */
export interface Step {
  text?: string;
  tools?: { name: string; input: Record<string, unknown> }[];
}

/** A tool result as Claude Code sent it back to the model. */
export interface ToolResult {
  toolUseId: string;
  isError: boolean;
  text: string;
}

export interface MockApi {
  url: string;
  /** Tool results by the id of the tool call, in the order they arrived. */
  results: Map<string, ToolResult>;
  /** The model each conversation (by marker) was asked with. */
  models: Map<string, string>;
  /** Ids of the tool calls the mock made, by marker, in order. */
  calls: Map<string, string[]>;
  close(): Promise<void>;
}

type Json = Record<string, any>;

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((b: Json) => (b.type === 'text' ? b.text : b.type === 'tool_result' ? textOf(b.content) : '')).join('\n');
}

export async function startMockApi(scripts: Record<string, Step[]>): Promise<MockApi> {
  const results = new Map<string, ToolResult>();
  const book = scriptBook(scripts);
  const answer = (body: Json, res: ServerResponse) => {
    const messages: Json[] = Array.isArray(body.messages) ? body.messages : [];
    messages.forEach((m, i) => {
      if (m.role !== 'user' || !Array.isArray(m.content)) return;
      // What the model reads after its call: the result, and the text Claude Code adds beside it up
      // to the model's next turn (hook context comes as a <system-reminder> in the same message, or,
      // in a subagent's conversation, as a message with role "system").
      const beside = messages.slice(i, messages.findIndex((x, j) => j > i && x.role === 'assistant') >>> 0)
        .flatMap((x) => (Array.isArray(x.content) ? x.content : [{ type: 'text', text: x.content }]))
        .filter((b: Json) => b.type === 'text').map((b: Json) => b.text).join('\n');
      for (const b of m.content) {
        if (b.type === 'tool_result' && !results.has(b.tool_use_id)) {
          results.set(b.tool_use_id, { toolUseId: b.tool_use_id, isError: b.is_error === true, text: [textOf(b.content), beside].filter(Boolean).join('\n') });
        }
      }
    });
    const first = messages.find((m) => m.role === 'user');
    const marker = first ? book.markerIn(textOf(first.content)) : undefined;
    const { n, step } = book.next(marker, messages.filter((m) => m.role === 'assistant').length, body.model) as { n: number; step: Step };
    const id = `msg_${n}`;
    const tools = (step.tools ?? []).map((t, i) => ({ ...t, id: `toolu_${marker ?? 'x'}_${n}_${i}` }));
    book.called(marker, tools.map((t) => t.id));
    const stop = tools.length ? 'tool_use' : 'end_turn';
    const usage = { input_tokens: 10, output_tokens: 10 };
    if (!body.stream) {
      const content = [...(step.text ? [{ type: 'text', text: step.text }] : []), ...tools.map((t) => ({ type: 'tool_use', id: t.id, name: t.name, input: t.input }))];
      sendJson(res, { id, type: 'message', role: 'assistant', model: body.model, content, stop_reason: stop, stop_sequence: null, usage });
      return;
    }
    startEvents(res);
    const send = (event: string, data: Json) => res.write(`event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`);
    send('message_start', { message: { id, type: 'message', role: 'assistant', model: body.model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 1 } } });
    let index = 0;
    if (step.text) {
      send('content_block_start', { index, content_block: { type: 'text', text: '' } });
      send('content_block_delta', { index, delta: { type: 'text_delta', text: step.text } });
      send('content_block_stop', { index });
      index++;
    }
    for (const t of tools) {
      send('content_block_start', { index, content_block: { type: 'tool_use', id: t.id, name: t.name, input: {} } });
      const json = JSON.stringify(t.input);
      const half = Math.floor(json.length / 2);
      // Two deltas: Claude Code must join partial JSON, as with the real API.
      send('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: json.slice(0, half) } });
      send('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: json.slice(half) } });
      send('content_block_stop', { index });
      index++;
    }
    send('message_delta', { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 10 } });
    send('message_stop', {});
    res.end();
  };
  const server = await serveLoopback(({ method, path, body }, res) => {
    if (method === 'POST' && path === '/v1/messages') return answer(body, res);
    sendJson(res, path === '/v1/messages/count_tokens' ? '{"input_tokens":10}' : '{}');
  });
  return { url: server.url, results, models: book.models, calls: book.calls, close: server.close };
}
