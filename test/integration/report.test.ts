import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFile } from '../../lib/agents/adapter.js';
import { renderPage } from '../../lib/report/page.js';
import type { ReportData } from '../../lib/report/types.js';
import { PKG_ROOT, bypassCommit, checkoutIntent, fixture, git, governedRepo, intent, forFile, tempDir, writeFiles } from '../helpers.js';

// `intent report` against a generated repository, checked in a real headless Chromium (the system's
// package: .ci/run installs it): the numbers on the page match `intent status --json` and
// `intent verify --json`, tables sort and filter (mouse and keyboard), hostile names stay text,
// nothing is fetched and nothing is logged as an error. Screenshots of every view go to
// test-output/report/ for a human to look at.

const SHOTS = join(PKG_ROOT, 'test-output', 'report');
const CLAUDE = 'anthropic/claude-sonnet-4-5';
const GPT = 'openai/gpt-5';
const XSS_FILE = 'src/auth/<img src=x onerror="window.__xss=1">.ts';
const XSS_NAME = 'Login <script>window.__xss=2</script> & "tokens"';

/** The Chromium the system package manager installed (CHROMIUM_PATH overrides), or null. */
const CHROMIUM = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => p && existsSync(p)) ?? null;
const NO_CHROMIUM = 'No Chromium found: install the system package (apt-get install -y chromium; .ci/run does) or set CHROMIUM_PATH.';
// In CI a missing browser fails the browser tests; elsewhere they are skipped, and say so. The
// tests that need no browser run either way.
if (!CHROMIUM && !process.env.CI) process.stderr.write(`test/integration/report.test.ts: the 3 browser tests are skipped: ${NO_CHROMIUM}\n`);

const REGISTRY = `active_intents:
  - id: "INT-001"
    name: ${JSON.stringify(XSS_NAME)}
    status: "PENDING"
    owned_scope: ["src/auth/**"]
    budget: { max_commits: 10, max_changed_lines: 500 }
  - id: "INT-002"
    name: "Invoice rounding"
    status: "PENDING"
    owned_scope: ["src/billing/**"]
  - id: "INT-003"
    name: "Docs later"
    status: "PENDING"
    owned_scope: ["docs/**"]
`;

interface Fixture {
  repo: string;
  html: string;
  data: ReportData;
  status: { intents: { intent: string; commits: number; changed_lines: number }[] };
  verify: { ok: boolean; findings: { code: string; commit: string; intent: string; path?: string }[] };
  bypass: string;
}

/** Three intents: AI lines from two models, human lines, a commit that bypassed the hooks (out of scope), merged into main. */
function buildFixture(): Fixture {
  const repo = governedRepo([{ id: 'X', scope: ['x/**'] }], {
    'README.md': '# shop\n',
    'src/auth/session.ts': 'export function login(user: string) {\n  return `session:${user}`;\n}\n',
    'src/billing/invoice.ts': 'export const round = (x: number) => Math.round(x);\n',
  });
  writeFiles(repo, { '.orchestration/active_intents.yaml': REGISTRY });
  git(repo, 'commit', '-q', '-am', 'register the intents');

  const wt1 = checkoutIntent(repo, 'INT-001');
  const ai = (path: string, content: string, modelId: string) =>
    writeFile({ worktree: wt1, path, content, tool: 'write_to_file', modelId, conversationUrl: `https://chat.example/${modelId}`, expectedSha256: null });
  ai('src/auth/jwt.ts', 'import { sign } from "./sign";\n\nexport function issue(user: string) {\n  return sign({ sub: user });\n}\n', CLAUDE);
  ai(XSS_FILE, 'export const hostile = true;\n', CLAUDE);
  git(wt1, 'commit', '-q', '-m', 'Issue JWTs');
  ai('src/auth/sign.ts', 'export function sign(claims: object) {\n  return JSON.stringify(claims);\n}\n', GPT);
  writeFiles(wt1, { 'src/auth/session.ts': 'export function login(user: string) {\n  return `jwt:${user}`;\n}\n// reviewed by a human\n' });
  git(wt1, 'add', '-A');
  git(wt1, 'commit', '-q', '-m', 'Sign claims; a human adjusts login');
  // A commit that skipped every hook and touched billing, outside INT-001's scope; intent repair records it.
  writeFiles(wt1, { 'src/billing/invoice.ts': 'export const round = (x: number) => Math.floor(x);\n' });
  const bypass = bypassCommit(wt1, ['-q', '-am', 'Sneak in a billing change']);

  const wt2 = checkoutIntent(repo, 'INT-002');
  writeFiles(wt2, { 'src/billing/tax.ts': 'export const VAT = 0.2;\n' });
  git(wt2, 'add', '-A');
  git(wt2, 'commit', '-q', '-m', 'Add VAT');

  git(repo, 'merge', '-q', '--no-edit', '--no-ff', 'intent/INT-001');
  git(repo, 'merge', '-q', '--no-edit', '--no-ff', 'intent/INT-002');

  const html = join(tempDir(), 'report.html');
  const r = intent(repo, ['report', '--out', html, '--json']);
  expect(r.status, r.stderr + r.stdout).toBe(0);
  const status = JSON.parse(intent(repo, ['status', '--json']).stdout);
  const v = intent(repo, ['verify', '--json', '--', 'HEAD', '--branches']);
  return { repo, html, data: JSON.parse(r.stdout), status, verify: JSON.parse(v.stdout), bypass };
}

let fx: Fixture;
let browser: Browser;

/** A page on `url` that records console errors, page errors, dialogs and every request. */
async function open(url: string, scheme: 'light' | 'dark' = 'light'): Promise<{ page: Page; problems: string[]; requests: string[] }> {
  const ctx = await browser.newContext({ colorScheme: scheme, viewport: { width: 1360, height: 900 } });
  const page = await ctx.newPage();
  const problems: string[] = [];
  const requests: string[] = [];
  page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('dialog', (d) => { problems.push(`dialog: ${d.message()}`); void d.dismiss(); });
  page.on('request', (r) => requests.push(r.url()));
  await page.goto(url);
  await page.waitForSelector('main[data-view]');
  return { page, problems, requests };
}

async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

const cells = (page: Page, table: string, col: string) => page.locator(`[data-table="${table}"] tbody td[data-col="${col}"]`).allTextContents();
/** The intent ids of the overview's intents table, in order (each cell also holds the name). */
const intentIds = (page: Page) => page.locator('[data-table="intents"] tbody td[data-col="id"] a').allTextContents();
const num = (s: string) => Number(s.replace(/[^\d-]/g, ''));


/**
 * The page shows view `name`: a click or a history step changes the view on the page's
 * hashchange, which a loaded machine may run a moment after the click returns.
 */
async function expectView(page: { waitForFunction(fn: (v: string) => boolean, arg: string, opts: { timeout: number }): Promise<unknown>; getAttribute(sel: string, name: string): Promise<string | null> }, name: string): Promise<void> {
  await page.waitForFunction((v) => document.querySelector('main')?.getAttribute('data-view') === v, name, { timeout: 10_000 }).catch(() => {});
  expect(await page.getAttribute('main', 'data-view')).toBe(name);
}

describe('intent report', () => {
  beforeAll(() => {
    fx = forFile(() => fixture('report', buildFixture));
  }, 120_000);

  it('--json: the numbers agree with intent status --json and intent verify --json', () => {
    const { data, status, verify } = fx;
    for (const s of status.intents) {
      const i = data.intents.find((x) => x.id === s.intent)!;
      expect(i, s.intent).toBeDefined();
      expect(i.commits, s.intent).toBe(s.commits);
      expect(i.added + i.deleted, s.intent).toBe(s.changed_lines);
    }
    expect(data.intents.map((i) => i.id)).toEqual(['INT-001', 'INT-002', 'INT-003']);
    expect(verify.ok).toBe(false);
    expect(data.verify.ok).toBe(false);
    expect(data.findings.filter((f) => f.source === 'verify')).toHaveLength(verify.findings.length);
    const scope = data.findings.find((f) => f.code === 'SCOPE_VIOLATION' && f.commit === fx.bypass);
    expect(scope).toMatchObject({ intent: 'INT-001', path: 'src/billing/invoice.ts', rule: 'owned_scope: src/auth/**' });
    // Lines now, by content hash: jwt.ts is all Claude's, sign.ts all GPT's, session.ts's new line a human's.
    const file = (p: string) => data.files.find((f) => f.path === p)!;
    expect(file('src/auth/jwt.ts')).toMatchObject({ total: 5, ai: 5, human: 0, unrecorded: 0, by_model: { [CLAUDE]: 5 } });
    expect(file('src/auth/sign.ts')).toMatchObject({ total: 3, ai: 3, by_model: { [GPT]: 3 } });
    expect(file('src/auth/session.ts')).toMatchObject({ total: 4, ai: 0, intents: ['INT-001'] });
    expect(file('src/auth/session.ts').human + file('src/auth/session.ts').unrecorded).toBe(4);
    expect(file('src/auth/session.ts').human).toBeGreaterThan(0);
    expect(data.models.map((m) => m.model).sort()).toEqual([CLAUDE, GPT]);
    // The same lines as intent blame finds by hash.
    const blame = JSON.parse(intent(fx.repo, ['blame', 'src/auth/sign.ts', '--json']).stdout);
    expect(blame.lines.filter((l: { contributor: string; source: string }) => l.contributor === 'ai' && l.source === 'hash')).toHaveLength(3);
  });

  it('the command: path on stdout, summary on stderr; a range narrows the commits; a bad --at is a usage error', () => {
    const r = intent(fx.repo, ['report', '--out', '../cli.html']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe(join(fx.repo, '..', 'cli.html') + '\n');
    expect(r.stderr).toMatch(/^intent report: 3 intents, 4 governed commits, \d+ files; AI wrote [\d.]+% of the \d+ lines now in them; 1 finding\.\n$/);
    expect(readFileSync(join(fx.repo, '..', 'cli.html'), 'utf8').startsWith('<!doctype html>')).toBe(true);
    const narrow = JSON.parse(intent(fx.repo, ['report', 'intent/INT-002', '--out', '../narrow.html', '--json']).stdout);
    expect(narrow.commits.map((c: { intent: string }) => c.intent)).toEqual(['INT-002']);
    expect(narrow.range).toEqual(['intent/INT-002']);
    const bad = intent(fx.repo, ['report', '--at', 'no-such-rev', '--out', '../bad.html']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--at no-such-rev is not a commit');
    const help = intent(fx.repo, ['report', '--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('Examples:');
  });

  it('the page escapes hostile names and carries its data safely', () => {
    const html = readFileSync(fx.html, 'utf8');
    expect(html).not.toContain('<script>window.__xss');
    expect(html).not.toContain('<img src=x');
    expect(html).toContain("Content-Security-Policy\" content=\"default-src 'none'");
    const data = JSON.parse(html.match(/<script type="application\/json" id="intent-report-data">([^<]*)<\/script>/)![1]);
    expect(data.intents[0].name).toBe(XSS_NAME);
    // embedJson: `</script` and U+2028 cannot end the element or break the script.
    const name = 'a</script><script>x()</script><!--\u2028b';
    const tricky = renderPage({ ...fx.data, repository: name });
    expect(tricky).not.toContain('</script><script>x()');
    expect(tricky.match(/<\/script>/g)).toHaveLength(2);
    expect(tricky).toContain('<title>intent report · a&lt;/script&gt;&lt;script&gt;x()&lt;/script&gt;&lt;!--');
    const embedded = tricky.match(/<script type="application\/json" id="intent-report-data">([^<]*)<\/script>/)![1];
    expect(embedded).not.toContain('\u2028');
    expect(JSON.parse(embedded).repository).toBe(name);
  });

  it('the default page goes to the git dir, outside the work tree; an empty range and unmerged work say what to do', () => {
    // A copy of its own: this test commits, and the others read the fixture as built.
    const own = fixture('report', buildFixture);
    const r = intent(own.repo, ['report']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe(join(own.repo, '.git', 'intent', 'report.html') + '\n');
    expect(readFileSync(join(own.repo, '.git', 'intent', 'report.html'), 'utf8').startsWith('<!doctype html>')).toBe(true);
    expect(git(own.repo, 'status', '--porcelain', '--untracked-files=all')).not.toContain('report');
    // Before the merge: INT-003's work is only on its branch.
    const wt = checkoutIntent(own.repo, 'INT-003');
    writeFiles(wt, { 'docs/guide.md': '# guide\n' });
    git(wt, 'add', '-A');
    git(wt, 'commit', '-q', '-m', 'Guide');
    const before = intent(own.repo, ['report', 'main..intent/INT-003', '--json']);
    expect(JSON.parse(before.stdout).warnings).toEqual([
      '1 of the 1 files the notes name are not at HEAD (work not merged yet, or deleted since), so their lines now are not counted: intent report --at intent/INT-003 counts them on INT-003\'s branch.',
    ]);
    const atBranch = JSON.parse(intent(own.repo, ['report', 'main..intent/INT-003', '--at', 'intent/INT-003', '--json']).stdout);
    expect(atBranch.warnings).toEqual([]);
    expect(atBranch.totals.lines_now.total).toBe(1);
    const none = intent(own.repo, ['report', 'main~1..main~1', '--out', '../none.html']);
    expect(none.status, none.stderr).toBe(0);
    expect(none.stderr).toContain('intent report: no governed commits in main~1..main~1: commit in an intent\'s worktree first (intent checkout <ID>), or name other revisions (intent report --all).');
  });

  it('--out never clobbers what is not a regular file: a device, a FIFO, a directory, a link; a missing folder is named', () => {
    const dir = tempDir('intent-report-out-');
    const fifo = join(dir, 'fifo');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    mkdirSync(join(dir, 'folder'));
    writeFileSync(join(dir, 'target.html'), 'kept\n');
    symlinkSync(join(dir, 'target.html'), join(dir, 'link.html'));
    const cases: [string, string][] = [[fifo, 'is a FIFO'], [join(dir, 'folder'), 'is a directory'], [join(dir, 'link.html'), 'is a symbolic link'],
      [join(dir, 'no', 'such', 'x.html'), 'does not exist']];
    // A device node like /dev/null (made in the temp folder, so a regression clobbers nothing of the machine's); only root may make one.
    const device = join(dir, 'null');
    if (spawnSync('mknod', [device, 'c', '1', '3']).status === 0) cases.push([device, 'is a device']);
    for (const [out, says] of cases) {
      const before = lstatSync(out, { throwIfNoEntry: false });
      const r = intent(fx.repo, ['report', '--out', out, '--json']);
      expect(r.status, out).toBe(1);
      const err = JSON.parse(r.stdout).error;
      expect(err.code, out).toBe('WRITE_FAILED');
      expect(err.message, out).toContain(says);
      expect(err.message, out).toContain('Nothing was written.');
      const after = lstatSync(out, { throwIfNoEntry: false });
      expect(after?.mode, out).toBe(before?.mode);
      expect(after?.ino, out).toBe(before?.ino);
    }
    expect(readFileSync(join(dir, 'target.html'), 'utf8')).toBe('kept\n');
    expect(readdirSync(dir).sort()).toEqual([...(cases.length === 5 ? ['null'] : []), 'fifo', 'folder', 'link.html', 'target.html'].sort());
    // A regular file is replaced, a new one created.
    expect(intent(fx.repo, ['report', '--out', join(dir, 'target.html')]).status).toBe(0);
    expect(readFileSync(join(dir, 'target.html'), 'utf8').startsWith('<!doctype html>')).toBe(true);
  });
});

describe.skipIf(!CHROMIUM && !process.env.CI)('intent report in Chromium', () => {
  beforeAll(async () => {
    fx ??= forFile(() => fixture('report', buildFixture)); // the page was written when the fixture was built
    if (!CHROMIUM) throw new Error(NO_CHROMIUM);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
  });

  it('overview in Chromium: numbers, verdict, sorting and filtering by mouse and keyboard, no errors, no network', async () => {
    const url = pathToFileURL(fx.html).href;
    const { page, problems, requests } = await open(url);
    await expectView(page, 'overview');
    // Findings first and red.
    const verdict = page.locator('[data-verdict]');
    expect(await verdict.getAttribute('data-verdict')).toBe('findings');
    expect(await verdict.textContent()).toContain(`${fx.data.findings.length} finding`);
    const first = await page.locator('main > section.tbl').first().getAttribute('data-table');
    expect(first).toBe('findings');
    expect(await page.locator('[data-table="findings"] tbody tr').count()).toBe(fx.data.findings.length);
    expect(await page.locator('[data-table="findings"] tbody td[data-col="code"]').allTextContents()).toContain('SCOPE_VIOLATION');

    // The intents table against intent status --json.
    const ids = await intentIds(page);
    expect(ids).toEqual(['INT-001', 'INT-002', 'INT-003']);
    const commits = (await cells(page, 'intents', 'commits')).map(num);
    const added = (await cells(page, 'intents', 'added')).map(num);
    const deleted = (await cells(page, 'intents', 'deleted')).map(num);
    for (const s of fx.status.intents) {
      const k = ids.indexOf(s.intent);
      expect(commits[k], s.intent).toBe(s.commits);
      expect(added[k] + deleted[k], s.intent).toBe(s.changed_lines);
    }
    expect(await page.locator('[data-table="intents"] tbody tr').first().locator('td[data-col="id"] .name').textContent()).toBe(XSS_NAME);

    // Sort by commits with a click (numbers sort descending first), then with the keyboard.
    const header = page.locator('[data-table="intents"] th[data-col="commits"] button');
    await header.click();
    expect(await page.getAttribute('[data-table="intents"] th[data-col="commits"]', 'aria-sort')).toBe('descending');
    const desc = (await cells(page, 'intents', 'commits')).map(num);
    expect(desc).toEqual([...desc].sort((a, b) => b - a));
    expect((await intentIds(page))[0]).toBe('INT-001');
    await header.focus();
    await page.keyboard.press('Enter');
    expect(await page.getAttribute('[data-table="intents"] th[data-col="commits"]', 'aria-sort')).toBe('ascending');
    const asc = (await cells(page, 'intents', 'commits')).map(num);
    expect(asc).toEqual([...asc].sort((a, b) => a - b));

    // Filter.
    await page.fill('[data-filter="intents"]', 'billing');
    expect(await intentIds(page)).toEqual(['INT-002']);
    expect(await page.locator('[data-table="intents"] .count').textContent()).toBe('1 of 3 intents');
    await page.fill('[data-filter="intents"]', 'no such thing');
    expect(await page.locator('[data-table="intents"] tbody tr.none').count()).toBe(1);
    await page.fill('[data-filter="intents"]', '');
    await shot(page, 'overview');

    const { page: dark, problems: darkProblems } = await open(url, 'dark');
    const bg = (p: Page) => p.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
    expect(await bg(dark)).not.toBe(await bg(page));
    await shot(dark, 'overview-dark');

    expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
    expect(await page.locator('main img, main script').count()).toBe(0);
    expect([...problems, ...darkProblems]).toEqual([]);
    expect(requests.filter((u) => u !== url)).toEqual([]);
  });

  it('every view in Chromium, reached by its links: intent timeline, commits, commit, files, file, findings', async () => {
    const url = pathToFileURL(fx.html).href;
    const { page, problems, requests } = await open(url);
    const int1 = fx.data.intents.find((i) => i.id === 'INT-001')!;

    await page.locator('[data-table="intents"] td[data-col="id"] a', { hasText: 'INT-001' }).click();
    await expectView(page, 'intent');
    expect(await page.locator('[data-table="timeline"] tbody tr').count()).toBe(int1.commits);
    expect(await page.locator('h2').textContent()).toContain(XSS_NAME);
    expect(await page.locator('[data-table="findings"] tbody tr').count()).toBe(fx.data.findings.filter((f) => f.intent === 'INT-001').length);
    const classes = await cells(page, 'timeline', 'class');
    expect(classes.every((c) => c === 'INTENT_EVOLUTION' || c === 'AST_REFACTOR')).toBe(true);
    expect((await cells(page, 'timeline', 'contributors')).join(' ')).toContain(GPT);
    await shot(page, 'intent');

    await page.click('nav a[data-nav="commits"]');
    await expectView(page, 'commits');
    expect(await page.locator('[data-table="commits"] tbody tr').count()).toBe(fx.data.commits.length);
    await page.locator(`[data-table="commits"] tr[data-key="${fx.bypass}"] td[data-col="sha"] a`).click();
    await expectView(page, 'commit');
    expect(await page.locator('.facts').textContent()).toContain('src/billing/invoice.ts');
    expect(await page.locator('[data-table="findings"] td[data-col="code"]').allTextContents()).toContain('SCOPE_VIOLATION');
    await shot(page, 'commit');
    await page.goBack();
    await shot(page, 'commits');

    await page.click('nav a[data-nav="files"]');
    await expectView(page, 'files');
    const paths = await cells(page, 'files', 'path');
    expect(paths.map((p) => p.replace(/gone$/, ''))).toContain(XSS_FILE);
    await page.fill('[data-filter="files"]', 'onerror');
    expect(await page.locator('[data-table="files"] tbody tr').count()).toBe(1);
    await page.fill('[data-filter="files"]', '');
    await page.locator('[data-table="files"] th[data-col="ai"] button').click();
    const ai = (await cells(page, 'files', 'ai')).map(num);
    expect(ai).toEqual([...ai].sort((a, b) => b - a));
    await shot(page, 'files');
    await page.locator('[data-table="files"] td[data-col="path"] a', { hasText: 'src/auth/jwt.ts' }).click();
    await expectView(page, 'file');
    expect(await cells(page, 'file-intents', 'id')).toEqual(['INT-001']);
    expect((await page.locator('.legend').first().textContent())).toContain(CLAUDE);
    await shot(page, 'file');
    await page.goto(`${url}#file=${encodeURIComponent(XSS_FILE)}`);
    expect(await page.locator('h2').textContent()).toBe(XSS_FILE);

    await page.click('nav a[data-nav="findings"]');
    await expectView(page, 'findings');
    expect(await page.locator('[data-table="findings"] tbody tr').count()).toBe(fx.data.findings.length);
    expect(await cells(page, 'findings', 'rule')).toContain('owned_scope: src/auth/**');
    await shot(page, 'findings');

    expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
    expect(problems).toEqual([]);
    expect(requests.filter((u) => !u.startsWith(url.split('#')[0]))).toEqual([]);
  });

  it('stays usable with 10,000 commits: one page of rows in the DOM, sorting and filtering over all', async () => {
    const base = fx.data;
    const commits = Array.from({ length: 10_000 }, (_, k) => ({
      ...base.commits[0], sha: k.toString(16).padStart(40, '0'), subject: `change ${k}`, added: k % 97, deleted: k % 13,
      date: new Date(Date.UTC(2026, 0, 1) + k * 60_000).toISOString(), findings: 0,
    }));
    const file = join(tempDir(), 'big.html');
    writeFileSync(file, renderPage({ ...base, commits }));
    const { page, problems } = await open(pathToFileURL(file).href + '#commits');
    expect(await page.locator('[data-table="commits"] .count').textContent()).toBe('10,000 commits');
    expect(await page.locator('[data-table="commits"] tbody tr').count()).toBe(100);
    await page.locator('[data-table="commits"] th[data-col="added"] button').click();
    expect(num((await cells(page, 'commits', 'added'))[0])).toBe(96);
    await page.fill('[data-filter="commits"]', 'change 9999');
    expect(await cells(page, 'commits', 'subject')).toEqual(['change 9999']);
    await page.fill('[data-filter="commits"]', '');
    await page.click('[data-table="commits"] [data-page="next"]');
    expect(await page.locator('[data-table="commits"] .pageinfo').textContent()).toContain('page 2 of 100');
    expect(problems).toEqual([]);
  });
});
