// The hook server's answer into a runner's reply pipe (lib/hooks/reply.ts), on a real FIFO:
// written at once when the pipe takes it, else the rest through a stream as the reader reads.
import { execFileSync } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, readSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { answer } from '../../lib/hooks/reply.js';

let dir = '';
afterEach(() => { if (dir) rmSync(dir, { recursive: true, force: true }); });

/** A FIFO opened both ways, non-blocking (the server opens the runner's pipe so). */
function fifo(): { r: number; w: number } {
  dir = mkdtempSync(join(tmpdir(), 'intent-reply-'));
  const path = join(dir, 'p');
  execFileSync('mkfifo', [path]);
  const r = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  const w = openSync(path, constants.O_WRONLY | constants.O_NONBLOCK);
  return { r, w };
}

/** Reads `r` until the writer has closed (EOF), polling while the pipe is empty. */
async function readAll(r: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  const buf = Buffer.alloc(65536);
  for (;;) {
    let n: number;
    try {
      n = readSync(r, buf, 0, buf.length, null);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') throw e;
      await new Promise((res) => setTimeout(res, 2));
      continue;
    }
    if (n === 0) break;
    parts.push(Buffer.from(buf.subarray(0, n)));
  }
  closeSync(r);
  return Buffer.concat(parts);
}

describe('the hook server\'s answer', () => {
  it('a short answer: written whole and the pipe closed (the reader sees EOF)', async () => {
    const { r, w } = fifo();
    await answer(w, Buffer.from('0 5\nhello'));
    expect((await readAll(r)).toString()).toBe('0 5\nhello');
  });

  it('an answer larger than the pipe holds: every byte arrives, in order, as the reader reads', async () => {
    const { r, w } = fifo();
    const big = Buffer.from(Array.from({ length: 300_000 }, (_, i) => String.fromCharCode(97 + (i % 26))).join(''));
    const done = answer(w, big);
    const got = await readAll(r);
    await done;
    expect(got.length).toBe(big.length);
    expect(got.equals(big)).toBe(true);
  });

  it('a reader that has gone: no error, the descriptor closed', async () => {
    const { r, w } = fifo();
    closeSync(r);
    await expect(answer(w, Buffer.from('1 0\n'))).resolves.toBeUndefined();
    expect(() => closeSync(w)).toThrow(/EBADF/);
  });
});
