// A scripted stand-in for the OpenAI Responses API on 127.0.0.1, for end-to-end tests with the
// real Codex CLI (a `model_providers` entry with `base_url` and `wire_api = "responses"`). Each
// conversation is picked by a marker in its first user message; its n-th answer is the script's
// n-th step. `POST /v1/responses` streams the step as server-sent events (response.created, one
// response.output_item.done per message or function call, response.completed); every other
// endpoint answers harmlessly. Every tool output Codex sends back is kept, so a test can assert
// what the model was told. (A plain ES module: the fixture capture scripts use it too.)
import { scriptBook, sendJson, serveLoopback, startEvents } from './mock-server.mjs';

/**
 * @typedef {{ text?: string, tools?: ({ name: string, args: Record<string, unknown> } | { name: string, input: string })[] }} Step
 * @typedef {{ callId: string, text: string }} ToolOutput
 * @typedef {{ url: string, results: Map<string, ToolOutput>, models: Map<string, string>, calls: Map<string, string[]>,
 *   requests: any[], close(): Promise<void> }} MockApi
 */

/** The text of a message content or a tool output (a string or a list of parts). */
function textOf(content) {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((b) => (typeof b?.text === 'string' ? b.text : '')).join('\n');
}

/** Starts the mock; `scripts` maps a marker to its steps. @returns {Promise<MockApi>} */
export async function startResponsesMock(scripts) {
  const results = new Map();
  const requests = [];
  const book = scriptBook(scripts);
  const answer = (body, res) => {
    const input = Array.isArray(body.input) ? body.input : [];
    input.forEach((item, i) => {
      if ((item.type === 'function_call_output' || item.type === 'custom_tool_call_output') && !results.has(item.call_id)) {
        const out = typeof item.output === 'string' ? item.output : textOf(item.output?.content ?? item.output);
        // What the model reads after its call: the output, and the messages Codex adds around it up
        // to the model's next turn (hook context comes as a developer message between call and output).
        const call = input.findIndex((x) => (x.type === 'function_call' || x.type === 'custom_tool_call') && x.call_id === item.call_id);
        const next = input.findIndex((x, j) => j > i && (x.type === 'function_call' || x.type === 'custom_tool_call' || x.role === 'assistant'));
        const beside = input.slice(call < 0 ? i + 1 : call + 1, next < 0 ? input.length : next)
          .filter((x) => x.type === 'message').map((x) => textOf(x.content)).join('\n');
        results.set(item.call_id, { callId: item.call_id, text: [out, beside].filter(Boolean).join('\n') });
      }
    });
    const marker = input.map((m) => (m.type === 'message' && m.role === 'user' ? book.markerIn(textOf(m.content)) : undefined)).find(Boolean);
    const done = input.filter((m) => m.type === 'function_call' || m.type === 'custom_tool_call' || (m.type === 'message' && m.role === 'assistant'));
    // One step per model turn: count the turns answered so far (a turn's calls share the step).
    const turns = new Set(done.map((m, i) => /_(\d+)(?:_\d+)?$/.exec(String(m.call_id ?? m.id ?? ''))?.[1] ?? `m${i}`)).size;
    const { n, step } = book.next(marker, turns, body.model);
    const id = `resp_${n}`;
    const tools = (step.tools ?? []).map((t, i) => ({ ...t, callId: `call_${marker ?? 'x'}_${n}_${i}` }));
    book.called(marker, tools.map((t) => t.callId));
    startEvents(res);
    const send = (data) => res.write(`event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`);
    send({ type: 'response.created', response: { id } });
    if (step.text) {
      send({ type: 'response.output_item.done', item: { type: 'message', role: 'assistant', id: `msg_${marker ?? 'x'}_${n}`, content: [{ type: 'output_text', text: step.text }] } });
    }
    for (const t of tools) {
      // A tool with `input` is a freeform (custom) tool, as Codex's apply_patch is for its newer models.
      const item = typeof t.input === 'string'
        ? { type: 'custom_tool_call', id: `ctc_${n}`, call_id: t.callId, name: t.name, input: t.input }
        : { type: 'function_call', id: `fc_${n}`, call_id: t.callId, name: t.name, arguments: JSON.stringify(t.args) };
      send({ type: 'response.output_item.done', item });
    }
    send({ type: 'response.completed', response: { id, usage: { input_tokens: 10, input_tokens_details: null, output_tokens: 10, output_tokens_details: null, total_tokens: 20 } } });
    res.end();
  };
  const server = await serveLoopback(({ method, path, body }, res) => {
    if (method === 'POST' && path.endsWith('/responses')) return answer(body, res);
    sendJson(res, path.endsWith('/models') ? '{"object":"list","data":[]}' : '{}', path.endsWith('/models') ? 200 : 404);
  }, (r) => requests.push(r));
  return { url: server.url, results, models: book.models, calls: book.calls, requests, close: server.close };
}
