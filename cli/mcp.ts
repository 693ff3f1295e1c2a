import { resolve } from 'node:path';
import { serveStdio } from '../lib/agents/index.js';

/** `intent mcp`: serves the MCP tools over stdio until the client closes the connection. */
export async function run(opts: { cwd: string }): Promise<void> {
  await serveStdio(resolve(opts.cwd));
}
