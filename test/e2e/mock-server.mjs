// What the scripted model APIs of the end-to-end tests share (anthropic-mock.ts, openai-mock.mjs,
// responses-mock.mjs, gemini-mock.mjs): the script book (conversations picked by a marker, the
// n-th answer the n-th step, the model asked and the tool calls made) and an HTTP server on
// 127.0.0.1 whose requests arrive with their JSON body parsed. Each mock keeps only its wire
// format. (A plain ES module: the fixture capture scripts use the mocks too.)
import { createServer } from 'node:http';

/**
 * @template S
 * @typedef {{
 *   models: Map<string, string>,
 *   calls: Map<string, string[]>,
 *   markerIn(text: string): string | undefined,
 *   next(marker: string | undefined, turn: number, model: string): { n: number, step: S | { text: string } },
 *   called(marker: string | undefined, ids: string[]): void,
 * }} ScriptBook
 * @typedef {{ method: string, path: string, body: any }} MockRequest
 */

/**
 * The conversations of `scripts` (a marker to the steps of its conversation). A marker that is
 * part of another would pick the wrong conversation, so that is refused.
 * @template S
 * @param {Record<string, S[]>} scripts
 * @returns {ScriptBook<S>}
 */
export function scriptBook(scripts) {
  const markers = Object.keys(scripts);
  for (const a of markers) for (const b of markers) {
    if (a !== b && b.includes(a)) throw new Error(`marker ${a} is part of ${b}: pick markers that do not contain each other`);
  }
  const models = new Map();
  const calls = new Map();
  let n = 0;
  return {
    models,
    calls,
    markerIn: (text) => markers.find((k) => text.includes(k)),
    // Every answer gets the next number (ids are made of it); a conversation with no marker is told "ok".
    next(marker, turn, model) {
      n++;
      if (!marker) return { n, step: { text: 'ok' } };
      models.set(marker, model);
      return { n, step: scripts[marker][turn] ?? { text: 'done' } };
    },
    called(marker, ids) {
      if (marker) calls.set(marker, [...(calls.get(marker) ?? []), ...ids]);
    },
  };
}

/**
 * Serves `handle` on 127.0.0.1 at a free port. Each request reaches it (and `onRequest`, for a
 * mock's log) once its body is read, parsed as JSON (`{}` when empty or not JSON: such requests
 * are answered harmlessly by the mock).
 * @param {(req: MockRequest, res: import('node:http').ServerResponse) => void} handle
 * @param {(req: MockRequest) => void} [onRequest]
 * @returns {Promise<{ url: string, close(): Promise<void> }>}
 */
export function serveLoopback(handle, onRequest) {
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '').split('?')[0];
      let body = {};
      try {
        body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : {};
      } catch { /* answered harmlessly by the mock */ }
      const request = { method: req.method ?? 'GET', path, body };
      onRequest?.(request);
      handle(request, res);
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const addr = server.address();
      if (!addr || typeof addr === 'string') return reject(new Error('the mock API has no port'));
      resolve({
        url: `http://127.0.0.1:${addr.port}`,
        // Kept-alive connections of a CLI that is still running would hold close() up.
        close: () => new Promise((r) => { server.closeAllConnections?.(); server.close(() => r()); }),
      });
    });
  });
}

/** Answers `body` as JSON with `status`. */
export function sendJson(res, body, status = 200) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
}

/** Starts a server-sent event stream. */
export function startEvents(res) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
}
