/** The rule behind each finding code, in words, for the report's findings table. */
const RULES: Record<string, string> = {
  NOTE_MISSING: 'every governed commit carries a note on refs/notes/intents',
  NOTE_UNPARSABLE: 'a note is a summary line and one JSON record',
  NOTE_INVALID: 'the record is valid Agent Trace 0.1.0 with the intent metadata',
  NOTE_MISPLACED: 'a note describes the commit it is attached to',
  SUMMARY_MISMATCH: "the note's summary line matches its record",
  FILES_MISMATCH: "the note's files are exactly the commit's changed files",
  RANGE_MISMATCH: "the ranges cover exactly the commit's added lines",
  HASH_MISMATCH: 'each range hashes to the committed bytes',
  SCOPE_NOT_IN_REGISTRY: "the recorded scope is one the registry's history gave the intent",
  LEDGER_BROKEN: "the local ledger's hash chain is unbroken",
  SHALLOW: "a commit's parents are present so its diff can be checked",
};

/** The rule `code` breaks; a scope violation names the scope in force. */
export function ruleOf(code: string, scope?: string[]): string {
  if (code === 'SCOPE_VIOLATION') return `owned_scope: ${scope?.length ? scope.join(', ') : '(none recorded)'}`;
  return RULES[code] ?? code;
}
