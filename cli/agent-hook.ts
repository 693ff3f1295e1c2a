#!/usr/bin/env node
// Entry point of the agents' hook programs (`<git-common-dir>/intent/bin/agent <agent> <event>`):
// small like the git hook entry, since it runs on every tool call of the agent.
import { readPayload, runAgentHook } from '../lib/agents/index.js';
import { unparkCaCerts } from '../lib/core/index.js';

const [agent, event] = process.argv.slice(2);
unparkCaCerts(process.env);
const out = runAgentHook(agent ?? '', event ?? '', () => readPayload(0));
// Exits once the answer is written (each callback runs when everything written before it is
// flushed, even for an empty write): `process.exit` skips tearing down the heap, which a natural
// exit does, on every tool call.
process.stdout.write(out.stdout ?? '', () => process.stderr.write(out.stderr ?? '', () => process.exit(out.code)));
