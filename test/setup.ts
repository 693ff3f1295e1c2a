import { afterEach } from 'vitest';
import { AGENT_MARKER_NAMES } from '../lib/core/agent-env.js';

// Every test, and every git and hook process it starts, runs with pinned, isolated git settings:
// no system or global config, no automatic maintenance, fixed identities and dates, UTC.
const pinned: Record<string, string> = {
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'Test Author',
  GIT_AUTHOR_EMAIL: 'author@example.com',
  GIT_COMMITTER_NAME: 'Test Committer',
  GIT_COMMITTER_EMAIL: 'committer@example.com',
  GIT_AUTHOR_DATE: '2026-01-01T00:00:00Z',
  GIT_COMMITTER_DATE: '2026-01-01T00:00:00Z',
  TZ: 'UTC',
  NO_COLOR: '1',
  // No `git maintenance run --auto` after every commit, notes update and fetch: a process each
  // (about 4 ms of CPU a commit here), and the test repositories are far too small to need it.
  GIT_CONFIG_COUNT: '1',
  GIT_CONFIG_KEY_0: 'maintenance.auto',
  GIT_CONFIG_VALUE_0: 'false',
};
Object.assign(process.env, pinned);
for (const k of ['GIT_DIR', 'GIT_INDEX_FILE', 'GIT_WORK_TREE', 'INTENT_ID']) delete process.env[k];
// With NODE_EXTRA_CA_CERTS set, every node process builds its root certificate store at start-up
// (about 70 ms of CPU here, as much as the rest of node's start-up); no test makes a TLS connection,
// and the suite starts thousands of node processes (the CLI, hooks). test/integration/node-start
// sets it where it is the subject.
delete process.env.NODE_EXTRA_CA_CERTS;
delete process.env.INTENT_NODE_EXTRA_CA_CERTS;
// Tests may run inside an agent's session: its markers would make human-only commands refuse.
for (const k of Object.keys(process.env)) {
  if (AGENT_MARKER_NAMES.includes(k)) delete process.env[k];
}

// Most tests run git and node synchronously. vitest's worker answers its parent over IPC, and a
// reply that waits behind more than 60 s of synchronous tests times out ("Timeout calling
// onTaskUpdate"): give the event loop a turn after every test.
afterEach(() => new Promise<void>((resolve) => setImmediate(resolve)));
