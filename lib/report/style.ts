/** The report page's stylesheet: light and dark (prefers-color-scheme), no web fonts, no images. */
export const STYLE = String.raw`
:root {
  color-scheme: light dark;
  --bg: #f6f7f9; --panel: #ffffff; --fg: #1c2330; --dim: #667085; --line: #e3e6eb; --head: #f0f2f5;
  --link: #2457c5; --focus: #2f6fed; --ok: #137333; --ok-bg: #e6f4ea; --bad: #b42318; --bad-bg: #fdecea;
  --plus: #137333; --minus: #b42318; --badge: #eef1f5; --on-bad: #ffffff;
  --m0: #6d4aff; --m1: #0b8fbf; --m2: #c2410c; --m3: #a21caf; --m4: #0f766e; --m5: #4d7c0f;
  --human: #f5b400; --other: #94a3b8; --unrec: #d5d9e0;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #0f1217; --panel: #171b22; --fg: #e6e9ef; --dim: #98a2b3; --line: #2a303a; --head: #1d222b;
    --link: #8ab4ff; --focus: #8ab4ff; --ok: #6fdc8c; --ok-bg: #12301c; --bad: #ff8a80; --bad-bg: #3a1715;
    --plus: #6fdc8c; --minus: #ff8a80; --badge: #252b35; --on-bad: #2b0906;
    --m0: #a08bff; --m1: #4cc3ea; --m2: #fb923c; --m3: #e879f9; --m4: #2dd4bf; --m5: #a3e635;
    --human: #fcd34d; --other: #64748b; --unrec: #3a414d;
  }
}
* { box-sizing: border-box; }
[hidden] { display: none !important; }
html { background: var(--bg); color: var(--fg); font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
body { margin: 0; }
a { color: var(--link); text-decoration: none; }
a:hover { text-decoration: underline; }
:focus-visible { outline: 2px solid var(--focus); outline-offset: 2px; border-radius: 3px; }
code, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace; font-size: 12.5px; }
.small { font-size: 12px; }
.dim { color: var(--dim); }
.skip { position: absolute; left: -999px; top: 0; background: var(--panel); padding: 8px 12px; z-index: 10; }
.skip:focus { left: 8px; top: 8px; }
.top { position: sticky; top: 0; z-index: 5; background: var(--panel); border-bottom: 1px solid var(--line); }
.top .in { max-width: 1320px; margin: 0 auto; padding: 10px 24px; display: flex; align-items: center; gap: 24px; flex-wrap: wrap; }
.brand { font-weight: 700; font-size: 16px; letter-spacing: .2px; }
.brand .logo { display: inline-block; width: 10px; height: 10px; border-radius: 3px; background: var(--m0); margin-right: 8px; vertical-align: 1px; }
.brand #repo { font-weight: 500; color: var(--dim); margin-left: 6px; }
nav { display: flex; gap: 4px; flex-wrap: wrap; }
nav a { padding: 6px 12px; border-radius: 8px; color: var(--fg); }
nav a:hover { background: var(--head); text-decoration: none; }
nav a[aria-current="page"] { background: var(--head); font-weight: 600; box-shadow: inset 0 -2px 0 var(--m0); }
nav a .n { color: var(--dim); font-size: 12px; margin-left: 2px; }
nav a.has-bad .n { color: var(--on-bad); background: var(--bad); border-radius: 9px; padding: 0 7px; }
#meta { margin-left: auto; color: var(--dim); font-size: 12px; }
main { max-width: 1320px; margin: 0 auto; padding: 20px 24px 64px; }
.vh h2 { margin: 4px 0 2px; font-size: 22px; }
.vh h2:focus { outline: none; }
.vh h2 .mono { font-size: 19px; word-break: break-all; }
td .name { font-size: 12.5px; color: var(--dim); margin-top: 2px; }
.sub { color: var(--dim); margin: 0 0 14px; }
.verdict { border-radius: 10px; padding: 12px 16px; margin: 12px 0 18px; border: 1px solid; }
.verdict.ok { background: var(--ok-bg); color: var(--ok); border-color: color-mix(in srgb, var(--ok) 35%, transparent); }
.verdict.bad { background: var(--bad-bg); color: var(--bad); border-color: color-mix(in srgb, var(--bad) 45%, transparent); font-size: 15px; }
.verdict.bad a { color: var(--bad); font-weight: 600; text-decoration: underline; }
.warn { border: 1px solid var(--human); background: color-mix(in srgb, var(--human) 14%, transparent); border-radius: 10px; padding: 10px 14px; margin: 0 0 14px; }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(150px, 1fr)); gap: 12px; margin: 16px 0; }
.card { background: var(--panel); border: 1px solid var(--line); border-radius: 10px; padding: 12px 14px; }
.card .label { color: var(--dim); font-size: 12px; text-transform: uppercase; letter-spacing: .5px; }
.card .value { font-size: 22px; font-weight: 700; margin-top: 2px; }
.card.accent .value { color: var(--m0); }
.card .extra { color: var(--dim); font-size: 12px; }
.panel, .tbl { background: var(--panel); border: 1px solid var(--line); border-radius: 10px; padding: 14px 16px; margin: 16px 0; }
.panel h3, .tbl h3 { margin: 0 8px 0 0; font-size: 15px; }
.panel .sub { margin-top: 4px; font-size: 12.5px; }
.toolbar { display: flex; align-items: center; gap: 12px; margin-bottom: 10px; flex-wrap: wrap; }
.toolbar input { flex: 0 1 320px; min-width: 180px; padding: 6px 10px; border: 1px solid var(--line); border-radius: 8px; background: var(--bg); color: var(--fg); font: inherit; }
.count { color: var(--dim); font-size: 12.5px; margin-left: auto; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 6px 9px; border-bottom: 1px solid var(--line); vertical-align: middle; white-space: nowrap; }
td.wrap { white-space: normal; min-width: 140px; max-width: 420px; }
th { background: var(--head); position: sticky; top: 0; font-weight: 600; font-size: 12.5px; }
th.num, td.num { text-align: right; font-variant-numeric: tabular-nums; }
th button.sort { all: unset; cursor: pointer; display: inline-block; padding: 2px 0; color: var(--fg); }
th button.sort:focus-visible { outline: 2px solid var(--focus); outline-offset: 2px; }
th[aria-sort="ascending"] button, th[aria-sort="descending"] button { color: var(--link); }
tbody tr:hover { background: color-mix(in srgb, var(--head) 70%, transparent); }
tr.badrow td:first-child { box-shadow: inset 3px 0 0 var(--bad); }
tr.none td { color: var(--dim); text-align: center; padding: 18px; }
.pager { display: flex; align-items: center; gap: 10px; margin-top: 10px; font-size: 12.5px; color: var(--dim); }
.pager button, .pager select { font: inherit; padding: 4px 10px; border: 1px solid var(--line); border-radius: 7px; background: var(--bg); color: var(--fg); cursor: pointer; }
.pager button:disabled { opacity: .45; cursor: default; }
.badge { display: inline-block; padding: 1px 8px; border-radius: 999px; font-size: 11.5px; font-weight: 600; background: var(--badge); color: var(--fg); }
.badge.bad, a.badge.bad { background: var(--bad); color: var(--on-bad); }
.badge.okb { background: var(--ok-bg); color: var(--ok); }
.badge.dimb { background: var(--badge); color: var(--dim); margin-left: 6px; }
.st-in_progress { background: color-mix(in srgb, var(--m1) 20%, transparent); color: var(--m1); }
.st-completed { background: var(--ok-bg); color: var(--ok); }
.st-blocked, .st-abandoned { background: var(--bad-bg); color: var(--bad); }
.st-pending { background: var(--badge); color: var(--dim); }
.cls-refactor { background: color-mix(in srgb, var(--m4) 18%, transparent); color: var(--m4); }
.cls-evolution { background: color-mix(in srgb, var(--m0) 16%, transparent); color: var(--m0); }
.plus { color: var(--plus); font-variant-numeric: tabular-nums; }
.minus { color: var(--minus); font-variant-numeric: tabular-nums; }
.badtext { color: var(--bad); }
.bar { display: flex; width: 120px; height: 10px; border-radius: 5px; overflow: hidden; background: var(--unrec); }
td .bar { width: 96px; }
.sharecell { display: inline-flex; align-items: center; gap: 8px; }
.sharecell .pct { font-size: 12px; color: var(--dim); min-width: 3.2em; font-variant-numeric: tabular-nums; }
.vh h2 code { font-size: .8em; }
.bar.big { width: 100%; height: 18px; border-radius: 6px; margin: 10px 0 8px; }
.bar.empty { opacity: .4; }
.seg { display: block; height: 100%; }
.m0 { background: var(--m0); } .m1 { background: var(--m1); } .m2 { background: var(--m2); }
.m3 { background: var(--m3); } .m4 { background: var(--m4); } .m5 { background: var(--m5); }
.human { background: var(--human); } .other { background: var(--other); } .unrec { background: var(--unrec); }
.legend { list-style: none; display: flex; flex-wrap: wrap; gap: 6px 18px; padding: 0; margin: 0; font-size: 12.5px; }
.sw { display: inline-block; width: 10px; height: 10px; border-radius: 3px; margin-right: 6px; vertical-align: -1px; }
.chips { display: inline-flex; flex-wrap: wrap; gap: 4px 8px; }
.chip { display: inline-flex; align-items: center; font-size: 12px; background: var(--badge); border-radius: 6px; padding: 1px 7px; }
.facts { display: grid; grid-template-columns: max-content 1fr; gap: 8px 18px; background: var(--panel); border: 1px solid var(--line); border-radius: 10px; padding: 14px 16px; margin: 16px 0; }
.facts dt { color: var(--dim); }
.facts dd { margin: 0; min-width: 0; }
.path { word-break: break-all; }
@media (max-width: 720px) { main, .top .in { padding-left: 12px; padding-right: 12px; } #meta { margin-left: 0; } }
`;
