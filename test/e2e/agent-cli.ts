// What the end-to-end tests of the agent CLIs share: reading the per-line credit of a commit's note.

/** The AI contributions to `path` in a note's record: model, line ranges and conversation URL of each. */
export function aiCredit(record: any, path: string): { model: string; lines: number[][]; url: string }[] | undefined {
  return record.files.find((f: any) => f.path === path)?.conversations.filter((c: any) => c.contributor.type === 'ai')
    .map((c: any) => ({ model: c.contributor.model_id, lines: c.ranges.map((r: any) => [r.start_line, r.end_line]), url: c.url }));
}
