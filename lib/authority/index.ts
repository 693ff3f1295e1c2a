/**
 * authority: the check that decides, run where the governed agent cannot write (a server's
 * pre-receive hook, CI). `intent gate` judges a push from the objects pushed, the pusher's
 * identity as the host gives it, and the policy (registry, .intentignore, authority.yaml) of the
 * protected base ref only: policy reads the base (policy), objects lists what a push brings and
 * which notes it adds or changes (objects), gate applies the rules (gate), run wires a
 * pre-receive hook's input or a CI range to it (run). See docs/threat-model.md.
 * Imports: core, git, intents, trace.
 */
export { gate, intentOfRef, type GateFinding, type GateOptions, type GateResult, type RefUpdate } from './gate.js';
export { AUTHORITY_FILE, parseAuthority, pusherFromEnv, readBasePolicy } from './policy.js';
export { parseUpdates, runGate, type GateRequest } from './run.js';
