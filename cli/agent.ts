import { readPayload, runAgentHook } from '../lib/agents/index.js';

/** `intent agent <agent> <event>`: the same adapter the installed agent hooks run, reading stdin. */
export function run(opts: { agent: string; event: string }): void {
  const out = runAgentHook(opts.agent, opts.event, () => readPayload(0));
  if (out.stdout) process.stdout.write(out.stdout);
  if (out.stderr) process.stderr.write(out.stderr);
  process.exitCode = out.code;
}
