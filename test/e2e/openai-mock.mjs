/**
 * A scripted stand-in for an OpenAI-compatible Chat Completions API on 127.0.0.1, for end-to-end
 * runs of agents that talk to one (the Cline CLI with `-p openai -b <url>/v1`). Each conversation
 * is picked by a marker in its first user message; its n-th answer (n = the assistant messages so
 * far) is the script's n-th step. `POST /v1/chat/completions` answers with server-sent events
 * (`chat.completion.chunk`: the text, each tool call's name and its arguments in two pieces (a
 * string `input` is a freeform `custom` tool call), the finish reason, usage, `[DONE]`) or,
 * without `stream`, one JSON body; `GET /v1/models` lists the models asked for; every other
 * endpoint answers `{}`. Every tool result the agent sends back is
 * kept (by tool call id, with any text beside it up to the next assistant turn), so a test can
 * assert what the model was told.
 *
 * Plain JavaScript so that the capture script (scripts/cline-capture.mjs) and the tests share it.
 */
import { scriptBook, sendJson, serveLoopback, startEvents } from './mock-server.mjs';

/**
 * @typedef {{ text?: string, tools?: { name: string, input: Record<string, unknown> | string }[] }} Step
 * @typedef {{ toolCallId: string, text: string }} ToolResult
 */

function textOf(content) {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((b) => (b && b.type === 'text' ? b.text : '')).join('\n');
}

/**
 * Starts the mock. `scripts` maps a marker to the steps of its conversation.
 * @param {Record<string, Step[]>} scripts
 * @param {{ log?: (entry: { path: string, body: unknown }) => void, toolless?: 'aside' }} [options]
 */
export async function startOpenAiMock(scripts, options = {}) {
  /** @type {Map<string, ToolResult>} */
  const results = new Map();
  /** @type {Map<string, number>} */
  const requests = new Map();
  const book = scriptBook(scripts);
  const answer = (body, res) => {
    const messages = Array.isArray(body.messages) ? body.messages : [];
    messages.forEach((m, i) => {
      if (m.role !== 'tool' || typeof m.tool_call_id !== 'string' || results.has(m.tool_call_id)) return;
      const next = messages.findIndex((x, j) => j > i && x.role === 'assistant');
      const beside = messages.slice(i + 1, next < 0 ? undefined : next).filter((x) => x.role !== 'tool').map((x) => textOf(x.content)).join('\n');
      results.set(m.tool_call_id, { toolCallId: m.tool_call_id, text: [textOf(m.content), beside].filter(Boolean).join('\n') });
    });
    // The first user message with a marker (Factory droid puts a system reminder before the prompt).
    const first = messages.find((m) => m.role === 'user' && book.markerIn(textOf(m.content))) ?? messages.find((m) => m.role === 'user');
    // With `toolless: 'aside'`, a request that offers no tools (OpenCode's session title) belongs to no conversation.
    const aside = options.toolless === 'aside' && !(Array.isArray(body.tools) && body.tools.length);
    const marker = first && !aside ? book.markerIn(textOf(first.content)) : undefined;
    if (marker) requests.set(marker, (requests.get(marker) ?? 0) + 1);
    const { n, step } = book.next(marker, messages.filter((m) => m.role === 'assistant').length, body.model);
    const id = `chatcmpl-${n}`;
    const tools = (step.tools ?? []).map((t, i) => ({ ...t, id: `call_${marker ?? 'x'}_${n}_${i}` }));
    book.called(marker, tools.map((t) => t.id));
    const finish = tools.length ? 'tool_calls' : 'stop';
    const usage = { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 };
    const created = 1_780_000_000;
    if (!body.stream) {
      const message = {
        role: 'assistant',
        content: step.text ?? null,
        ...(tools.length ? { tool_calls: tools.map((t) => (typeof t.input === 'string'
          ? { id: t.id, type: 'custom', custom: { name: t.name, input: t.input } }
          : { id: t.id, type: 'function', function: { name: t.name, arguments: JSON.stringify(t.input) } })) } : {}),
      };
      sendJson(res, { id, object: 'chat.completion', created, model: body.model, choices: [{ index: 0, message, finish_reason: finish }], usage });
      return;
    }
    startEvents(res);
    const chunk = (delta, finishReason = null, extra = {}) =>
      res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: body.model, choices: [{ index: 0, delta, finish_reason: finishReason }], ...extra })}\n\n`);
    chunk({ role: 'assistant', content: '' });
    if (step.text) chunk({ content: step.text });
    tools.forEach((t, index) => {
      if (typeof t.input === 'string') {
        // A freeform (custom) tool, as GitHub Copilot CLI's apply_patch is for the GPT-5 codex models.
        const half = Math.floor(t.input.length / 2);
        chunk({ tool_calls: [{ index, id: t.id, type: 'custom', custom: { name: t.name, input: t.input.slice(0, half) } }] });
        chunk({ tool_calls: [{ index, type: 'custom', custom: { input: t.input.slice(half) } }] });
        return;
      }
      const json = JSON.stringify(t.input);
      const half = Math.floor(json.length / 2);
      // Two pieces: the agent must join partial JSON, as with the real API.
      chunk({ tool_calls: [{ index, id: t.id, type: 'function', function: { name: t.name, arguments: json.slice(0, half) } }] });
      chunk({ tool_calls: [{ index, function: { arguments: json.slice(half) } }] });
    });
    chunk({}, finish);
    res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: body.model, choices: [], usage })}\n\n`);
    res.write('data: [DONE]\n\n');
    res.end();
  };
  const server = await serveLoopback(({ method, path, body }, res) => {
    if (method === 'POST' && /\/chat\/completions$/.test(path)) return answer(body, res);
    if (/\/models$/.test(path)) {
      return sendJson(res, { object: 'list', data: [...new Set(['mock-model', ...book.models.values()])].map((m) => ({ id: m, object: 'model', created: 0, owned_by: 'mock' })) });
    }
    sendJson(res, '{}');
  }, options.log && ((r) => options.log({ path: `${r.method} ${r.path}`, body: r.body })));
  return { url: server.url, results, models: book.models, calls: book.calls, requests, close: server.close };
}
