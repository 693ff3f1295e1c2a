/**
 * guardrails: limits on an intent's work beyond its scope: budgets (commits, changed lines, time)
 * counted from the notes (budget), and the circuit breaker that repeated refusals open and only a
 * human resets (breaker).
 * Imports: core, git, intents, trace.
 */
export { resetIntent } from './breaker.js';
