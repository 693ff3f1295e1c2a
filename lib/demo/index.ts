/**
 * demo: `intent demo`, the whole flow in a throw-away repository, checking every hash it recorded.
 * Imports: every layer below.
 */
export { keepReport, removeDemo, runDemo } from './demo.js';
