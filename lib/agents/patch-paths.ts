/**
 * The files an `apply_patch` payload touches (the Codex patch grammar Cline and Roo Code use:
 * `*** Begin Patch`, `*** Add File: p`, `*** Update File: p` (optionally `*** Move to: q`),
 * `*** Delete File: p`, `*** End Patch`). Paths as written, relative to the tool's directory or
 * absolute. A payload that names no file is refused: a patch we cannot read is not let through.
 */
import { IntentError } from '../core/errors.js';

export interface PatchFile {
  op: 'add' | 'update' | 'delete';
  path: string;
  /** The new path of an update that also moves the file. */
  moveTo?: string;
}

const HEADERS: [string, PatchFile['op']][] = [['*** Add File: ', 'add'], ['*** Update File: ', 'update'], ['*** Delete File: ', 'delete']];
const MOVE = '*** Move to: ';

/** Every file operation in `patch`, in order; throws INVALID_INPUT when it names none. */
export function patchFiles(patch: string): PatchFile[] {
  const out: PatchFile[] = [];
  for (const raw of String(patch).split(/\r?\n/)) {
    const line = raw.trimEnd();
    const header = HEADERS.find(([h]) => line.startsWith(h));
    if (header) {
      const path = line.slice(header[0].length).trim();
      if (path) out.push({ op: header[1], path });
      continue;
    }
    if (line.startsWith(MOVE) && out.length > 0 && out[out.length - 1].op === 'update') {
      const to = line.slice(MOVE.length).trim();
      if (to) out[out.length - 1].moveTo = to;
    }
  }
  if (out.length === 0) {
    throw new IntentError('INVALID_INPUT', 'the apply_patch payload names no file (no "*** Add File:", "*** Update File:" or "*** Delete File:" line); refusing it.', {});
  }
  return out;
}
