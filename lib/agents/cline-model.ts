/**
 * The model behind a Cline CLI tool call. Cline's SDK hooks (CLI 3.0.x) send no model, but Cline
 * writes each session under its data directory (`$CLINE_DATA_DIR`, else `$CLINE_DIR/data`, else
 * `~/.cline/data`): `sessions/<rootSessionId>/<rootSessionId>.json` names the session's
 * `provider` and `model`, and `<rootSessionId>.messages.json` (a subagent's:
 * `<agent_id>.messages.json`) holds every assistant message with its `modelInfo {id, provider}`
 * and its tool calls, already written when the hook runs. The message that made this very call
 * wins (the model can change within a session); the session's model is the fallback. Credit, not
 * a security boundary: what is read here is the user's own files.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { hostEnv } from '../core/settings.js';

type Json = Record<string, unknown>;

/** Session files larger than this are not parsed for the per-message model (the session's model is used). */
const MAX_MESSAGES_BYTES = 32 * 1024 * 1024;
const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

function obj(v: unknown): Json | undefined {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined;
}

function str(o: Json | undefined, key: string): string | undefined {
  const v = o?.[key];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/** Cline's data directory, as the CLI resolves it. */
export function clineDataDir(env: NodeJS.ProcessEnv = hostEnv()): string {
  const data = env.CLINE_DATA_DIR?.trim();
  if (data) return data;
  return join(env.CLINE_DIR?.trim() || join(env.HOME || homedir(), '.cline'), 'data');
}

function readJson(file: string, max: number): unknown {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return undefined;
  }
  try {
    const size = fstatSync(fd).size;
    if (size > max) return undefined;
    const buf = Buffer.alloc(size);
    let off = 0;
    while (off < size) {
      const n = readSync(fd, buf, off, size - off, off);
      if (n === 0) break;
      off += n;
    }
    return JSON.parse(buf.subarray(0, off).toString('utf8'));
  } catch {
    return undefined; // being written, or not Cline's: no model from it
  } finally {
    closeSync(fd);
  }
}

/** `provider/model` (a model id that already names its provider is kept as it is). */
export function qualifyClineModel(provider: string | undefined, model: string): string {
  if (model.includes('/') || !provider || provider === 'unknown') return model.includes('/') ? model : `cline/${model}`;
  return `${provider}/${model}`;
}

/** The model of the assistant message in `file` that made the tool call `callId`. */
function modelOfCall(file: string, callId: string): string | undefined {
  const doc = obj(readJson(file, MAX_MESSAGES_BYTES));
  const messages = Array.isArray(doc?.messages) ? doc.messages : [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = obj(messages[i]);
    if (m?.role !== 'assistant' || !Array.isArray(m.content)) continue;
    if (!m.content.some((b) => obj(b)?.type === 'tool_use' && obj(b)?.id === callId)) continue;
    const info = obj(m.modelInfo);
    const id = str(info, 'id');
    return id ? qualifyClineModel(str(info, 'provider'), id) : undefined;
  }
  return undefined;
}

/**
 * The model of a hook payload: its own `model {provider, slug}` when Cline sent a real one (the
 * extension before the SDK), else the Cline CLI's session files; undefined when neither says.
 */
export function clineModelOf(p: Json, env: NodeJS.ProcessEnv = hostEnv()): string | undefined {
  const sent = obj(p.model);
  const slug = str(sent, 'slug');
  if (slug && slug !== 'unknown') return qualifyClineModel(str(sent, 'provider'), slug);
  const root = str(obj(p.sessionContext), 'rootSessionId');
  if (!root || !SESSION_ID.test(root)) return undefined;
  const dir = join(clineDataDir(env), 'sessions', root);
  const callId = str(obj(p.tool_result) ?? obj(p.tool_call), 'id');
  if (callId) {
    const agent = str(p, 'agent_id');
    const files = [
      ...(agent && SESSION_ID.test(agent) && p.parent_agent_id ? [join(dir, `${agent}.messages.json`)] : []),
      join(dir, `${root}.messages.json`),
    ];
    for (const f of files) {
      const m = modelOfCall(f, callId);
      if (m) return m;
    }
  }
  const manifest = obj(readJson(join(dir, `${root}.json`), 1024 * 1024));
  const model = str(manifest, 'model');
  return model ? qualifyClineModel(str(manifest, 'provider'), model) : undefined;
}
