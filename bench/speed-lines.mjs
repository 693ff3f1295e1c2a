#!/usr/bin/env node
// The speed-only code of lib/ (issue 42): the modules that exist only to make the governed commit
// faster, by mechanism, with their line counts. Each is listed with why it is speed-only: what the
// commit would do without it (plain git, or the hook in its own node). The hook server itself is
// counted apart: it is the one mechanism issue 42 keeps. Whole files only: speed branches inside
// other modules (pre-commit.ts's served path, dispatch.ts's read-ahead calls) are not counted, so
// the total is a floor.
//
//   node bench/speed-lines.mjs [--json]
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Mechanism → its files and what a commit does without it. */
export const MECHANISMS = [
  { name: 'read-ahead and early record', files: ['lib/hooks/prefetch.ts', 'lib/hooks/record-marker.ts'], without: "post-commit reads the commit's diff and blobs after git made it, and always asks" },
  { name: 'in-process index reading', files: ['lib/git/index-file.ts', 'lib/git/snapshot.ts'], without: 'git diff --cached lists the staged paths' },
  { name: 'tree building', files: ['lib/git/tree-build.ts'], without: 'git writes the trees' },
  { name: 'loose objects and notes writer', files: ['lib/git/loose.ts', 'lib/git/notes-write.ts', 'lib/git/object-cache.ts'], without: 'git notes add (or git update-ref --stdin)' },
  { name: 'resident git processes', files: ['lib/git/resident.ts', 'lib/hooks/residents.ts'], without: 'one git process per call' },
  { name: "the server's store of what it read (passed with each hook's context)", files: ['lib/core/kept.ts'], without: 'every function reads what it needs each call' },
  { name: 'chain cache of the worktree hooks', files: ['lib/hooks/chain-cache.ts'], without: 'each worktree hook asks git for the repository\'s hooks folder' },
];
const SERVER = ['lib/hooks/server.ts'];

const lines = (f) => readFileSync(join(ROOT, f), 'utf8').split('\n').length - 1;

const rows = MECHANISMS.map((m) => ({ ...m, lines: m.files.reduce((n, f) => n + lines(f), 0) }));
const total = rows.reduce((n, r) => n + r.lines, 0);
const server = SERVER.reduce((n, f) => n + lines(f), 0);
if (process.argv.includes('--json')) {
  process.stdout.write(JSON.stringify({ mechanisms: rows, total, server, files: rows.flatMap((r) => r.files) }, null, 2) + '\n');
} else {
  for (const r of rows) process.stdout.write(`${String(r.lines).padStart(5)}  ${r.name}: ${r.files.join(', ')}\n       without it: ${r.without}\n`);
  process.stdout.write(`${String(total).padStart(5)}  speed-only, whole files (a floor; target of issue 42: at most 2,500)\n${String(server).padStart(5)}  the hook server itself (${SERVER.join(', ')}), kept\n`);
}
