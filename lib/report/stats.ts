/**
 * `intent stats`: the added lines of a range's governed commits by who wrote them (AI per model and
 * per agent, human, mixed or unknown), per intent, and the scope result, for a pull request's job
 * summary or a dashboard. Summed from the report's own data (collectReport: the same records, the
 * same verify), so the numbers are the report's.
 */
import { NOTES_REF } from '../core/version.js';
import { collectReport, type CollectOptions } from './collect.js';
import type { ReportData } from './types.js';

export interface StatsLines { added: number; ai: number; human: number; mixed: number; unknown: number }
export interface Stats {
  range: string[];
  notes: string;
  commits: number;
  /** Added lines of the commits (what their diffs add); the credited ones split below. */
  lines: StatsLines;
  by_model: { model: string; lines: number }[];
  by_agent: { agent: string; lines: number }[];
  by_intent: ({ id: string; name: string; commits: number } & StatsLines)[];
  scope: { ok: boolean; violations: { commit: string; intent: string; paths: string[] }[]; findings: number };
}

const zero = (): StatsLines => ({ added: 0, ai: 0, human: 0, mixed: 0, unknown: 0 });
function add(to: StatsLines, contributors: Record<string, number>, added: number): void {
  to.added += added;
  for (const [k, n] of Object.entries(contributors)) {
    if (k.startsWith('ai:')) to.ai += n;
    else if (k === 'human') to.human += n;
    else if (k === 'mixed') to.mixed += n;
    else to.unknown += n;
  }
}
const sorted = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));

/** The stats of the report data `data`. */
export function statsOf(data: ReportData, notes: string): Stats {
  const lines = zero();
  const models = new Map<string, number>();
  const agents = new Map<string, number>();
  const intents = new Map<string, { id: string; name: string; commits: number } & StatsLines>();
  for (const c of data.commits) {
    add(lines, c.contributors, c.added);
    for (const [k, n] of Object.entries(c.contributors)) if (k.startsWith('ai:')) models.set(k.slice(3), (models.get(k.slice(3)) ?? 0) + n);
    for (const [k, n] of Object.entries(c.agents ?? {})) agents.set(k, (agents.get(k) ?? 0) + n);
    let i = intents.get(c.intent);
    if (!i) intents.set(c.intent, (i = { id: c.intent, name: c.intent_name, commits: 0, ...zero() }));
    i.commits++;
    add(i, c.contributors, c.added);
  }
  const violations = data.commits.filter((c) => c.scope_violations.length).map((c) => ({ commit: c.sha, intent: c.intent, paths: c.scope_violations }));
  return {
    range: data.range,
    notes,
    commits: data.commits.length,
    lines,
    by_model: sorted(models).map(([model, n]) => ({ model, lines: n })),
    by_agent: sorted(agents).map(([agent, n]) => ({ agent, lines: n })),
    by_intent: [...intents.values()].sort((a, b) => a.id.localeCompare(b.id)),
    scope: { ok: !violations.length && data.verify.findings === 0, violations, findings: data.verify.findings },
  };
}

/** `intent stats [range]`: the stats of the range's governed commits. */
export function collectStats(cwd: string, opts: CollectOptions = {}): Stats {
  const notes = opts.notes ?? NOTES_REF;
  return statsOf(collectReport(cwd, opts), notes);
}

const pct = (n: number, of: number) => (of ? `${((100 * n) / of).toFixed(1)} %` : '-');
/** Table cells: a pipe or a line break in a name would end the cell. */
const cell = (s: string) => s.replace(/[|\\]/g, (c) => `\\${c}`).replace(/[\r\n]+/g, ' ');

/** The stats as the markdown a job summary or a pull request comment shows. */
export function statsMarkdown(s: Stats): string {
  const credited = s.lines.ai + s.lines.human + s.lines.mixed + s.lines.unknown;
  const out = [`### intent stats: ${cell(s.range.join(' ') || 'HEAD')}`, ''];
  out.push(`${s.commits} governed commit${s.commits === 1 ? '' : 's'}, ${s.lines.added} line${s.lines.added === 1 ? '' : 's'} added.`, '');
  out.push('| written by | lines | share |', '|---|---:|---:|');
  out.push(`| AI | ${s.lines.ai} | ${pct(s.lines.ai, credited)} |`, `| human | ${s.lines.human} | ${pct(s.lines.human, credited)} |`);
  if (s.lines.mixed) out.push(`| mixed | ${s.lines.mixed} | ${pct(s.lines.mixed, credited)} |`);
  if (s.lines.unknown) out.push(`| unknown | ${s.lines.unknown} | ${pct(s.lines.unknown, credited)} |`);
  if (s.by_model.length) {
    out.push('', '| model | AI lines | share of AI |', '|---|---:|---:|');
    for (const m of s.by_model) out.push(`| ${cell(m.model)} | ${m.lines} | ${pct(m.lines, s.lines.ai)} |`);
  }
  if (s.by_agent.length) {
    out.push('', '| agent | AI lines |', '|---|---:|');
    for (const a of s.by_agent) out.push(`| ${cell(a.agent)} | ${a.lines} |`);
  }
  if (s.by_intent.length) {
    out.push('', '| intent | commits | added | AI | human |', '|---|---:|---:|---:|---:|');
    for (const i of s.by_intent) out.push(`| ${cell(i.id)}${i.name ? ` ${cell(i.name)}` : ''} | ${i.commits} | ${i.added} | ${i.ai} | ${i.human} |`);
  }
  out.push('');
  if (s.scope.ok) out.push('**Scope:** every commit stayed inside its intent\'s scope; `intent verify` found nothing.');
  else {
    out.push(`**Scope:** ${s.scope.violations.length} commit${s.scope.violations.length === 1 ? '' : 's'} outside ${s.scope.violations.length === 1 ? 'its' : 'their'} intent's scope, ${s.scope.findings} \`intent verify\` finding${s.scope.findings === 1 ? '' : 's'}.`);
    for (const v of s.scope.violations.slice(0, 20)) out.push(`- \`${v.commit.slice(0, 12)}\` ${cell(v.intent)}: ${v.paths.slice(0, 5).map((p) => `\`${cell(p)}\``).join(', ')}${v.paths.length > 5 ? ', …' : ''}`);
  }
  return out.join('\n') + '\n';
}

/** The stats as a few lines for a terminal. */
export function statsText(s: Stats): string {
  const credited = s.lines.ai + s.lines.human + s.lines.mixed + s.lines.unknown;
  const lines = [
    `${s.commits} governed commit${s.commits === 1 ? '' : 's'}, ${s.lines.added} line${s.lines.added === 1 ? '' : 's'} added: AI ${s.lines.ai} (${pct(s.lines.ai, credited)}), human ${s.lines.human} (${pct(s.lines.human, credited)})` +
      (s.lines.mixed ? `, mixed ${s.lines.mixed}` : '') + (s.lines.unknown ? `, unknown ${s.lines.unknown}` : '') + '.',
  ];
  if (s.by_model.length) lines.push(`by model: ${s.by_model.map((m) => `${m.model} ${m.lines}`).join(', ')}`);
  if (s.by_agent.length) lines.push(`by agent: ${s.by_agent.map((a) => `${a.agent} ${a.lines}`).join(', ')}`);
  for (const i of s.by_intent) lines.push(`${i.id}: ${i.commits} commit${i.commits === 1 ? '' : 's'}, ${i.added} added, AI ${i.ai}, human ${i.human}`);
  lines.push(s.scope.ok ? 'scope: every commit inside its scope; verify clean' : `scope: ${s.scope.violations.length} commit(s) outside their scope, ${s.scope.findings} verify finding(s)`);
  return lines.join('\n') + '\n';
}
