/** The hook server's answer to a runner (lib/hooks/server.ts). */
import { closeSync, writeSync } from 'node:fs';
import { Socket } from 'node:net';

/**
 * Writes `bytes` into the runner's reply channel `fd` (non-blocking) and closes it. Written at once
 * when the pipe takes it all (an answer is a line and some warnings: a pipe holds 64 KiB), which
 * spares a stream per hook (a tenth of a millisecond or more, twice a commit); the rest, when the
 * pipe is full, through a stream that waits for the runner to read. A runner gone: nothing to do.
 */
export function answer(fd: number, bytes: Buffer): Promise<void> {
  let at = 0;
  try {
    while (at < bytes.length) at += writeSync(fd, bytes, at);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') {
      closeQuietly(fd);
      return Promise.resolve();
    }
  }
  if (at >= bytes.length) {
    closeQuietly(fd);
    return Promise.resolve();
  }
  const reply = new Socket({ fd, readable: false, writable: true });
  reply.on('error', () => { /* the runner went away */ });
  return new Promise<void>((resolve) => {
    reply.on('close', () => resolve());
    reply.end(bytes.subarray(at), () => resolve());
  });
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch { /* closed */ }
}
