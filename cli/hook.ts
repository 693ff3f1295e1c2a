#!/usr/bin/env node
// Entry point of every installed git hook: small, so a commit pays only for what a hook needs.
import { readFileSync } from 'node:fs';
import { unparkCaCerts } from '../lib/core/index.js';
import { runHook } from '../lib/hooks/index.js';

const [hook, ...args] = process.argv.slice(2);
unparkCaCerts(process.env);
try {
  const out = await runHook(hook ?? '', process.cwd(), process.env, () => readFileSync(0, 'utf8'), args);
  if (out.stderr) process.stderr.write(out.stderr);
  process.exitCode = out.code;
} catch (e) {
  process.stderr.write(`intent: hook ${hook} failed: ${(e as Error)?.stack ?? String(e)}\n`);
  process.exitCode = 1;
}
