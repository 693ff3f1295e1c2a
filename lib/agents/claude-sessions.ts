/**
 * Claude Code sessions that worked in a worktree without intent's hooks. Claude Code reads its
 * hook settings from `<cwd>/.claude/settings.json` of the directory it was started in, so a
 * session started in a subdirectory of an intent worktree (or with hooks turned off) writes
 * ungoverned, and nothing tells it. Its transcripts (`<config dir>/projects/<cwd with every
 * non-alphanumeric character as ->/<session id>.jsonl`) name the cwd and the tools it used; a
 * session that used a writing tool there and that the hooks never saw is reported.
 */
import { closeSync, existsSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { openRepo, type Repo } from '../git/repo.js';
import { selectedIntent } from './handshake.js';
import { sessionSeen } from './hook-adapters.js';
import { hostEnv, readSettings } from '../core/settings.js';

/** A Claude Code session that wrote in the worktree without our hooks. */
export interface UnhookedSession {
  session_id: string;
  /** The directory the session was started in. */
  cwd: string;
  /** The writing tools it used (Write, Edit, NotebookEdit, Bash). */
  tools: string[];
  transcript: string;
}

const WRITING = new Set(['Write', 'Edit', 'NotebookEdit', 'Bash']);
/** Transcripts read per worktree (newest first) and bytes read per transcript. */
const MAX_TRANSCRIPTS = 50;
const MAX_BYTES = 4 * 1024 * 1024;

/** Claude Code's config directory: `$CLAUDE_CONFIG_DIR`, else `~/.claude`. */
export function claudeConfigDir(): string {
  return readSettings(hostEnv()).claudeConfigDir;
}

/**
 * Sessions that used a writing tool in the worktree at `root` (or below) and that intent's hooks
 * never saw. Costs a directory listing when there is no transcript for it (no git process).
 */
export function unhookedClaudeSessions(root: string, configDir = claudeConfigDir()): UnhookedSession[] {
  const projects = join(configDir, 'projects');
  if (!existsSync(projects)) return [];
  const prefix = root.replace(/[^A-Za-z0-9]/g, '-');
  let dirs: string[];
  try {
    dirs = readdirSync(projects).filter((d) => d === prefix || d.startsWith(prefix + '-'));
  } catch {
    return [];
  }
  const files = dirs.flatMap((d) => {
    try {
      return readdirSync(join(projects, d)).filter((f) => f.endsWith('.jsonl')).map((f) => join(projects, d, f));
    } catch {
      return [];
    }
  });
  const newest = files.map((f) => ({ f, t: mtime(f) })).sort((a, b) => b.t - a.t).slice(0, MAX_TRANSCRIPTS);
  const out: UnhookedSession[] = [];
  let repo: Repo | null = null;
  for (const { f } of newest) {
    const s = readTranscript(f);
    if (!s || !s.tools.size) continue;
    if (s.cwd !== root && !s.cwd.startsWith(root + '/')) continue;
    repo ??= openRepo(root);
    if (sessionSeen(repo, s.sessionId) || selectedIntent(repo, { agent: 'claude-code', sessionId: s.sessionId })) continue;
    out.push({ session_id: s.sessionId, cwd: s.cwd, tools: [...s.tools].sort(), transcript: f });
  }
  return out;
}

function mtime(f: string): number {
  try {
    return statSync(f).mtimeMs;
  } catch {
    return 0;
  }
}

/** The session id, the cwd and the writing tools of a transcript (its first MAX_BYTES). */
function readTranscript(file: string): { sessionId: string; cwd: string; tools: Set<string> } | null {
  let text: string;
  try {
    const fd = openSync(file, 'r');
    try {
      const buf = Buffer.alloc(Math.min(statSync(file).size, MAX_BYTES));
      const n = readSync(fd, buf, 0, buf.length, 0);
      text = buf.subarray(0, n).toString('utf8');
    } finally {
      closeSync(fd);
    }
  } catch {
    return null;
  }
  let sessionId = '';
  let cwd = '';
  const tools = new Set<string>();
  for (const line of text.split('\n')) {
    if (!line.includes('"cwd"') && !line.includes('"tool_use"')) continue;
    let e: { sessionId?: unknown; cwd?: unknown; type?: unknown; message?: { content?: unknown } };
    try {
      e = JSON.parse(line);
    } catch {
      continue;
    }
    if (!sessionId && typeof e.sessionId === 'string') sessionId = e.sessionId;
    if (!cwd && typeof e.cwd === 'string') cwd = e.cwd;
    if (e.type === 'assistant' && Array.isArray(e.message?.content)) {
      for (const b of e.message.content as { type?: unknown; name?: unknown }[]) {
        if (b?.type === 'tool_use' && typeof b.name === 'string' && WRITING.has(b.name)) tools.add(b.name);
      }
    }
  }
  return sessionId && cwd ? { sessionId, cwd, tools } : null;
}
