/**
 * Healing the local ledger after damage anywhere in it: a torn line (a crash or a full disk
 * mid-append, later closed off by the next append), a line removed, bytes that are not a record,
 * a record line written twice (the second copy is damage: one commit, one ledger line).
 * Lines before the first break stay byte for byte; the damaged lines go to a quarantine side file
 * (nothing is thrown away); a repair entry is written where the break was, saying what was done;
 * the intact records after it are re-chained (only their prev_line_sha256 changes).
 */
import { randomUUID } from 'node:crypto';
import { appendFileSync, closeSync, existsSync, fsyncSync, ftruncateSync, openSync, readFileSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { IntentError } from '../core/errors.js';
import { writeFileAtomic } from '../core/files.js';
import { sha256Hex } from './hashing.js';
import { METADATA_KEY } from '../core/version.js';

/** What `healLedger` did. */
export interface LedgerHeal {
  /** 1-based line number of the first break, or null when the chain was whole. */
  brokeAt: number | null;
  /** Lines moved to the quarantine file (not records, or a second copy of a record). */
  quarantined: number;
  /** Of those, second copies of a record the ledger has (the same id). */
  duplicates: number;
  /** Intact records after the break whose prev_line_sha256 was rewritten. */
  rechained: number;
  /** The repair entry written at the break (its id), or null. */
  entry: string | null;
  /** Bytes of a torn last line cut off (the only damage: nothing to re-chain, no entry). */
  tornBytes: number;
}

/** The `metadata["dev.intent"]` of a repair entry line. */
export interface LedgerRepairMeta {
  ledger_repair: {
    /** Where the break was (1-based line number in the ledger before the repair). */
    broke_at_line: number;
    /**
     * Line numbers (before the repair) of the lines moved to the quarantine file, with their
     * SHA-256; `duplicate_of`: the line of the record it repeated.
     */
    quarantined: { line: number; sha256: string; bytes: number; duplicate_of?: number }[];
    /** How many intact records after the break were re-chained. */
    rechained: number;
    /** The side file (in the repository's intent state folder) that keeps the original lines. */
    quarantine_file: string;
  };
  prev_line_sha256: string | null;
}

/** A ledger line's record metadata, or null when the line is not a ledger record. */
function metaOf(line: string): Record<string, unknown> | null {
  return recordOf(line)?.meta ?? null;
}

/** A ledger line's record id and metadata, or null when the line is not a ledger record. */
function recordOf(line: string): { id: unknown; meta: Record<string, unknown> } | null {
  try {
    const rec = JSON.parse(line) as { id?: unknown; metadata?: Record<string, unknown> } | null;
    const meta = rec && typeof rec === 'object' ? rec.metadata?.[METADATA_KEY] : null;
    return meta && typeof meta === 'object' ? { id: rec!.id, meta: meta as Record<string, unknown> } : null;
  } catch {
    return null;
  }
}

/** Throws a clear error when `path` cannot be rewritten (read-only by its mode bits, which root ignores). */
export function assertWritable(path: string, what: string): void {
  let mode: number;
  try {
    mode = statSync(path).mode;
  } catch {
    return;
  }
  if ((mode & 0o222) === 0) {
    throw new IntentError(
      'WRITE_FAILED',
      `${path} is read-only (mode ${(mode & 0o777).toString(8).padStart(4, '0')}), so ${what}. Make it writable (chmod u+w ${JSON.stringify(path)}) and run the command again; nothing was changed.`,
      { path, reason: 'read-only' },
    );
  }
}

/** Heals the ledger at `path` (the caller holds the record lock); keeps the damage in `quarantinePath`. */
export function healLedger(path: string, quarantinePath: string, now = new Date()): LedgerHeal {
  const none: LedgerHeal = { brokeAt: null, quarantined: 0, duplicates: 0, rechained: 0, entry: null, tornBytes: 0 };
  if (!existsSync(path)) return none;
  const text = readFileSync(path, 'utf8');
  if (text === '') return none;
  const lines = text.split('\n');
  const terminated = lines[lines.length - 1] === '';
  if (terminated) lines.pop();
  let prev: string | null = null;
  let k = -1;
  for (let i = 0; i < lines.length; i++) {
    const meta = metaOf(lines[i]);
    if (!meta || (meta.prev_line_sha256 ?? null) !== prev) {
      k = i;
      break;
    }
    prev = sha256Hex(lines[i]);
  }
  // A whole chain whose last record only lacks its newline: the next append closes it off.
  if (k === -1) return none;
  assertWritable(path, 'intent repair cannot heal it');
  if (k === lines.length - 1 && !terminated && !metaOf(lines[k])) {
    // Only a torn last line (a crash mid-append): cut it off, keep its bytes in the side file.
    keepAside(quarantinePath, `# intent repair ${now.toISOString()}: ${basename(path)} line ${k + 1}, a torn last line, cut off\n${lines[k]}\n`);
    const bytes = readFileSync(path);
    const start = bytes.lastIndexOf(0x0a) + 1;
    const fd = openSync(path, 'r+');
    try {
      ftruncateSync(fd, start);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    return { ...none, brokeAt: k + 1, quarantined: 1, tornBytes: bytes.length - start };
  }

  const quarantined: LedgerRepairMeta['ledger_repair']['quarantined'] = [];
  const keep: Record<string, unknown>[] = [];
  /** Record id → the 1-based line that has it (the intact lines before the break, then the kept ones). */
  const lineOf = new Map<unknown, number>();
  for (let i = 0; i < k; i++) {
    const id = recordOf(lines[i])?.id;
    if (typeof id === 'string' && !lineOf.has(id)) lineOf.set(id, i + 1);
  }
  let duplicates = 0;
  for (let i = k; i < lines.length; i++) {
    const rec = recordOf(lines[i]);
    const first = rec && typeof rec.id === 'string' ? lineOf.get(rec.id) : undefined;
    if (rec && first === undefined) {
      keep.push(JSON.parse(lines[i]) as Record<string, unknown>);
      if (typeof rec.id === 'string') lineOf.set(rec.id, i + 1);
      continue;
    }
    quarantined.push({ line: i + 1, sha256: sha256Hex(lines[i]), bytes: Buffer.byteLength(lines[i]), ...(first !== undefined ? { duplicate_of: first } : {}) });
    if (first !== undefined) duplicates++;
  }
  const id = randomUUID();
  // The side file first: the original lines from the break on, exactly as they were.
  const header = `# intent repair ${now.toISOString()} (repair entry ${id}): ${basename(path)} lines ${k + 1}-${lines.length} as they were` +
    `${terminated ? '' : ' (the last one unterminated)'}; quarantined: ${quarantined.map((q) => q.line).join(', ') || 'none'}\n`;
  keepAside(quarantinePath, header + lines.slice(k).join('\n') + '\n');

  const out = lines.slice(0, k);
  const entry: LedgerRepairMeta = {
    ledger_repair: { broke_at_line: k + 1, quarantined, rechained: keep.length, quarantine_file: basename(quarantinePath) },
    prev_line_sha256: prev,
  };
  let line = JSON.stringify({ id, timestamp: now.toISOString(), metadata: { [METADATA_KEY]: entry } });
  out.push(line);
  for (const rec of keep) {
    const meta = (rec.metadata as Record<string, Record<string, unknown>>)[METADATA_KEY];
    meta.prev_line_sha256 = sha256Hex(line);
    line = JSON.stringify(rec);
    out.push(line);
  }
  writeFileAtomic(path, out.join('\n') + '\n');
  return { brokeAt: k + 1, quarantined: quarantined.length, duplicates, rechained: keep.length, entry: id, tornBytes: 0 };
}

/** Appends `text` to the quarantine side file (created when missing), durably. */
function keepAside(file: string, text: string): void {
  const fd = openSync(file, 'a');
  try {
    appendFileSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
