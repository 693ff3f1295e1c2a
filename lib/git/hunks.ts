import { recordPathOf } from './paths.js';

/** One hunk header of a `-U0` diff: the old and new line spans. */
export interface Hunk {
  oldStart: number;
  oldCount: number;
  newStart: number;
  newCount: number;
}

/** One changed path of a commit, from git's raw and patch output together. */
export interface FileChange {
  /** A, M, D, R, C or T, as in `git diff --raw`. */
  status: string;
  path: string;
  /** The source path of a rename or copy, else null. */
  oldPath: string | null;
  oldMode: string;
  newMode: string;
  oldOid: string;
  newOid: string;
  similarity: number | null;
  hunks: Hunk[];
}

const HUNK = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

/** Every path the changes touch: both sides of a rename or copy. */
export function touchedPaths(changes: readonly FileChange[]): string[] {
  return changes.flatMap((c) => (c.oldPath ? [c.oldPath, c.path] : [c.path]));
}

/** Parses one hunk header line, or returns null when the line is not one. */
export function parseHunkHeader(line: string): Hunk | null {
  const m = HUNK.exec(line);
  if (!m) return null;
  return {
    oldStart: Number(m[1]),
    oldCount: m[2] === undefined ? 1 : Number(m[2]),
    newStart: Number(m[3]),
    newCount: m[4] === undefined ? 1 : Number(m[4]),
  };
}

function parseRawLine(line: string): Omit<FileChange, 'hunks'> {
  const tab = line.indexOf('\t');
  const [oldMode, newMode, oldOid, newOid, st] = line.slice(1, tab).split(' ');
  const paths = line.slice(tab + 1).split('\t').map(recordPathOf);
  const status = st[0];
  const similarity = st.length > 1 ? Number(st.slice(1)) : null;
  const two = status === 'R' || status === 'C';
  return {
    status,
    path: two ? paths[1] : paths[0],
    oldPath: two ? paths[0] : null,
    oldMode,
    newMode,
    oldOid,
    newOid,
    similarity,
  };
}

function isTypeChange(c: Omit<FileChange, 'hunks'>): boolean {
  return c.status === 'T' && c.oldMode !== '000000' && c.newMode !== '000000';
}

/**
 * Parses the output of `git diff-tree -r --raw -p -U0` (raw records, a blank line, then one
 * patch per record in the same order; a type change is printed as two patches, a deletion and
 * an addition). Paths come from the raw records, so quoting in patch headers never matters.
 */
export function parseRawPatch(out: string): FileChange[] {
  const lines = out.split('\n');
  const changes: FileChange[] = [];
  let i = 0;
  while (i < lines.length && lines[i].startsWith(':')) changes.push({ ...parseRawLine(lines[i++]), hunks: [] });
  // Group the patch lines by `diff --git` header.
  const chunks: string[][] = [];
  for (; i < lines.length; i++) {
    const l = lines[i];
    if (l.startsWith('diff --git ')) chunks.push([]);
    else if (chunks.length) chunks[chunks.length - 1].push(l);
  }
  let k = 0;
  for (const change of changes) {
    const take = isTypeChange(change) ? 2 : 1;
    for (let t = 0; t < take && k < chunks.length; t++, k++) {
      let body = false;
      for (const l of chunks[k]) {
        if (!body) {
          if (l.startsWith('@@ ')) body = true;
          else continue;
        }
        if (l.startsWith('@@ ')) {
          const h = parseHunkHeader(l);
          if (h) change.hunks.push(h);
        }
      }
    }
  }
  if (k !== chunks.length) {
    throw new Error(`diff output has ${chunks.length} patches for ${changes.length} raw records; cannot pair them`);
  }
  return changes;
}
