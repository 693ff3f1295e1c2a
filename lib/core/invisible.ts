/**
 * Characters a reader cannot see but a model reads: bidirectional controls (U+202A–U+202E,
 * U+2066–U+2069, U+200E/U+200F, U+061C), zero-width characters (U+200B–U+200D, U+2060, U+FEFF),
 * Unicode tag characters (U+E0000–U+E007F, which spell hidden ASCII), every other format (Cf) and
 * control (Cc) character, line and paragraph separators, lone surrogates, noncharacters, the
 * variation selectors past U+FE0F (U+E0100–U+E01EF, used to smuggle bytes) and the invisible
 * Hangul fillers.
 */
const INVISIBLE = /[\p{Cf}\p{Cc}\p{Zl}\p{Zp}\p{Cs}\u{E0100}-\u{E01EF}\u115F\u1160\u3164\uFFA0\uFDD0-\uFDEF\uFFFE\uFFFF]/gu;

/**
 * `s` without the characters that could hide text from the human who reads it while a model still
 * sees them (see INVISIBLE), except those in `keep` (tab and line feed by default). Used on every
 * text one agent writes that is later shown to other agents (lessons, the context block,
 * scope-expansion reasons).
 */
export function stripInvisible(s: string, keep = '\t\n'): string {
  return s.replace(INVISIBLE, (c) => (keep.includes(c) ? c : ''));
}
