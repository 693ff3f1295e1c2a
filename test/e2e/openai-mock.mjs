/**
 * A scripted stand-in for an OpenAI-compatible Chat Completions API on 127.0.0.1, for end-to-end
 * runs of agents that talk to one (the Cline CLI with `-p openai -b <url>/v1`). Each conversation
 * is picked by a marker in its first user message; its n-th answer (n = the assistant messages so
 * far) is the script's n-th step. `POST /v1/chat/completions` answers with server-sent events
 * (`chat.completion.chunk`: the text, each tool call's name and its arguments in two pieces, the
 * finish reason, usage, `[DONE]`) or, without `stream`, one JSON body; `GET /v1/models` lists the
 * models asked for; every other endpoint answers `{}`. Every tool result the agent sends back is
 * kept (by tool call id, with any text beside it up to the next assistant turn), so a test can
 * assert what the model was told.
 *
 * Plain JavaScript so that the capture script (scripts/cline-capture.mjs) and the tests share it.
 */
import { createServer } from 'node:http';

/**
 * @typedef {{ text?: string, tools?: { name: string, input: Record<string, unknown> }[] }} Step
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
 * @param {{ log?: (entry: { path: string, body: unknown }) => void }} [options]
 */
export function startOpenAiMock(scripts, options = {}) {
  /** @type {Map<string, ToolResult>} */
  const results = new Map();
  /** @type {Map<string, string>} */
  const models = new Map();
  /** @type {Map<string, string[]>} */
  const calls = new Map();
  /** @type {Map<string, number>} */
  const requests = new Map();
  let n = 0;
  const markers = Object.keys(scripts);
  for (const a of markers) for (const b of markers) {
    if (a !== b && b.includes(a)) throw new Error(`marker ${a} is part of ${b}: pick markers that do not contain each other`);
  }
  const answer = (body, res) => {
    const messages = Array.isArray(body.messages) ? body.messages : [];
    messages.forEach((m, i) => {
      if (m.role !== 'tool' || typeof m.tool_call_id !== 'string' || results.has(m.tool_call_id)) return;
      const next = messages.findIndex((x, j) => j > i && x.role === 'assistant');
      const beside = messages.slice(i + 1, next < 0 ? undefined : next).filter((x) => x.role !== 'tool').map((x) => textOf(x.content)).join('\n');
      results.set(m.tool_call_id, { toolCallId: m.tool_call_id, text: [textOf(m.content), beside].filter(Boolean).join('\n') });
    });
    const first = messages.find((m) => m.role === 'user');
    const marker = first ? markers.find((k) => textOf(first.content).includes(k)) : undefined;
    let step = { text: 'ok' };
    if (marker) {
      models.set(marker, body.model);
      requests.set(marker, (requests.get(marker) ?? 0) + 1);
      step = scripts[marker][messages.filter((m) => m.role === 'assistant').length] ?? { text: 'done' };
    }
    const id = `chatcmpl-${++n}`;
    const tools = (step.tools ?? []).map((t, i) => ({ ...t, id: `call_${marker ?? 'x'}_${n}_${i}` }));
    if (marker) calls.set(marker, [...(calls.get(marker) ?? []), ...tools.map((t) => t.id)]);
    const finish = tools.length ? 'tool_calls' : 'stop';
    const usage = { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 };
    const created = 1_780_000_000;
    if (!body.stream) {
      const message = {
        role: 'assistant',
        content: step.text ?? null,
        ...(tools.length ? { tool_calls: tools.map((t) => ({ id: t.id, type: 'function', function: { name: t.name, arguments: JSON.stringify(t.input) } })) } : {}),
      };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id, object: 'chat.completion', created, model: body.model, choices: [{ index: 0, message, finish_reason: finish }], usage }));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const chunk = (delta, finishReason = null, extra = {}) =>
      res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: body.model, choices: [{ index: 0, delta, finish_reason: finishReason }], ...extra })}\n\n`);
    chunk({ role: 'assistant', content: '' });
    if (step.text) chunk({ content: step.text });
    tools.forEach((t, index) => {
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
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '').split('?')[0];
      let body = {};
      try {
        body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : {};
      } catch { /* answered harmlessly below */ }
      options.log?.({ path: `${req.method} ${path}`, body });
      if (req.method === 'POST' && /\/chat\/completions$/.test(path)) return answer(body, res);
      res.writeHead(200, { 'content-type': 'application/json' });
      if (/\/models$/.test(path)) {
        res.end(JSON.stringify({ object: 'list', data: [...new Set(['mock-model', ...models.values()])].map((m) => ({ id: m, object: 'model', created: 0, owned_by: 'mock' })) }));
        return;
      }
      res.end('{}');
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const addr = server.address();
      if (!addr || typeof addr === 'string') return reject(new Error('the mock API has no port'));
      resolve({
        url: `http://127.0.0.1:${addr.port}`,
        results,
        models,
        calls,
        requests,
        close: () => new Promise((r) => { server.closeAllConnections?.(); server.close(() => r()); }),
      });
    });
  });
}
