/**
 * pre-commit's half of classifying ahead (lib/mutation/ahead.ts): read the staged paths and the
 * TS/JS patch in one git process; when the patch looks like a refactor, write the staged tree and
 * hand it to the repository's resident worker (lib/hooks/classify-ahead.ts), or start one
 * detached, so git does not wait for it. Never fails the commit: any error only means post-commit
 * classifies by itself.
 */
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { join } from 'node:path';
import { parkCaCerts } from '../core/node-start.js';
import { PKG_ROOT } from '../core/version.js';
import { stagedPaths, stagedPathsAndPatch } from '../git/diff.js';
import { gitRaw } from '../git/process.js';
import { headOid, stateDir, type Repo } from '../git/repo.js';
import { aheadDir, pendingAlive, predictsSyntax, residentSocket, writePending } from '../mutation/ahead.js';
import { hostEnv, readSettings } from '../core/settings.js';

/** Makes git diff only TS/JS files (what the prediction reads); shipped with the package. */
const COMPILED_ATTRIBUTES = join(PKG_ROOT, 'git-hooks', 'compiled.gitattributes');
/** A patch over this size is not looked at (git is stopped there): a change that big is no quick win. */
const MAX_PATCH_BYTES = 1_000_000;

/** What pre-commit stages: every path; for the prediction, HEAD's commit and the TS/JS patch. */
export interface Staged {
  paths: string[];
  parent: string | null;
  patch: string | null;
}

/**
 * The staged paths, and with them (same git process) the staged patch of the TS/JS files when
 * classifying ahead is on and there is a parent commit; otherwise the paths alone.
 */
export function stagedForCommit(repo: Repo, env: NodeJS.ProcessEnv = hostEnv()): Staged {
  const parent = readSettings(env).classifyAhead ? headOid(repo) : null;
  if (!parent) return { paths: stagedPaths(repo.root), parent, patch: null };
  return { ...stagedPathsAndPatch(repo.root, COMPILED_ATTRIBUTES, MAX_PATCH_BYTES), parent };
}

/** How long pre-commit waits for a resident worker to take a request before starting one. */
const RESIDENT_ANSWER_MS = 250;

/**
 * Hands the staged change to a worker when the TS/JS part of its patch (`stagedForCommit`) looks
 * refactor-like (only those files make post-commit load the compiler): to the repository's
 * resident worker when one answers, else to a new one started detached. Returns the worker's pid
 * or null.
 */
export async function startClassifyAhead(repo: Repo, { parent, patch }: Staged, env: NodeJS.ProcessEnv = hostEnv()): Promise<number | null> {
  if (!parent || patch === null) return null;
  try {
    if (!predictsSyntax(patch)) return null;
    const res = gitRaw(['write-tree'], { cwd: repo.root, inheritRepoEnv: true });
    const tree = res.stdout.trim();
    if (res.status !== 0 || !/^[0-9a-f]{40,64}$/.test(tree)) return null;
    return await classifyAheadOf(repo, parent, tree, env);
  } catch {
    return null;
  }
}

/**
 * Hands `parent` → `tree` (a tree git wrote from the staged index) to the repository's resident
 * worker, or to a new one started detached; returns its pid or null (post-commit then classifies
 * by itself). The hook server's read-ahead (prefetch.ts) calls it after pre-commit's answer.
 */
export async function classifyAheadOf(repo: Repo, parent: string, tree: string, env: NodeJS.ProcessEnv): Promise<number | null> {
  try {
    const dir = aheadDir(stateDir(repo));
    if (pendingAlive(dir, parent, tree)) return null;
    const resident = await askResident(dir, parent, tree);
    if (resident) return resident;
    const childEnv = parkCaCerts(env);
    for (const k of ['GIT_INDEX_FILE', 'GIT_DIR', 'GIT_WORK_TREE', 'GIT_PREFIX']) delete childEnv[k];
    const child = spawn(process.execPath, [join(PKG_ROOT, 'dist', 'bin', 'hook.js'), 'classify-ahead', parent, tree, stateDir(repo)], {
      cwd: repo.root, env: childEnv, detached: true, stdio: 'ignore',
    });
    child.on('error', () => { /* post-commit classifies by itself */ });
    child.unref();
    if (!child.pid) return null;
    writePending(dir, parent, tree, child.pid);
    return child.pid;
  } catch {
    return null;
  }
}

/**
 * Asks the resident worker (lib/hooks/classify-ahead.ts) to classify `parent` → `tree`; it writes
 * the pending marker itself before it answers. Resolves with its pid, or null when there is none,
 * it refuses, or it does not answer in time.
 */
function askResident(dir: string, parent: string, tree: string): Promise<number | null> {
  const sock = residentSocket(dir);
  if (!sock) return Promise.resolve(null);
  return new Promise((resolve) => {
    let buf = '';
    const conn = connect(sock);
    const done = (pid: number | null) => {
      clearTimeout(timer);
      conn.destroy();
      resolve(pid);
    };
    const timer = setTimeout(() => done(null), RESIDENT_ANSWER_MS);
    conn.setEncoding('utf8');
    conn.on('error', () => done(null));
    conn.on('connect', () => conn.write(`${JSON.stringify({ parent, tree })}\n`));
    conn.on('data', (d: string) => {
      buf += d;
      if (!buf.includes('\n')) return;
      try {
        const r = JSON.parse(buf.slice(0, buf.indexOf('\n'))) as { ok?: unknown; pid?: unknown };
        done(r.ok === true && Number.isInteger(r.pid) && (r.pid as number) > 0 ? (r.pid as number) : null);
      } catch {
        done(null);
      }
    });
    conn.on('end', () => done(null));
  });
}
