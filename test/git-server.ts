// A real authenticated git transport for the authority tests: test/fixtures/git-http-server.mjs
// (`git http-backend` behind Node's HTTP server on 127.0.0.1, REMOTE_USER from the URL) and bare
// repositories with templates/server/pre-receive installed.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { openRepo } from '../lib/git/repo.js';
import { pushNotes, type NotesMode } from '../lib/trace/push.js';
import { CLI, PKG_ROOT, git, registryYaml, run, writeFiles, type Run } from './helpers.js';

/** A running server; `url` gives a push URL for an identity (null: anonymous). */
export interface GitServer {
  root: string;
  port: number;
  url(who: string | null, name: string): string;
  stop(): void;
}

/** Starts the server over `root` (the folder the bare repositories live in). */
export async function startGitServer(root: string): Promise<GitServer> {
  const server: ChildProcess = spawn(process.execPath, [join(PKG_ROOT, 'test', 'fixtures', 'git-http-server.mjs'), root], {
    env: { ...process.env, INTENT_BIN: `${process.execPath} ${CLI}` }, stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    server.stdout!.once('data', (d) => resolve(Number(String(d).trim())));
    server.once('exit', (c) => reject(new Error(`git-http-server exited ${c}`)));
  });
  return {
    root,
    port,
    url: (who, name) => `http://127.0.0.1:${port}/${who === null ? 'anon' : `as/${encodeURIComponent(who)}`}/${name}`,
    stop: () => server.kill('SIGTERM'),
  };
}

/**
 * A bare repository `name` under the server's root with the server templates installed as the
 * docs say: pre-receive (the gate) and post-receive (the notes fold and carry).
 */
export function serverRepo(root: string, name: string): string {
  const bare = join(root, name);
  git(root, 'init', '-q', '--bare', '-b', 'main', bare);
  git(bare, 'config', 'http.receivepack', 'true'); // lets anonymous pushes reach the hook
  for (const hook of ['pre-receive', 'post-receive']) {
    copyFileSync(join(PKG_ROOT, 'templates', 'server', hook), join(bare, 'hooks', hook));
    chmodSync(join(bare, 'hooks', hook), 0o755);
  }
  return bare;
}

/** One tier's verdict on a push or a range: accepted, or the codes it refused with. */
export interface Verdict {
  ok: boolean;
  codes: string[];
  text: string;
}

/** The finding codes a gate's output names (`  CODE  <commit or ->`), each once, sorted. */
export function codesOf(text: string): string[] {
  return [...new Set([...text.matchAll(/^(?:remote:)?\s+([A-Z][A-Z_]+[A-Z])\s+(?:[0-9a-f]{12}|-)/gm)].map((m) => m[1]))].sort();
}

/** The verdict of a finished command (a push, intent gate). */
export function verdict(r: Run): Verdict {
  const text = r.stdout + r.stderr;
  return { ok: r.status === 0, codes: codesOf(text), text };
}

/**
 * The notes half of what `intent push` sends from the branch checked out at `cwd`, as a push
 * spec (`<notes commit>:<notes ref>`), built by the product's own code on the remote's notes:
 * for an intent branch its refs/notes/intent/<ID>, for another branch refs/notes/intents with
 * the records of the commits the push brings. [] when there is nothing to send.
 */
export function notesSpec(cwd: string, remote: string, mode: NotesMode = 'intent'): string[] {
  const repo = openRepo(cwd);
  const p = pushNotes(repo, remote, repo.branch!, git(cwd, 'rev-parse', 'HEAD').trim(), mode);
  return p ? [`${p.commit}:${p.ref}`] : [];
}

/**
 * A new repository at `dir` as a team sets one up for the authority: `files` committed on main,
 * `intent init`, then the registry (`intents`) and `.orchestration/authority.yaml` (`authority`)
 * committed by a human. Returns `dir`.
 */
export function authorityRepo(dir: string, files: Record<string, string>, intents: { id: string; scope: string[]; status?: string }[], authority: string): string {
  mkdirSync(dir, { recursive: true });
  git(dir, 'init', '-q', '-b', 'main');
  writeFiles(dir, files);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'initial');
  const r = run(process.execPath, [CLI, 'init'], dir);
  if (r.status !== 0) throw new Error(`intent init in ${dir}: ${r.stderr}`);
  writeFiles(dir, { '.orchestration/active_intents.yaml': registryYaml(intents), '.orchestration/authority.yaml': authority });
  git(dir, 'add', '.orchestration');
  git(dir, 'commit', '-q', '-m', 'register intents and agents');
  return dir;
}
