import { IntentError } from '../core/errors.js';
import { gitRaw } from '../git/process.js';
import { gate, type GateResult, type RefUpdate } from './gate.js';
import { pusherFromEnv } from './policy.js';
import { hostEnv } from '../core/settings.js';

/** What `intent gate` was asked: a pre-receive hook's input, or one CI range. */
export interface GateRequest {
  cwd: string;
  /** Pre-receive mode: the hook's stdin (`<old> <new> <ref>` lines); every existing ref is known. */
  preReceive?: string;
  /** The protected base (default in pre-receive mode: refs/heads/main). */
  base?: string;
  /** CI mode: the ref being judged (e.g. refs/heads/intent/INT-001), its old and new tips. */
  ref?: string;
  old?: string;
  new?: string;
  /** The pusher's identity; default: from the environment the host gives (REMOTE_USER, …). */
  pusher?: string;
  /** CI mode: where the notes are (default refs/notes/intents). */
  notes?: string;
  /**
   * Pre-receive mode: the history judged before (default: the protected branches as they are).
   * The notes audit passes main as of its last run, so what reached main since is judged as the
   * push that brought it.
   */
  settled?: string[];
  /**
   * The pusher is not known (the notes audit: GitHub does not say who pushed the notes): the
   * identity rules are left out, everything else is judged.
   */
  identityUnknown?: boolean;
  env?: NodeJS.ProcessEnv;
}

/** Runs the authority check for a pre-receive hook or a CI job. */
export function runGate(req: GateRequest): GateResult & { updates: RefUpdate[]; pusherFrom: string | null } {
  const env = req.env ?? hostEnv();
  // An empty or blank --pusher is no identity (a CI variable that expanded to nothing).
  const who = req.pusher !== undefined ? (req.pusher.trim() ? { name: req.pusher.trim(), from: '--pusher' } : null) : pusherFromEnv(env);
  if (req.preReceive !== undefined) {
    const updates = parseUpdates(req.preReceive);
    const settled = req.settled?.map((r) => resolve(req.cwd, r, '--settled'));
    const known = !req.identityUnknown;
    const r = gate(req.cwd, { updates, base: req.base ?? 'refs/heads/main', pusher: known ? who?.name ?? null : null, ...(settled ? { settled } : {}), ...(known ? {} : { identity: 'unknown' as const }) });
    return { ...r, updates, pusherFrom: known ? who?.from ?? null : null };
  }
  if (!req.base || !req.ref) {
    throw new IntentError('USAGE', 'intent gate needs --pre-receive (a server hook), or --base <rev> and --ref <refname> (CI).', {});
  }
  if (!req.ref.startsWith('refs/')) throw new IntentError('USAGE', `--ref must be a full ref name such as refs/heads/intent/INT-001, got "${req.ref}".`, { ref: req.ref });
  const base = resolve(req.cwd, req.base, '--base');
  const old = /^0+$/.test(req.old ?? '') ? req.old! : resolve(req.cwd, req.old ?? base, '--old');
  const updates = [{ old, new: resolve(req.cwd, req.new ?? 'HEAD', '--new'), ref: req.ref }];
  // The ref newly reaches what neither its old tip nor the base reaches: the pull request's commits.
  const r = gate(req.cwd, { updates, base, settled: [base], pusher: who?.name ?? null, notes: req.notes });
  return { ...r, updates, pusherFrom: who?.from ?? null };
}

/** Parses a pre-receive hook's input. */
export function parseUpdates(text: string): RefUpdate[] {
  const out: RefUpdate[] = [];
  for (const line of text.split('\n')) {
    const parts = line.trim().split(' ');
    if (parts.length !== 3) continue;
    const [old, nu, ref] = parts;
    if (/^[0-9a-f]{40,64}$/.test(old) && /^[0-9a-f]{40,64}$/.test(nu)) out.push({ old, new: nu, ref });
  }
  return out;
}

function resolve(cwd: string, rev: string, flag: string): string {
  const res = gitRaw(['rev-parse', '--verify', '--quiet', `${rev}^{commit}`], { cwd });
  if (res.status !== 0) throw new IntentError('USAGE', `${flag} ${rev} is not a commit here (fetch it first: actions/checkout needs fetch-depth: 0).`, { rev });
  return res.stdout.trim();
}
