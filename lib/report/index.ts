/**
 * report: `intent report`, the audit as one self-contained HTML page. Gathers the governed
 * commits of a range with their notes, `intent verify` and `intent status` on the same
 * repository, and who wrote each line now by content hash (collect, hash-credit); renders the
 * page with its data embedded as JSON and a small script that draws sortable, filterable views
 * (page, style, client). Above lifecycle/ (it reads status), below demo/.
 */
export { collectReport, type CollectOptions } from './collect.js';
export { creditByHash, type LineCredit, type RecordedRange } from './hash-credit.js';
export { embedJson, escapeHtml, renderPage } from './page.js';
export { ruleOf } from './rules.js';
export type { LineCounts, ReportCommit, ReportCommitFile, ReportData, ReportFile, ReportFinding, ReportIntent, ReportModel } from './types.js';
export { DEFAULT_REPORT_FILE, summarize, writeReport, type WrittenReport } from './write.js';
export { collectStats, statsMarkdown, statsOf, statsText, type Stats } from './stats.js';
