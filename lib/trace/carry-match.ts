/**
 * The content matching behind `intent carry`: the recorded ranges of the commits a host replaced
 * (pieces: a run of lines known by its content hash, and who wrote it) are placed on the lines a
 * new commit adds, by content alone. A piece of k lines takes k consecutive added lines, not yet
 * taken, whose bytes hash to the piece's hash; longer pieces first, the same path before any
 * path. Pure: no git, no files.
 */
import { hashLines } from './hashing.js';
import { authorIndex, type AiAuthor, type LineAuthors } from './line-credit.js';

/** A recorded run of lines: its length, its content hash, and its model (null: a human's). */
export interface Piece {
  path: string;
  length: number;
  hash: string;
  author: AiAuthor | null;
}

/** One file of the new commit: its committed bytes and the line numbers the commit adds. */
export interface TargetFile {
  path: string;
  /** The path it had before (a rename), else null: pieces of that path count as the same path. */
  oldPath: string | null;
  content: Buffer;
  starts: number[];
  /** Added line numbers, 1-based, ascending. */
  added: number[];
}

interface FileState {
  file: TargetFile;
  taken: Uint8Array;
  isAdded: Uint8Array;
  authors: AiAuthor[];
  lines: LineAuthors;
  /** Per window length: hash → window starts, ascending. */
  windows: Map<number, Map<string, number[]>>;
}

/** Places pieces on one new commit's added lines; several calls share what is taken. */
export class Matcher {
  private readonly files: FileState[];

  constructor(files: TargetFile[]) {
    this.files = files.map((file) => {
      const n = file.starts.length;
      const isAdded = new Uint8Array(n + 1);
      for (const l of file.added) if (l >= 1 && l <= n) isAdded[l] = 1;
      return { file, taken: new Uint8Array(n + 1), isAdded, authors: [], lines: new Int32Array(n).fill(-1), windows: new Map() };
    });
  }

  /**
   * Places `pieces` (longest first, then in the order given); returns, per piece, whether it
   * found its lines.
   */
  place(pieces: Piece[]): boolean[] {
    const order = pieces.map((_, i) => i).sort((a, b) => pieces[b].length - pieces[a].length || a - b);
    const placed = new Array<boolean>(pieces.length).fill(false);
    for (const i of order) {
      const p = pieces[i];
      const same = this.files.filter((f) => f.file.path === p.path || f.file.oldPath === p.path);
      const other = this.files.filter((f) => !same.includes(f));
      for (const f of [...same, ...other]) {
        const start = this.free(f, p.length, p.hash);
        if (start === null) continue;
        for (let l = start; l < start + p.length; l++) {
          f.taken[l] = 1;
          if (p.author) f.lines[l - 1] = authorIndex(f.authors, p.author);
        }
        placed[i] = true;
        break;
      }
    }
    return placed;
  }

  /** Per path with model lines: the authors and, per line of the file, the author's index or -1. */
  authorship(): Map<string, { authors: AiAuthor[]; lines: LineAuthors }> {
    const out = new Map<string, { authors: AiAuthor[]; lines: LineAuthors }>();
    for (const f of this.files) if (f.authors.length) out.set(f.file.path, { authors: f.authors, lines: f.lines });
    return out;
  }

  /** Added lines: found in a recorded range (`explained`), of those credited to a model (`ai`), and the rest. */
  counts(): { added: number; explained: number; ai: number; unexplained: number } {
    let added = 0;
    let explained = 0;
    let ai = 0;
    for (const f of this.files) {
      for (const l of f.file.added) {
        added++;
        if (f.taken[l]) explained++;
        if (f.lines[l - 1] >= 0) ai++;
      }
    }
    return { added, explained, ai, unexplained: added - explained };
  }

  /** The first window of `k` added, untaken lines hashing to `hash`, or null. */
  private free(f: FileState, k: number, hash: string): number | null {
    const starts = this.windowsOf(f, k).get(hash);
    if (!starts) return null;
    for (const s of starts) {
      let ok = true;
      for (let l = s; l < s + k; l++) if (f.taken[l]) { ok = false; break; }
      if (ok) return s;
    }
    return null;
  }

  private windowsOf(f: FileState, k: number): Map<string, number[]> {
    let m = f.windows.get(k);
    if (m) return m;
    m = new Map();
    const n = f.file.starts.length;
    // Runs of consecutive added lines; a window lies inside one run.
    let run = 0;
    for (let l = 1; l <= n; l++) {
      run = f.isAdded[l] ? run + 1 : 0;
      if (run < k) continue;
      const s = l - k + 1;
      const h = hashLines(f.file.content, f.file.starts, s, l);
      const list = m.get(h);
      if (list) list.push(s);
      else m.set(h, [s]);
    }
    f.windows.set(k, m);
    return m;
  }
}
