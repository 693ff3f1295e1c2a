#!/usr/bin/env node
// Entry point of the agents' hook programs (`<git-common-dir>/intent/bin/agent <agent> <event>`):
// small like the git hook entry, since it runs on every tool call of the agent.
import { readPayload, runAgentHook } from '../lib/agents/index.js';
import { unparkCaCerts } from '../lib/core/index.js';

const [agent, event] = process.argv.slice(2);
unparkCaCerts(process.env);
const out = runAgentHook(agent ?? '', event ?? '', () => readPayload(0));
// Exits once the answer is written (the callbacks run when it is flushed): `process.exit` skips
// tearing down the heap, which a natural exit does, on every tool call.
const stderr = (): void => {
  if (out.stderr) process.stderr.write(out.stderr, () => process.exit(out.code));
  else process.exit(out.code);
};
if (out.stdout) process.stdout.write(out.stdout, stderr);
else stderr();
