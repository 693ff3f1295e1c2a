import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** The longest line (one JSON-RPC message) read, in bytes; the SDK's own stdio transport allows as much. */
export const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

type Id = string | number | null;

/**
 * MCP over stdio (newline-delimited JSON-RPC), as the SDK's StdioServerTransport, but a line that
 * is not JSON is answered with JSON-RPC `-32700` (Parse error) and a JSON value that is not a
 * JSON-RPC message with `-32600` (Invalid Request), as JSON-RPC 2.0 requires; the SDK's transport
 * drops both without a word, so the client waits for an answer that never comes. A line over
 * MAX_MESSAGE_BYTES is answered with `-32600` and skipped up to its end, without closing the
 * connection.
 */
export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private chunks: Buffer[] = [];
  private size = 0;
  private skipping = false;
  private closed = false;
  private readonly onData = (chunk: Buffer): void => this.read(chunk);
  private readonly onError = (e: Error): void => this.onerror?.(e);

  constructor(
    private readonly input: NodeJS.ReadableStream = process.stdin,
    private readonly output: NodeJS.WritableStream = process.stdout,
  ) {}

  async start(): Promise<void> {
    this.input.on('data', this.onData);
    this.input.on('error', this.onError);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    await new Promise<void>((resolve) => {
      if (this.output.write(JSON.stringify(message) + '\n')) resolve();
      else this.output.once('drain', resolve);
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.off('data', this.onData);
    this.input.off('error', this.onError);
    if (this.input.listenerCount('data') === 0) this.input.pause();
    this.chunks = [];
    this.onclose?.();
  }

  private read(chunk: Buffer): void {
    let rest = chunk;
    for (let nl = rest.indexOf(0x0a); nl >= 0; nl = rest.indexOf(0x0a)) {
      const head = rest.subarray(0, nl);
      rest = rest.subarray(nl + 1);
      if (this.skipping) {
        this.skipping = false;
        continue;
      }
      const tooLong = this.size + head.length > MAX_MESSAGE_BYTES;
      const line = tooLong ? '' : Buffer.concat([...this.chunks, head]).toString('utf8').replace(/\r$/, '');
      this.chunks = [];
      this.size = 0;
      if (tooLong) this.fail(null, ErrorCode.InvalidRequest, `Invalid Request: a message is longer than ${MAX_MESSAGE_BYTES} bytes; it is skipped.`);
      else this.handle(line);
    }
    if (this.skipping || rest.length === 0) return;
    if (this.size + rest.length > MAX_MESSAGE_BYTES) {
      this.chunks = [];
      this.size = 0;
      this.skipping = true;
      this.fail(null, ErrorCode.InvalidRequest, `Invalid Request: a message is longer than ${MAX_MESSAGE_BYTES} bytes; it is skipped up to its end.`);
      return;
    }
    this.chunks.push(rest);
    this.size += rest.length;
  }

  private handle(line: string): void {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (e) {
      this.fail(null, ErrorCode.ParseError, `Parse error: the line is not JSON (${(e as Error).message}). Send one JSON-RPC 2.0 message per line.`);
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (!parsed.success) {
      const id = idOf(value);
      // A notification (no id) gets no answer, even an error one.
      if (id !== undefined || !isObject(value) || !('method' in value)) {
        this.fail(id ?? null, ErrorCode.InvalidRequest, 'Invalid Request: not a JSON-RPC 2.0 message (it needs "jsonrpc": "2.0", and a string "method" with an "id" for a request).');
      }
      return;
    }
    this.onmessage?.(parsed.data);
  }

  private fail(id: Id, code: number, message: string): void {
    this.send({ jsonrpc: '2.0', id, error: { code, message } } as unknown as JSONRPCMessage).catch((e: Error) => this.onerror?.(e));
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The request's id when it has a usable one (JSON-RPC: a string or a number). */
function idOf(v: unknown): Id | undefined {
  if (!isObject(v) || !('id' in v)) return undefined;
  return typeof v.id === 'string' || typeof v.id === 'number' ? v.id : null;
}
