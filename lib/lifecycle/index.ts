/**
 * lifecycle: the commands that move an intent and a repository through their life: init
 * (scaffolding, hooks, notes config), doctor (is all of it in place; --fix repairs), uninstall
 * (hooks back byte for byte), new (a human adds an intent to the registry), checkout (the intent's
 * worktree), status (every intent at a glance), done and abandon (acceptance checks, merge, safe
 * worktree removal), commit (git commit with the hooks on, for agents whose shell turns them off).
 * Imports: every layer below (core … agents).
 */
export { checkout } from './checkout.js';
export { commitWithHooks, type CommitResult } from './commit.js';
export { abandonIntent, finishIntent, type Cleanup } from './done.js';
export { doctor, type DoctorReport } from './doctor.js';
export { init } from './init.js';
export { newIntent, type NewIntentResult } from './new-intent.js';
export { formatStatus, intentStatus, intentStatusAsync } from './status.js';
export { uninstall, type UninstallResult } from './uninstall.js';
