/**
 * The report page's script (plain JavaScript, no dependencies): reads the data from the page's
 * <script type="application/json">, renders each view with DOM calls (all text through text nodes,
 * never markup), and gives every table sorting, filtering and pagination.
 */
export const CLIENT_JS = String.raw`
(function () {
  'use strict';
  var D = JSON.parse(document.getElementById('intent-report-data').textContent);
  var main = document.getElementById('main');
  var PAGE = 100;

  // ---- small DOM helpers: every piece of text goes in as a text node, never as markup ----
  function el(tag, attrs, kids) {
    var e = document.createElement(tag);
    if (attrs) {
      for (var k in attrs) {
        if (!Object.prototype.hasOwnProperty.call(attrs, k) || attrs[k] === null || attrs[k] === undefined || attrs[k] === false) continue;
        if (k === 'text') e.textContent = String(attrs[k]);
        else if (k === 'cls') e.className = attrs[k];
        else if (k === 'on') { for (var ev in attrs.on) e.addEventListener(ev, attrs.on[ev]); }
        else e.setAttribute(k, attrs[k] === true ? '' : String(attrs[k]));
      }
    }
    add(e, kids);
    return e;
  }
  function add(e, kids) {
    if (kids === null || kids === undefined) return e;
    if (!Array.isArray(kids)) kids = [kids];
    for (var i = 0; i < kids.length; i++) {
      var k = kids[i];
      if (k === null || k === undefined || k === false) continue;
      e.appendChild(typeof k === 'object' ? k : document.createTextNode(String(k)));
    }
    return e;
  }
  function href(view, arg) { return '#' + view + (arg === undefined ? '' : '=' + encodeURIComponent(arg)); }
  function link(view, arg, text, cls) { return el('a', { href: href(view, arg), cls: cls || null }, text); }
  function shortSha(s) { return s ? s.slice(0, 10) : '-'; }
  function fmtNum(n) { return (n || 0).toLocaleString('en-US'); }
  function pct(n, d) { return d ? Math.round((1000 * n) / d) / 10 + '%' : '-'; }
  function fmtDate(iso) { return iso ? iso.slice(0, 16).replace('T', ' ') : '-'; }
  function byKey(list, key) { var m = {}; for (var i = 0; i < list.length; i++) m[list[i][key]] = list[i]; return m; }

  var intentsById = byKey(D.intents, 'id');
  var commitsBySha = byKey(D.commits, 'sha');
  var filesByPath = byKey(D.files, 'path');
  var modelIndex = {};
  D.models.forEach(function (m, i) { modelIndex[m.model] = i % 6; });
  function modelCls(m) { return 'm' + (modelIndex[m] === undefined ? 5 : modelIndex[m]); }

  function intentLink(id) { return id ? link('intent', id, id, 'mono') : '-'; }
  function commitLink(sha) { return sha ? link('commit', sha, shortSha(sha), 'mono') : '-'; }
  function fileLink(p) { return p ? link('file', p, p, 'mono path') : '-'; }
  function statusBadge(s) { return el('span', { cls: 'badge st-' + String(s || 'none').toLowerCase().replace(/[^a-z_]/g, '') }, s || 'not in registry'); }
  function classBadge(c) { return c ? el('span', { cls: 'badge cls-' + (c === 'AST_REFACTOR' ? 'refactor' : 'evolution') }, c) : '-'; }
  function codeBadge(c) { return el('span', { cls: 'badge bad' }, c); }

  /** A stacked bar: AI lines per model, human, other, unrecorded. */
  function shareBar(c, big) {
    var segs = [];
    var models = Object.keys(c.by_model || {}).sort(function (a, b) { return c.by_model[b] - c.by_model[a]; });
    models.forEach(function (m) { segs.push({ n: c.by_model[m], cls: modelCls(m), label: m + ' (AI)' }); });
    segs.push({ n: c.human, cls: 'human', label: 'human' });
    if (c.other) segs.push({ n: c.other, cls: 'other', label: 'mixed/unknown' });
    segs.push({ n: c.unrecorded, cls: 'unrec', label: 'unrecorded' });
    var bar = el('div', { cls: 'bar' + (big ? ' big' : ''), role: 'img', 'aria-label': segs.map(function (s) { return s.label + ': ' + s.n; }).join(', ') });
    if (!c.total) bar.classList.add('empty');
    segs.forEach(function (s) {
      if (!s.n) return;
      var span = el('span', { cls: 'seg ' + s.cls, title: s.label + ': ' + fmtNum(s.n) + ' lines (' + pct(s.n, c.total) + ')' });
      span.style.width = (100 * s.n) / c.total + '%';
      bar.appendChild(span);
    });
    return bar;
  }
  function legend(c) {
    var items = [];
    Object.keys(c.by_model || {}).sort(function (a, b) { return c.by_model[b] - c.by_model[a]; }).forEach(function (m) {
      items.push(el('li', null, [el('span', { cls: 'sw ' + modelCls(m) }), m + ' ', el('b', null, fmtNum(c.by_model[m])), ' ', el('span', { cls: 'dim' }, pct(c.by_model[m], c.total))]));
    });
    items.push(el('li', null, [el('span', { cls: 'sw human' }), 'human ', el('b', null, fmtNum(c.human)), ' ', el('span', { cls: 'dim' }, pct(c.human, c.total))]));
    if (c.other) items.push(el('li', null, [el('span', { cls: 'sw other' }), 'mixed/unknown ', el('b', null, fmtNum(c.other))]));
    items.push(el('li', null, [el('span', { cls: 'sw unrec' }), 'unrecorded ', el('b', null, fmtNum(c.unrecorded)), ' ', el('span', { cls: 'dim' }, pct(c.unrecorded, c.total))]));
    return el('ul', { cls: 'legend' }, items);
  }
  function contributors(map) {
    var keys = Object.keys(map || {}).sort(function (a, b) { return map[b] - map[a]; });
    if (!keys.length) return el('span', { cls: 'dim' }, 'none');
    return el('span', { cls: 'chips' }, keys.map(function (k) {
      var ai = k.indexOf('ai:') === 0;
      var name = ai ? k.slice(3) : k;
      return el('span', { cls: 'chip', title: (ai ? 'AI, ' : '') + name + ': ' + map[k] + ' added lines' }, [el('span', { cls: 'sw ' + (ai ? modelCls(name) : k === 'human' ? 'human' : 'other') }), name + ' ' + map[k]]);
    }));
  }
  function sumText(map) { return Object.keys(map || {}).map(function (k) { return k + ' ' + map[k]; }).join(' '); }

  // ---- the table: sortable (header buttons: click, Enter or Space), filterable, paginated ----
  function table(cfg) {
    var cols = cfg.columns;
    var rows = cfg.rows.map(function (r, i) {
      var t = [];
      for (var c = 0; c < cols.length; c++) t.push(String(cols[c].text ? cols[c].text(r) : cols[c].sort(r)));
      return { r: r, i: i, t: t.join('\u0001').toLowerCase() };
    });
    var st = { q: '', key: cfg.sort ? cfg.sort[0] : null, dir: cfg.sort ? cfg.sort[1] : 1, page: 0, size: cfg.pageSize || PAGE };
    var shown = rows;
    var wrap = el('section', { cls: 'tbl', 'data-table': cfg.name });
    var input = el('input', { type: 'search', placeholder: 'Filter ' + cfg.label + '…', 'aria-label': 'Filter ' + cfg.label, 'data-filter': cfg.name });
    var count = el('span', { cls: 'count', 'aria-live': 'polite' });
    wrap.appendChild(el('div', { cls: 'toolbar' }, [cfg.title ? el('h3', null, cfg.title) : null, input, count]));
    var ths = [];
    var headRow = el('tr', null, cols.map(function (c) {
      var btn = el('button', { type: 'button', cls: 'sort', 'data-col': c.key, title: 'Sort by ' + c.label }, [c.label, el('span', { cls: 'arrow', 'aria-hidden': 'true' })]);
      btn.addEventListener('click', function () {
        if (st.key === c.key) st.dir = -st.dir;
        else { st.key = c.key; st.dir = c.num ? -1 : 1; }
        st.page = 0;
        update();
      });
      var th = el('th', { scope: 'col', cls: c.num ? 'num' : null, 'data-col': c.key }, btn);
      ths.push(th);
      return th;
    }));
    var tbody = el('tbody');
    var scroller = el('div', { cls: 'scroll' }, el('table', null, [el('thead', null, headRow), tbody]));
    wrap.appendChild(scroller);
    var prev = el('button', { type: 'button', cls: 'pg', 'data-page': 'prev' }, '‹ Prev');
    var next = el('button', { type: 'button', cls: 'pg', 'data-page': 'next' }, 'Next ›');
    var info = el('span', { cls: 'pageinfo' });
    var size = el('select', { 'aria-label': 'Rows per page' }, [25, 100, 500].map(function (n) { return el('option', { value: n, selected: n === st.size }, n + ' per page'); }));
    var pager = el('div', { cls: 'pager' }, [prev, info, next, size]);
    wrap.appendChild(pager);
    prev.addEventListener('click', function () { st.page--; render(); });
    next.addEventListener('click', function () { st.page++; render(); });
    size.addEventListener('change', function () { st.size = Number(size.value); st.page = 0; render(); });
    input.addEventListener('input', function () { st.q = input.value.trim().toLowerCase(); st.page = 0; update(); });

    function update() {
      var terms = st.q ? st.q.split(/\s+/) : [];
      shown = terms.length ? rows.filter(function (x) { for (var k = 0; k < terms.length; k++) if (x.t.indexOf(terms[k]) < 0) return false; return true; }) : rows.slice();
      var col = null;
      for (var c = 0; c < cols.length; c++) if (cols[c].key === st.key) col = cols[c];
      if (col) {
        var keyed = shown.map(function (x) { return { x: x, v: col.sort(x.r) }; });
        keyed.sort(function (a, b) {
          var va = a.v, vb = b.v;
          if (va === vb) return a.x.i - b.x.i;
          if (va === null || va === undefined || va === '') return 1;
          if (vb === null || vb === undefined || vb === '') return -1;
          return (va < vb ? -1 : 1) * st.dir;
        });
        shown = keyed.map(function (k) { return k.x; });
      }
      ths.forEach(function (th, i) {
        var on = cols[i].key === st.key;
        th.setAttribute('aria-sort', on ? (st.dir === 1 ? 'ascending' : 'descending') : 'none');
        th.querySelector('.arrow').textContent = on ? (st.dir === 1 ? ' ▲' : ' ▼') : '';
      });
      render();
    }
    function render() {
      var pages = Math.max(1, Math.ceil(shown.length / st.size));
      if (st.page >= pages) st.page = pages - 1;
      if (st.page < 0) st.page = 0;
      var from = st.page * st.size;
      var slice = shown.slice(from, from + st.size);
      var frag = document.createDocumentFragment();
      slice.forEach(function (x) {
        var tr = el('tr', { 'data-key': cfg.key ? cfg.key(x.r) : null, cls: cfg.rowCls ? cfg.rowCls(x.r) : null });
        cols.forEach(function (c) { tr.appendChild(el('td', { cls: c.num ? 'num' : c.cls || null, 'data-col': c.key }, c.cell ? c.cell(x.r) : String(c.sort(x.r)))); });
        frag.appendChild(tr);
      });
      tbody.textContent = '';
      if (!slice.length) tbody.appendChild(el('tr', { cls: 'none' }, el('td', { colspan: cols.length }, rows.length ? 'Nothing matches the filter.' : cfg.empty || 'Nothing here.')));
      tbody.appendChild(frag);
      var noun = rows.length === 1 ? cfg.label.replace(/s$/, '') : cfg.label;
      count.textContent = shown.length === rows.length ? fmtNum(rows.length) + ' ' + noun : fmtNum(shown.length) + ' of ' + fmtNum(rows.length) + ' ' + noun;
      info.textContent = shown.length ? 'Rows ' + fmtNum(from + 1) + '–' + fmtNum(from + slice.length) + ' · page ' + (st.page + 1) + ' of ' + pages : '';
      prev.disabled = st.page === 0;
      next.disabled = st.page >= pages - 1;
      pager.hidden = shown.length <= 25 && st.size >= 25;
    }
    update();
    return wrap;
  }

  // ---- columns shared by several views ----
  var C = {
    date: { key: 'date', label: 'Date', sort: function (c) { return c.date; }, cell: function (c) { return el('time', { datetime: c.date, title: c.date }, fmtDate(c.date)); } },
    sha: { key: 'sha', label: 'Commit', sort: function (c) { return c.sha; }, cell: function (c) { return commitLink(c.sha); } },
    intent: { key: 'intent', label: 'Intent', sort: function (c) { return c.intent; }, cell: function (c) { return intentLink(c.intent); } },
    subject: { key: 'subject', label: 'Message', cls: 'wrap', sort: function (c) { return c.subject; } },
    cls: { key: 'class', label: 'Mutation class', sort: function (c) { return c.mutation_class; }, cell: function (c) { return classBadge(c.mutation_class); } },
    nfiles: { key: 'files', label: 'Files', num: true, sort: function (c) { return c.files.length; }, text: function (c) { return c.files.length + ' ' + c.files.map(function (f) { return f.path; }).join(' '); } },
    added: { key: 'added', label: '+ Lines', num: true, sort: function (c) { return c.added; }, cell: function (c) { return el('span', { cls: 'plus' }, '+' + fmtNum(c.added)); } },
    deleted: { key: 'deleted', label: '− Lines', num: true, sort: function (c) { return c.deleted; }, cell: function (c) { return el('span', { cls: 'minus' }, '−' + fmtNum(c.deleted)); } },
    contrib: { key: 'contributors', label: 'Contributors (added lines)', sort: function (c) { return sumText(c.contributors); }, cell: function (c) { return contributors(c.contributors); } },
    attest: { key: 'attestation', label: 'Attested', sort: function (c) { return c.attestation || ''; }, cell: function (c) { return c.attestation === 'ok' ? el('span', { cls: 'badge okb', title: 'signed by an allowed signer; its predicate is what intent verify finds now' }, 'signed') : c.attestation === 'none' ? el('span', { cls: 'dim' }, 'none') : el('span', { cls: 'badge bad' }, c.attestation); } },
    cfind: { key: 'findings', label: 'Findings', num: true, sort: function (c) { return c.findings; }, cell: function (c) { return c.findings ? el('a', { href: href('commit', c.sha), cls: 'badge bad' }, String(c.findings)) : el('span', { cls: 'dim' }, '0'); } },
  };
  function commitColumns(withIntent) {
    return [C.date, C.sha].concat(withIntent ? [C.intent] : []).concat([C.subject, C.cls, C.nfiles, C.added, C.deleted, C.contrib, C.cfind]).concat(D.attestations ? [C.attest] : []);
  }
  var findingColumns = [
    { key: 'code', label: 'Code', sort: function (f) { return f.code; }, cell: function (f) { return codeBadge(f.code); } },
    { key: 'commit', label: 'Commit', sort: function (f) { return f.commit || ''; }, cell: function (f) { return commitLink(f.commit); } },
    { key: 'intent', label: 'Intent', sort: function (f) { return f.intent || ''; }, cell: function (f) { return intentLink(f.intent); } },
    { key: 'path', label: 'Path', sort: function (f) { return f.path || ''; }, cell: function (f) { return f.path ? (filesByPath[f.path] ? fileLink(f.path) : el('span', { cls: 'mono path' }, f.path)) : '-'; } },
    { key: 'rule', label: 'Rule', cls: 'wrap', sort: function (f) { return f.rule; } },
    { key: 'message', label: 'Finding', cls: 'wrap', sort: function (f) { return f.message; } },
    { key: 'source', label: 'Found by', sort: function (f) { return f.source === 'note' ? 'note' : 'intent verify'; } },
  ];
  function findingsTable(list, title) {
    return table({ name: 'findings', label: 'findings', title: title, columns: findingColumns, rows: list, sort: null, rowCls: function () { return 'badrow'; }, empty: 'No findings.' });
  }
  var fileColumns = [
    { key: 'path', label: 'File', sort: function (f) { return f.path; }, cell: function (f) { return [fileLink(f.path), f.exists ? null : el('span', { cls: 'badge dimb', title: 'not in ' + D.at.rev }, 'gone')]; } },
    { key: 'total', label: 'Lines now', num: true, sort: function (f) { return f.total; }, cell: function (f) { return fmtNum(f.total); } },
    { key: 'ai', label: 'AI', num: true, sort: function (f) { return f.ai; }, cell: function (f) { return fmtNum(f.ai); } },
    { key: 'human', label: 'Human', num: true, sort: function (f) { return f.human; }, cell: function (f) { return fmtNum(f.human); } },
    { key: 'unrecorded', label: 'Unrecorded', num: true, sort: function (f) { return f.unrecorded; }, cell: function (f) { return fmtNum(f.unrecorded); } },
    { key: 'share', label: 'Share', sort: function (f) { return f.total ? f.ai / f.total : -1; }, text: function (f) { return Object.keys(f.by_model).join(' '); }, cell: function (f) { return shareBar(f); } },
    { key: 'intents', label: 'Intents', sort: function (f) { return f.intents.join(' '); }, cell: function (f) { return el('span', { cls: 'chips' }, f.intents.map(function (i) { return intentLink(i); })); } },
    { key: 'commits', label: 'Commits', num: true, sort: function (f) { return f.commits; } },
  ];

  // ---- views ----
  function header(title, sub) {
    return el('header', { cls: 'vh' }, [el('h2', { tabindex: '-1', id: 'view-title' }, title), sub ? el('p', { cls: 'sub' }, sub) : null]);
  }
  function card(label, value, extra, cls) {
    return el('div', { cls: 'card' + (cls ? ' ' + cls : '') }, [el('div', { cls: 'label' }, label), el('div', { cls: 'value', 'data-card': label }, value), extra ? el('div', { cls: 'extra' }, extra) : null]);
  }
  function verdict(here) {
    var v = D.verify;
    if (v.ok) {
      return el('div', { cls: 'verdict ok', role: 'status', 'data-verdict': 'clean' }, [el('strong', null, '✓ Verified clean'), ' · intent verify checked ' + fmtNum(v.commits) + ' commits, ' + fmtNum(v.governed) + ' governed' + (v.ledger_lines !== null ? ', ledger ' + fmtNum(v.ledger_lines) + ' lines' : '') + ': every note matches its commit.']);
    }
    return el('div', { cls: 'verdict bad', role: 'alert', 'data-verdict': 'findings' }, [
      el('strong', null, '✗ ' + fmtNum(D.findings.length) + ' finding' + (D.findings.length === 1 ? '' : 's')),
      ' · intent verify checked ' + fmtNum(v.commits) + ' commits, ' + fmtNum(v.governed) + ' governed. ',
      here ? null : link('findings', undefined, 'See every finding →'),
    ]);
  }
  function budgetText(i) {
    if (!i.budget_left) return i.budget ? '-' : 'none';
    var b = i.budget_left, parts = [];
    if (b.commits !== null) parts.push(b.commits + ' commits');
    if (b.changed_lines !== null) parts.push(b.changed_lines + ' lines');
    if (b.expires_at) parts.push(b.expired ? 'EXPIRED' : 'until ' + b.expires_at.slice(0, 10));
    return parts.join(', ') || '-';
  }
  function breakerCell(i) {
    if (!i.breaker) return el('span', { cls: 'dim' }, '-');
    if (i.breaker.open) return el('span', { cls: 'badge bad', title: i.breaker.reason || '' }, 'OPEN');
    return el('span', { cls: 'badge okb' }, i.breaker.recent_rejections ? 'closed (' + i.breaker.recent_rejections + ' refused)' : 'closed');
  }
  function breakerText(i) { return !i.breaker ? '-' : i.breaker.open ? 'open' : 'closed'; }

  function overview() {
    var t = D.totals, now = t.lines_now;
    var out = [header('Overview', [D.repository, ' · range ', el('code', null, D.range.join(' ')), ' · lines now at ', el('code', null, D.at.rev + (D.at.sha ? ' (' + shortSha(D.at.sha) + ')' : ''))]), verdict()];
    (D.warnings || []).forEach(function (w) { out.push(el('div', { cls: 'warn', role: 'note' }, w)); });
    if (D.findings.length) out.push(findingsTable(D.findings, 'Findings'));
    out.push(el('div', { cls: 'cards' }, [
      card('Intents', fmtNum(t.intents)),
      card('Governed', fmtNum(t.governed_commits), 'of ' + fmtNum(D.verify.commits) + ' commits in range'),
      card('Lines changed', [el('span', { cls: 'plus' }, '+' + fmtNum(t.added)), ' ', el('span', { cls: 'minus' }, '−' + fmtNum(t.deleted))]),
      card('AI now', pct(now.ai, now.total), fmtNum(now.ai) + ' of ' + fmtNum(now.total) + ' lines now', 'accent'),
      card('Human now', pct(now.human, now.total), fmtNum(now.human) + ' lines a note credits to a human'),
      card('Unrecorded', pct(now.unrecorded, now.total), fmtNum(now.unrecorded) + ' lines no note covers'),
      card('Files', fmtNum(t.files)),
    ]));
    out.push(el('section', { cls: 'panel' }, [el('h3', null, 'Who wrote the lines now'), el('p', { cls: 'sub' }, 'Every line of the files the notes name, at ' + D.at.rev + ', credited by content hash to the range that wrote it; "unrecorded" lines match no recorded range (older than governance, outside an intent, or edited since).'), shareBar(now, true), legend(now)]));
    out.push(table({
      name: 'intents', label: 'intents', title: 'Intents', key: function (i) { return i.id; },
      sort: ['id', 1],
      columns: [
        { key: 'id', label: 'Intent', cls: 'wrap', sort: function (i) { return i.id; }, text: function (i) { return i.id + ' ' + i.name; }, cell: function (i) { return [intentLink(i.id), el('div', { cls: 'name' }, i.name)]; } },
        { key: 'status', label: 'Status', sort: function (i) { return i.status || ''; }, cell: function (i) { return statusBadge(i.status); } },
        { key: 'scope', label: 'Scope', cls: 'wrap', sort: function (i) { return i.scope.join(', '); }, cell: function (i) { return el('span', { cls: 'mono small' }, i.scope.join(', ') || '-'); } },
        { key: 'commits', label: 'Commits', num: true, sort: function (i) { return i.commits; } },
        { key: 'added', label: '+ Lines', num: true, sort: function (i) { return i.added; }, cell: function (i) { return el('span', { cls: 'plus' }, '+' + fmtNum(i.added)); } },
        { key: 'deleted', label: '− Lines', num: true, sort: function (i) { return i.deleted; }, cell: function (i) { return el('span', { cls: 'minus' }, '−' + fmtNum(i.deleted)); } },
        { key: 'share', label: 'AI share now', sort: function (i) { return i.lines_now.total ? i.lines_now.ai / i.lines_now.total : -1; }, text: function (i) { return Object.keys(i.lines_now.by_model).join(' '); }, cell: function (i) { return el('span', { cls: 'sharecell' }, [shareBar(i.lines_now), el('span', { cls: 'pct', 'data-ai': i.lines_now.ai, title: fmtNum(i.lines_now.ai) + ' AI of ' + fmtNum(i.lines_now.total) + ' lines now' }, pct(i.lines_now.ai, i.lines_now.total))]); } },
        { key: 'budget', label: 'Budget left', sort: function (i) { return budgetText(i); } },
        { key: 'breaker', label: 'Breaker', sort: breakerText, cell: breakerCell },
        { key: 'findings', label: 'Findings', num: true, sort: function (i) { return i.findings; }, cell: function (i) { return i.findings ? el('span', { cls: 'badge bad' }, String(i.findings)) : el('span', { cls: 'dim' }, '0'); } },
      ],
      rows: D.intents, empty: 'No intents: register some in .orchestration/active_intents.yaml.',
    }));
    out.push(table({
      name: 'models', label: 'models', title: 'By model', key: function (m) { return m.model; }, sort: ['lines_now', -1],
      columns: [
        { key: 'model', label: 'Model', sort: function (m) { return m.model; }, cell: function (m) { return [el('span', { cls: 'sw ' + modelCls(m.model) }), m.model]; } },
        { key: 'lines_now', label: 'Lines now', num: true, sort: function (m) { return m.lines_now; }, cell: function (m) { return fmtNum(m.lines_now); } },
        { key: 'lines_added', label: 'Lines added', num: true, sort: function (m) { return m.lines_added; }, cell: function (m) { return fmtNum(m.lines_added); } },
        { key: 'commits', label: 'Commits', num: true, sort: function (m) { return m.commits; } },
        { key: 'intents', label: 'Intents', sort: function (m) { return m.intents.join(' '); }, cell: function (m) { return el('span', { cls: 'chips' }, m.intents.map(intentLink)); } },
      ],
      rows: D.models, empty: 'No AI lines recorded.',
    }));
    return out;
  }

  function intentView(id) {
    var i = intentsById[id];
    if (!i) return notFound('intent', id);
    var list = D.commits.filter(function (c) { return c.intent === id; });
    var files = D.files.filter(function (f) { return f.intents.indexOf(id) >= 0; });
    var fnd = D.findings.filter(function (f) { return f.intent === id; });
    var out = [header([id + ' · ', i.name], [statusBadge(i.status), ' ', i.branch ? el('code', null, i.branch) : 'no branch'])];
    if (fnd.length) out.push(findingsTable(fnd, 'Findings of ' + id));
    out.push(el('dl', { cls: 'facts' }, [
      el('dt', null, 'Scope'), el('dd', { cls: 'mono' }, i.scope.join(', ') || '-'),
      el('dt', null, 'Commits'), el('dd', { 'data-fact': 'commits' }, fmtNum(i.commits) + (i.first ? ' · ' + fmtDate(i.first) + ' → ' + fmtDate(i.last) : '')),
      el('dt', null, 'Lines'), el('dd', null, [el('span', { cls: 'plus' }, '+' + fmtNum(i.added)), ' ', el('span', { cls: 'minus' }, '−' + fmtNum(i.deleted))]),
      el('dt', null, 'Budget left'), el('dd', null, budgetText(i)),
      el('dt', null, 'Breaker'), el('dd', null, [breakerCell(i), i.breaker && i.breaker.open ? ' ' + (i.breaker.reason || '') : '']),
      el('dt', null, 'Lines now'), el('dd', null, [shareBar(i.lines_now, true), legend(i.lines_now)]),
    ]));
    out.push(table({ name: 'timeline', label: 'commits', title: 'Timeline', key: function (c) { return c.sha; }, sort: ['date', -1], columns: commitColumns(false), rows: list, empty: 'No governed commits in this range.' }));
    out.push(table({ name: 'intent-files', label: 'files', title: 'Files ' + id + ' touched', key: function (f) { return f.path; }, sort: ['path', 1], columns: fileColumns, rows: files }));
    return out;
  }

  function commitsView() {
    return [header('Commits', 'Every governed commit of ' + D.range.join(' ') + ', newest first.'),
      table({ name: 'commits', label: 'commits', key: function (c) { return c.sha; }, sort: ['date', -1], columns: commitColumns(true), rows: D.commits, empty: 'No governed commits in this range.' })];
  }

  function commitView(sha) {
    var c = commitsBySha[sha];
    var fnd = D.findings.filter(function (f) { return f.commit === sha; });
    if (!c) {
      if (!fnd.length) return notFound('commit', sha);
      return [header(['Commit ', el('code', null, shortSha(sha))], 'No readable note for this commit in the range.'), findingsTable(fnd, 'Findings')];
    }
    var out = [header(['Commit ', el('code', null, shortSha(c.sha)), ' · ', c.subject], [fmtDate(c.date), ' · ', c.author, ' · ', intentLink(c.intent), ' · ', classBadge(c.mutation_class)])];
    if (fnd.length) out.push(findingsTable(fnd, 'Findings'));
    out.push(el('dl', { cls: 'facts' }, [
      el('dt', null, 'Commit'), el('dd', { cls: 'mono' }, c.sha),
      el('dt', null, 'Scope in force'), el('dd', { cls: 'mono' }, c.scope.join(', ') || '-'),
      el('dt', null, 'Contributors'), el('dd', null, contributors(c.contributors)),
      D.attestations ? el('dt', null, 'Attestation') : null,
      D.attestations ? el('dd', { cls: c.attestation === 'ok' || c.attestation === 'none' ? null : 'badtext' }, c.attestation === 'ok' ? 'signed by an allowed signer (' + D.attestations.allowed_signers + ')' : c.attestation) : null,
      c.scope_violations.length ? el('dt', null, 'Scope violations') : null,
      c.scope_violations.length ? el('dd', { cls: 'mono badtext' }, c.scope_violations.join(', ')) : null,
    ]));
    out.push(table({
      name: 'commit-files', label: 'files', title: 'Files', key: function (f) { return f.path; }, sort: ['path', 1],
      columns: [
        { key: 'path', label: 'File', sort: function (f) { return f.path; }, cell: function (f) { return [filesByPath[f.path] ? fileLink(f.path) : f.path, f.old_path ? el('span', { cls: 'dim' }, ' ← ' + f.old_path) : null]; } },
        { key: 'status', label: 'Status', sort: function (f) { return f.status; } },
        { key: 'class', label: 'Mutation class', sort: function (f) { return f.mutation_class; }, cell: function (f) { return classBadge(f.mutation_class); } },
        { key: 'added', label: '+ Lines', num: true, sort: function (f) { return f.added; }, cell: function (f) { return el('span', { cls: 'plus' }, '+' + fmtNum(f.added)); } },
        { key: 'deleted', label: '− Lines', num: true, sort: function (f) { return f.deleted; }, cell: function (f) { return el('span', { cls: 'minus' }, '−' + fmtNum(f.deleted)); } },
        { key: 'contributors', label: 'Contributors (added lines)', sort: function (f) { return sumText(f.contributors); }, cell: function (f) { return contributors(f.contributors); } },
      ],
      rows: c.files,
    }));
    return out;
  }

  function filesView() {
    return [header('Files', 'Every file the governed commits touched, with who wrote its lines now (at ' + D.at.rev + ').'),
      table({ name: 'files', label: 'files', key: function (f) { return f.path; }, sort: ['path', 1], columns: fileColumns, rows: D.files, empty: 'No files.' })];
  }

  function fileView(p) {
    var f = filesByPath[p];
    if (!f) return notFound('file', p);
    var list = D.commits.filter(function (c) { return c.files.some(function (x) { return x.path === p || x.old_path === p; }); });
    var intents = Object.keys(f.by_intent).map(function (id) { return { id: id, n: f.by_intent[id] }; });
    f.intents.forEach(function (id) { if (!(id in f.by_intent)) intents.push({ id: id, n: 0 }); });
    return [
      header(el('span', { cls: 'mono' }, p), f.exists ? fmtNum(f.total) + ' lines at ' + D.at.rev : 'not present at ' + D.at.rev),
      el('dl', { cls: 'facts' }, [
        el('dt', null, 'Lines now'), el('dd', null, [shareBar(f, true), legend(f)]),
        el('dt', null, 'Changed'), el('dd', null, [fmtNum(f.commits) + ' governed commit' + (f.commits === 1 ? '' : 's') + ' · ', el('span', { cls: 'plus' }, '+' + fmtNum(f.added)), ' ', el('span', { cls: 'minus' }, '−' + fmtNum(f.deleted))]),
      ]),
      table({
        name: 'file-intents', label: 'intents', title: 'Intents', key: function (r) { return r.id; }, sort: ['n', -1],
        columns: [
          { key: 'id', label: 'Intent', sort: function (r) { return r.id; }, cell: function (r) { return intentLink(r.id); } },
          { key: 'name', label: 'Name', sort: function (r) { return intentsById[r.id] ? intentsById[r.id].name : ''; } },
          { key: 'n', label: 'Lines now', num: true, sort: function (r) { return r.n; } },
        ],
        rows: intents,
      }),
      table({ name: 'file-commits', label: 'commits', title: 'Commits that touched it', key: function (c) { return c.sha; }, sort: ['date', -1], columns: commitColumns(true), rows: list }),
    ];
  }

  function findingsView() {
    return [header('Findings', 'Everything intent verify found on ' + D.range.join(' ') + ', and every scope violation a note recorded, with its commit and the rule it breaks.'), verdict(true), findingsTable(D.findings, null)];
  }

  function notFound(what, name) {
    return [header('Not found'), el('p', null, ['No ' + what + ' ', el('code', null, name), ' in this report. ', link('overview', undefined, 'Back to the overview')])];
  }

  var VIEWS = { overview: overview, commits: commitsView, files: filesView, findings: findingsView, intent: intentView, commit: commitView, file: fileView };
  var NAV = { intent: 'overview', commit: 'commits', file: 'files' };
  function route() {
    var h = location.hash.slice(1);
    var eq = h.indexOf('=');
    var view = eq < 0 ? h : h.slice(0, eq);
    var arg;
    try { arg = eq < 0 ? undefined : decodeURIComponent(h.slice(eq + 1)); } catch (e) { view = 'overview'; }
    if (!VIEWS[view]) view = 'overview';
    main.textContent = '';
    main.setAttribute('data-view', view);
    add(main, VIEWS[view](arg));
    var navKey = NAV[view] || view;
    var links = document.querySelectorAll('nav a[data-nav]');
    for (var i = 0; i < links.length; i++) {
      if (links[i].getAttribute('data-nav') === navKey) links[i].setAttribute('aria-current', 'page');
      else links[i].removeAttribute('aria-current');
    }
    var t = document.getElementById('view-title');
    if (t && routed) t.focus();
    routed = true;
    document.title = (view === 'overview' ? '' : (t ? t.textContent : view) + ' · ') + 'intent report · ' + D.repository;
  }
  var routed = false;

  var nav = document.getElementById('nav');
  add(nav, [
    el('a', { href: '#overview', 'data-nav': 'overview' }, 'Overview'),
    el('a', { href: '#commits', 'data-nav': 'commits' }, ['Commits ', el('span', { cls: 'n' }, fmtNum(D.commits.length))]),
    el('a', { href: '#files', 'data-nav': 'files' }, ['Files ', el('span', { cls: 'n' }, fmtNum(D.files.length))]),
    el('a', { href: '#findings', 'data-nav': 'findings', cls: D.findings.length ? 'has-bad' : null }, ['Findings ', el('span', { cls: 'n' }, fmtNum(D.findings.length))]),
  ]);
  document.getElementById('repo').textContent = D.repository;
  document.getElementById('meta').textContent = 'Generated ' + fmtDate(D.generated_at) + ' UTC by intent ' + D.tool.version;
  window.addEventListener('hashchange', route);
  route();
})();
`;
