/**
 * authority: the check that decides, run where the governed agent cannot write (a server's
 * pre-receive hook, CI) and, with the same model, before `intent done --merge` and in the local
 * pre-push hook. `intent gate` judges a push from the objects pushed, the pusher's identity as the
 * host gives it, and the policy (registry, .intentignore, authority.yaml) of the protected base
 * ref only: policy reads the base (policy), objects says what a push means in git's terms (each
 * ref's new commits, notes commits, a note at every fan-out path, what the server has), gate runs
 * the named phases, codes types every refusal and its next step, run wires a pre-receive hook's
 * input or a CI range to it (run). See docs/threat-model.md.
 * Imports: core, git, intents, trace.
 */
export { gate, intentOfNotesRef, intentOfRef, isNotesRef, type GateCode, type GateFinding, type GateOptions, type GateResult, type RefUpdate } from './gate.js';
export { nextStep, type AuthorityCode } from './codes.js';
export { AUTHORITY_FILE, identityKey, parseAuthority, pusherFromEnv, readBasePolicy } from './policy.js';
export { parseUpdates, runGate, type GateRequest } from './run.js';
