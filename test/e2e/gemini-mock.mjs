// A scripted stand-in for the Gemini API (generativelanguage v1beta) on 127.0.0.1, for end-to-end
// tests with the real Gemini CLI (`GOOGLE_GEMINI_BASE_URL`, `GEMINI_API_KEY`). Each conversation is
// picked by a marker in its first user message; its n-th answer is the script's n-th step.
// `POST /v1beta/models/<m>:streamGenerateContent?alt=sse` streams the step as one server-sent
// event (the parts: text, functionCall); `:generateContent` answers the same without streaming;
// `:countTokens` and every other endpoint answer harmlessly. Every function response Gemini CLI
// sends back is kept, so a test can assert what the model was told. (A plain ES module: the
// fixture capture script uses it too.)
import { scriptBook, sendJson, serveLoopback, startEvents } from './mock-server.mjs';

/**
 * @typedef {{ text?: string, tools?: { name: string, args: Record<string, unknown> }[] }} Step
 * @typedef {{ name: string, text: string }} FunctionResult
 * @typedef {{ url: string, results: Map<string, FunctionResult[]>, models: Map<string, string>, requests: any[],
 *   told(marker: string, n: number): FunctionResult, close(): Promise<void> }} MockApi
 */

/** The text of a function response (Gemini CLI sends `{output}` or `{error}`, sometimes more parts). */
function responseText(r) {
  if (!r || typeof r !== 'object') return String(r ?? '');
  const v = r.output ?? r.error ?? r.llmContent ?? r.content;
  return typeof v === 'string' ? v : JSON.stringify(r);
}

/** Starts the mock; `scripts` maps a marker to its steps. @returns {Promise<MockApi>} */
export async function startGeminiMock(scripts) {
  /** Function results by marker, in the order the model got them. */
  const results = new Map();
  const requests = [];
  const book = scriptBook(scripts);
  const partsText = (c) => (Array.isArray(c?.parts) ? c.parts.map((p) => (typeof p.text === 'string' ? p.text : '')).join('\n') : '');
  const step = (body, model) => {
    const contents = Array.isArray(body.contents) ? body.contents : [];
    const marker = contents.map((c) => (c.role === 'user' ? book.markerIn(partsText(c)) : undefined)).find(Boolean);
    const turns = contents.filter((c) => c.role === 'model').length;
    // What the model was told: every function response so far, with the text beside it in the same turn.
    if (marker) {
      const told = [];
      for (const c of contents) {
        if (c.role !== 'user' || !Array.isArray(c.parts)) continue;
        const beside = c.parts.filter((p) => typeof p.text === 'string').map((p) => p.text).join('\n');
        for (const p of c.parts) {
          if (p.functionResponse) told.push({ name: p.functionResponse.name, text: [responseText(p.functionResponse.response), beside].filter(Boolean).join('\n') });
        }
      }
      results.set(marker, told);
    }
    return book.next(marker, turns, model).step;
  };
  const candidate = (s) => ({
    content: {
      role: 'model',
      parts: [...(s.text ? [{ text: s.text }] : []), ...(s.tools ?? []).map((t) => ({ functionCall: { name: t.name, args: t.args } }))],
    },
    finishReason: 'STOP',
    index: 0,
  });
  const usageMetadata = { promptTokenCount: 10, candidatesTokenCount: 10, totalTokenCount: 20 };
  const server = await serveLoopback(({ method, path, body }, res) => {
    const m = /\/models\/([^/:]+):(streamGenerateContent|generateContent|countTokens)$/.exec(path);
    if (method === 'POST' && m && m[2] !== 'countTokens') {
      const answer = { candidates: [candidate(step(body, decodeURIComponent(m[1])))], usageMetadata, modelVersion: decodeURIComponent(m[1]) };
      if (m[2] === 'generateContent') return sendJson(res, answer);
      startEvents(res);
      res.write(`data: ${JSON.stringify(answer)}\r\n\r\n`);
      return res.end();
    }
    sendJson(res, m ? '{"totalTokens":10}' : '{}');
  }, (r) => requests.push(r));
  return {
    url: server.url,
    results,
    models: book.models,
    requests,
    told(marker, n) {
      const r = results.get(marker)?.[n];
      if (!r) throw new Error(`no function result ${n} for ${marker}; have: ${JSON.stringify(results.get(marker) ?? [])}`);
      return r;
    },
    close: server.close,
  };
}
