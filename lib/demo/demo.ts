import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { writeFile } from '../agents/adapter.js';
import { checkout } from '../lifecycle/checkout.js';
import { renderContext } from '../intents/context.js';
import { IntentError } from '../core/errors.js';
import { git, gitRaw, gitBuffer } from '../git/process.js';
import { hashLines, lineStarts, sha256Hex } from '../trace/hashing.js';
import { init } from '../lifecycle/init.js';
import { readNote } from '../git/notes.js';
import { METADATA_KEY, NOTES_REF } from '../core/version.js';
import type { TraceRecord } from '../trace/record.js';
import { verify } from '../trace/verify.js';
import { summarize, writeReport } from '../report/write.js';

const ENV = {
  GIT_AUTHOR_NAME: 'Demo Agent', GIT_AUTHOR_EMAIL: 'agent@example.com',
  GIT_COMMITTER_NAME: 'Demo Agent', GIT_COMMITTER_EMAIL: 'agent@example.com',
};

const REGISTRY = `# Two intents for the demo.
active_intents:
  - id: "INT-001"
    name: "JWT Authentication Migration"
    status: "PENDING"   # intent checkout marks it IN_PROGRESS
    owned_scope: ["src/auth/**", "!src/auth/legacy/**"]
    constraints: ["Must not use external auth providers"]
    acceptance_criteria: ["Unit tests in tests/auth/ pass"]
    related_specs: [{ type: "specification", value: "REQ-001" }]
  - id: "INT-002"
    name: "Invoice rounding fix"
    status: "PENDING"
    owned_scope: ["src/billing/**"]
`;

/** What the demo proved, for tests and `--json`. */
export interface DemoResult {
  repo: string;
  /** The page `intent report` wrote (beside the repository). */
  report: string;
  worktrees: string[];
  governedCommits: string[];
  rejected: { exitCode: number; message: string };
  hashesVerified: number;
  ledgerLines: number;
  chainIntact: boolean;
  auditLog: string;
}

/**
 * Builds a throw-away repository with two intents and runs the governed flow with real git:
 * init, checkout, an in-scope commit, an out-of-scope commit that the hook rejects, and the audit
 * trail. Every claim it prints is checked against the repository. `log` receives the narration.
 */
export async function runDemo(opts: { dir?: string; log: (line: string) => void }): Promise<DemoResult> {
  const log = opts.log;
  const base = opts.dir ?? mkdtempSync(join(tmpdir(), 'intent-demo-'));
  const repo = join(base, 'shop');
  mkdirSync(repo, { recursive: true });
  const sh = (cwd: string, args: string[]) => git(args, { cwd, env: ENV });
  const write = (root: string, path: string, text: string) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };

  log(`1. A fresh repository at ${repo}`);
  sh(repo, ['init', '-q', '-b', 'main']);
  // Keep the demo independent of the user's global git config (signing, a global hooks path).
  sh(repo, ['config', 'commit.gpgsign', 'false']);
  sh(repo, ['config', 'core.hooksPath', join(repo, '.git', 'hooks')]);
  write(repo, 'src/auth/session.ts', 'export function login(user: string) {\n  return `session:${user}`;\n}\n');
  write(repo, 'src/billing/invoice.ts', 'export const round = (x: number) => Math.round(x);\n');
  write(repo, 'README.md', '# shop\n');
  sh(repo, ['add', '-A']);
  sh(repo, ['commit', '-q', '-m', 'Initial import']);

  log('2. intent init: .orchestration/, hooks, notes config');
  const r = init(repo);
  for (const h of r.hooks) log(`   hook ${h.hook}: ${h.action}`);
  writeFileSync(join(repo, '.orchestration/active_intents.yaml'), REGISTRY);
  sh(repo, ['add', '.orchestration']);
  sh(repo, ['commit', '-q', '-m', 'Register intents INT-001 and INT-002']);

  log('3. intent checkout INT-001: its own worktree on branch intent/INT-001');
  const wt1 = await checkout(repo, 'INT-001', { env: {} }); // the demo's own throw-away repository
  log(`   ${wt1.path} (created: ${wt1.created})`);

  log('4. The agent reads its context (intent context INT-001), the handshake:');
  for (const l of renderContext(wt1.path, 'INT-001').split('\n').slice(0, 4)) log(`   | ${l}`);
  log('   ...');

  log('5. The agent writes src/auth/jwt.ts through the adapter (scope-checked, staged, credited to its model);');
  log('   its write to billing is refused before anything touches the disk; a human then edits session.ts');
  const origin = { tool: 'write_to_file', modelId: 'anthropic/claude-sonnet-4-5', conversationUrl: 'roo-code://task/demo-1' };
  const w = writeFile({
    worktree: wt1.path, path: 'src/auth/jwt.ts', expectedSha256: null, ...origin,
    content: 'import { sign } from "./sign";\n\nexport function issue(user: string) {\n  return sign({ sub: user });\n}\n',
  });
  log(`   adapter: staged ${w.path} under ${w.intent}, ${w.aiLines} lines credited to ${origin.modelId}`);
  try {
    writeFile({ worktree: wt1.path, path: 'src/billing/invoice.ts', content: 'hacked\n', ...origin });
    throw new Error('demo: the out-of-scope adapter write was not refused');
  } catch (e) {
    if (!(e instanceof IntentError)) throw e;
    log(`   adapter: ${e.code}: ${e.message.split('\n')[0]}`);
  }
  write(wt1.path, 'src/auth/session.ts', 'export function login(user: string) {\n  return `jwt:${user}`;\n}\n');
  sh(wt1.path, ['commit', '-q', '-a', '-m', 'Issue JWTs instead of sessions']);
  const c1 = sh(wt1.path, ['rev-parse', 'HEAD']).trim();
  const note1 = readNote(repo, c1) ?? '(none!)';
  log(`   committed ${c1.slice(0, 12)}; note: ${note1.split('\n')[0]}`);
  const rec1 = JSON.parse(note1.split('\n')[1] ?? '{}') as TraceRecord;
  for (const f of rec1.files ?? []) {
    for (const c of f.conversations) {
      if (!c.ranges.length) continue;
      log(`   ${f.path}: lines ${c.ranges.map((x) => `${x.start_line}-${x.end_line}`).join(', ')} by ${c.contributor.type}${c.contributor.model_id ? ` (${c.contributor.model_id})` : ''}`);
    }
  }

  log('6. The agent edits billing with a plain editor and commits: the pre-commit hook refuses');
  write(wt1.path, 'src/billing/invoice.ts', 'export const round = (x: number) => Math.floor(x);\n');
  sh(wt1.path, ['add', '-A']);
  const before = gitRaw(['rev-parse', 'HEAD'], { cwd: wt1.path }).stdout;
  const bad = gitRaw(['commit', '-q', '-m', 'Sneak in a billing change'], { cwd: wt1.path, env: ENV });
  const after = gitRaw(['rev-parse', 'HEAD'], { cwd: wt1.path }).stdout;
  if (bad.status === 0 || before !== after) throw new Error('demo: the out-of-scope commit was not rejected');
  for (const l of bad.stderr.trim().split('\n')) log(`   | ${l}`);
  sh(wt1.path, ['restore', '--staged', '--worktree', '--', 'src/billing/invoice.ts']);

  log('7. intent checkout INT-002 and an in-scope billing commit there');
  const wt2 = await checkout(repo, 'INT-002', { env: {} });
  write(wt2.path, 'src/billing/invoice.ts', 'export const round = (x: number) => Math.round(x * 100) / 100;\n');
  sh(wt2.path, ['commit', '-q', '-a', '-m', 'Round invoices to cents']);
  const c2 = sh(wt2.path, ['rev-parse', 'HEAD']).trim();

  log('8. intent verify: every note against the committed bytes, scopes, registry history, ledger chain');
  const v = verify(repo, ['--branches']);
  if (v.findings.length) throw new Error(`demo: intent verify found: ${v.findings.map((f) => f.message).join('; ')}`);
  log(`   ${v.commits} commits, ${v.governed} governed: clean`);
  let verified = 0;
  for (const c of [c1, c2]) {
    const note = readNote(repo, c);
    if (!note) throw new Error(`demo: commit ${c} has no note`);
    const rec = JSON.parse(note.split('\n')[1]) as TraceRecord;
    for (const f of rec.files) {
      const bytes = gitBuffer(['cat-file', 'blob', `${c}:${f.path}`], { cwd: repo });
      const starts = lineStarts(bytes);
      for (const conv of f.conversations) for (const rg of conv.ranges) {
        if (hashLines(bytes, starts, rg.start_line, rg.end_line) !== rg.content_hash) throw new Error(`demo: hash mismatch in ${c}:${f.path}`);
        verified++;
      }
    }
  }
  const ledger = readFileSync(join(repo, '.orchestration/agent_trace.jsonl'), 'utf8').trimEnd().split('\n');
  let prev: string | null = null;
  let chainIntact = true;
  for (const line of ledger) {
    const rec = JSON.parse(line) as TraceRecord;
    if (rec.metadata[METADATA_KEY].prev_line_sha256 !== prev) chainIntact = false;
    prev = sha256Hex(line);
  }
  log(`   ${verified} ranges hash-verified; ledger has ${ledger.length} lines, hash chain ${chainIntact ? 'intact' : 'BROKEN'}`);

  log(`9. The audit trail: git log --notes=intents (${NOTES_REF})`);
  const audit = sh(repo, ['log', '--notes=intents', '--format=%h %s%n%N', '--branches', '-n', '3']);
  for (const l of audit.trimEnd().split('\n')) log(`   ${l.length > 160 ? l.slice(0, 157) + '...' : l}`);

  log('10. A human merges both intents into main (git merge --no-ff), and intent report draws the audit as one page');
  sh(repo, ['merge', '-q', '--no-ff', '-m', 'Merge intent/INT-001', 'intent/INT-001']);
  sh(repo, ['merge', '-q', '--no-ff', '-m', 'Merge intent/INT-002', 'intent/INT-002']);
  const report = writeReport(repo, { out: join(base, 'intent-report.html') });
  log(`   ${summarize(report)}`);

  return {
    report: report.path,
    repo,
    worktrees: [wt1.path, wt2.path],
    governedCommits: [c1, c2],
    rejected: { exitCode: bad.status, message: bad.stderr },
    hashesVerified: verified,
    ledgerLines: ledger.length,
    chainIntact,
    auditLog: audit,
  };
}

/** Copies the demo's report to the OS temp dir (`intent-report-demo.html`) so that it outlives `removeDemo`; returns the copy's path. */
export function keepReport(report: string): string {
  const to = join(tmpdir(), 'intent-report-demo.html');
  copyFileSync(report, to);
  return to;
}

/** Removes a demo directory made by `runDemo` (its worktrees live beside the repository). */
export function removeDemo(base: string): void {
  rmSync(base, { recursive: true, force: true });
}
