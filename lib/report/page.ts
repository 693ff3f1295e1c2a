/** The report as one self-contained HTML file: inline style and script, the data as JSON, no network. */
import { createHash } from 'node:crypto';
import { CLIENT_JS } from './client.js';
import { STYLE } from './style.js';
import type { ReportData } from './types.js';

/**
 * JSON that is safe inside `<script type="application/json">`: every `<` escaped (so no
 * `</script` or `<!--` can end or change the element) and U+2028/U+2029 escaped.
 */
export function embedJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

/** Escapes text for HTML element content and attribute values. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

function cspHash(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

/**
 * The page. Its Content-Security-Policy allows exactly its own style and script (by hash) and no
 * connection at all, so the file works from file:// and can fetch nothing.
 */
export function renderPage(data: ReportData): string {
  const csp = `default-src 'none'; script-src ${cspHash(CLIENT_JS)}; style-src ${cspHash(STYLE)}; img-src data:; base-uri 'none'; form-action 'none'`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="generator" content="intent ${escapeHtml(data.tool.version)}">
<title>intent report · ${escapeHtml(data.repository)}</title>
<link rel="icon" href="data:,">
<style>${STYLE}</style>
</head>
<body>
<div class="top"><div class="in">
<div class="brand"><span class="logo" aria-hidden="true"></span>intent report<span id="repo"></span></div>
<nav id="nav" aria-label="Views"></nav>
<div id="meta"></div>
</div></div>
<main id="main" tabindex="-1"><noscript>This report needs JavaScript to render its tables; the data is in the page as JSON.</noscript></main>
<script type="application/json" id="intent-report-data">${embedJson(data)}</script>
<script>${CLIENT_JS}</script>
</body>
</html>
`;
}
