/** The report's data: embedded in the page as JSON and printed by `intent report --json`. */
import type { BudgetLeft } from '../guardrails/budget.js';
import type { Budget, IntentStatus } from '../intents/registry.js';

/** Lines of files at one revision by who wrote them (by content hash). */
export interface LineCounts {
  total: number;
  /** Lines a model wrote (a recorded `ai` range). */
  ai: number;
  /** Lines a recorded range credits to a human. */
  human: number;
  /** Recorded as `mixed` or `unknown`. */
  other: number;
  /** Lines no recorded range has the bytes of: written before governance, outside an intent, or edited since without a note. */
  unrecorded: number;
  /** AI lines per model id. */
  by_model: Record<string, number>;
}

export interface ReportIntent {
  id: string;
  name: string;
  /** The registry's status; null for an intent only the notes know. */
  status: IntentStatus | null;
  in_registry: boolean;
  scope: string[];
  branch: string | null;
  /** Governed commits of the range. */
  commits: number;
  added: number;
  deleted: number;
  first: string | null;
  last: string | null;
  lines_now: LineCounts;
  budget: Budget | null;
  budget_left: BudgetLeft | null;
  breaker: { open: boolean; since: string | null; reason: string | null; recent_rejections: number } | null;
  /** What `intent status` counts (its branch's commits, or all notes without a branch). */
  status_commits: number | null;
  status_changed_lines: number | null;
  findings: number;
}

export interface ReportCommitFile {
  path: string;
  status: string;
  old_path?: string;
  added: number;
  deleted: number;
  mutation_class: string;
  /** Added lines per contributor: `human`, `ai:<model>`, `mixed`, `unknown`. */
  contributors: Record<string, number>;
}

export interface ReportCommit {
  sha: string;
  /** Committer date, ISO 8601. */
  date: string;
  author: string;
  subject: string;
  intent: string;
  intent_name: string;
  mutation_class: string;
  added: number;
  deleted: number;
  files: ReportCommitFile[];
  contributors: Record<string, number>;
  /** Its attestation (intent attest): `ok`, the code of what is wrong, `none`; null when the repository has none at all. */
  attestation: string | null;
  /** Added lines a model wrote, per agent (the scheme of the conversation's url: claude-code, codex, roo-code, …). */
  agents: Record<string, number>;
  /** The scope in force, as the note recorded it. */
  scope: string[];
  scope_violations: string[];
  findings: number;
}

export interface ReportFile extends LineCounts {
  path: string;
  /** Present at the report's revision. */
  exists: boolean;
  binary: boolean;
  /** Lines now per intent. */
  by_intent: Record<string, number>;
  /** Intents whose governed commits touched it. */
  intents: string[];
  commits: number;
  added: number;
  deleted: number;
}

export interface ReportModel {
  model: string;
  lines_now: number;
  lines_added: number;
  commits: number;
  intents: string[];
}

export interface ReportFinding {
  code: string;
  commit: string | null;
  intent: string | null;
  path: string | null;
  message: string;
  /** The rule the finding breaks, in words (for a scope violation: the scope in force). */
  rule: string;
  /** `verify`: intent verify found it; `note`: the commit's own note recorded it. */
  source: 'verify' | 'note';
}

export interface ReportData {
  format: 1;
  generated_at: string;
  tool: { name: string; version: string };
  /** The main worktree's folder name. */
  repository: string;
  registry: string | null;
  range: string[];
  /** The revision "lines now" describes. */
  at: { rev: string; sha: string | null };
  verify: { ok: boolean; commits: number; governed: number; findings: number; ledger_lines: number | null };
  totals: { intents: number; governed_commits: number; added: number; deleted: number; files: number; lines_now: LineCounts };
  intents: ReportIntent[];
  /** Newest first. */
  commits: ReportCommit[];
  files: ReportFile[];
  models: ReportModel[];
  findings: ReportFinding[];
  /** Signed attestations of the range's commits (intent attest), or null when the repository has none. */
  attestations: { allowed_signers: string; ok: number; bad: number; none: number } | null;
  warnings: string[];
}
