#!/usr/bin/env node
// Entry point of the agents' hook programs (`<git-common-dir>/intent/bin/agent <agent> <event>`):
// small like the git hook entry, since it runs on every tool call of the agent.
import { readPayload, runAgentHook } from '../lib/agents/index.js';
import { unparkCaCerts } from '../lib/core/index.js';

const [agent, event] = process.argv.slice(2);
unparkCaCerts(process.env);
const out = runAgentHook(agent ?? '', event ?? '', () => readPayload(0));
if (out.stdout) process.stdout.write(out.stdout);
if (out.stderr) process.stderr.write(out.stderr);
process.exitCode = out.code;
