// proctor's HTML report: builds the page from the JSON view embedded in
// #proctor-data. Test data (node ids, messages, output, reasons, markers)
// only ever reaches the page through textContent and setAttribute; nothing
// is parsed as markup, so no test can inject an element.
'use strict';
(function () {
  const view = JSON.parse(document.getElementById('proctor-data').textContent);
  const app = document.getElementById('app');

  // An element: `props` sets class, text or attributes; children are
  // nodes or strings (added as text).
  function el(tag, props, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(props || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === 'class') node.className = value;
      else if (key === 'text') node.textContent = String(value);
      else node.setAttribute(key, String(value));
    }
    for (const child of children.flat(Infinity)) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  function seconds(value) {
    if (value === null || value === undefined) return '';
    if (value > 0 && value < 0.001) return '< 1 ms';
    if (value < 1) return (value * 1000).toFixed(0) + ' ms';
    if (value < 100) return value.toFixed(2) + ' s';
    return value.toFixed(0) + ' s';
  }

  const labels = Object.fromEntries(view.outcomes.map((o) => [o.key, o.label]));
  const label = (key) => labels[key] || key.replace('-', ' ');
  const badge = (outcome) => el('span', { class: 'badge o-' + outcome, text: label(outcome) });
  const count = (counts, key) => (counts.outcomes[key] || 0);
  const num = (n, extra) => el('td', { class: 'num' + (n === 0 ? ' zero' : '') + (extra ? ' ' + extra : ''), text: n });

  function section(id, title, ...body) {
    return el('section', { class: 'panel', id: id }, el('h2', { text: title }), ...body);
  }

  function empty(text) {
    return el('p', { class: 'empty', text: text });
  }

  // A row that the search box filters.
  function row(tag, nodeid, props, ...children) {
    return el(tag, Object.assign({ class: 'row', 'data-nodeid': nodeid }, props), ...children);
  }

  function header() {
    const meta = view.meta;
    const status = view.exit_code === 0 ? 'ok' : view.exit_code === 1 || view.exit_code === 2 ? 'bad' : 'warn';
    const facts = [
      ['started', meta.started_at],
      ['command', meta.command.join(' ')],
      ['selection', meta.selection],
      ['seed', meta.seed],
      ['duration', seconds(view.duration)],
      ['exit code', view.exit_code],
      ['deselected', view.deselected],
      ['proctor', meta.proctor_version],
    ].filter(([, value]) => value !== null && value !== undefined && value !== '');
    return el('header', { class: 'top' },
      el('h1', { text: 'proctor report' }),
      el('p', { class: 'line ' + status, id: 'summary-line', text: view.line }),
      el('dl', { class: 'meta' }, facts.map(([name, value]) => [el('dt', { text: name }), el('dd', { text: value })])));
  }

  function toolbar() {
    const links = [['summary', 'Summary'], ['jobs', 'Jobs × tiers'], ['failures', 'Failures'], ['skips', 'Skips'],
      ['durations', 'Durations'], ['flaky', 'Flaky'], ['tests', 'All tests']]
      .filter(([id]) => id !== 'jobs' || view.jobs)
      .map(([id, text]) => el('a', { href: '#' + id, text: text }));
    return el('div', { class: 'toolbar' },
      el('input', { type: 'search', id: 'search', placeholder: 'Filter by node id…', 'aria-label': 'Filter tests by node id', autocomplete: 'off' }),
      el('span', { class: 'match-count', id: 'match-count' }),
      el('nav', {}, links));
  }

  function countTable(first, groups) {
    const head = el('tr', {}, el('th', { text: first }), el('th', { class: 'num', text: 'tests' }),
      view.outcomes.map((o) => el('th', { class: 'num', text: o.label })), el('th', { class: 'num', text: 'flaky' }));
    const body = groups.map((g) => el('tr', { 'data-group': g.name }, el('td', { text: g.name }), num(g.counts.total),
      view.outcomes.map((o) => num(count(g.counts, o.key))), num(g.counts.flaky)));
    const total = el('tr', { class: 'total' }, el('td', { text: 'all' }), num(view.totals.total),
      view.outcomes.map((o) => num(count(view.totals, o.key))), num(view.totals.flaky));
    return el('div', { class: 'table-wrap' }, el('table', {}, el('thead', {}, head), el('tbody', {}, body, total)));
  }

  function summary() {
    const card = (key, text, n, extra) => el('div', { class: 'card o-' + key + (n === 0 ? ' zero' : ''), 'data-count': key },
      el('span', { class: 'n', text: n }), el('span', { class: 'label', text: text }), extra);
    const cards = el('div', { class: 'cards' },
      card('total', 'tests', view.totals.total),
      view.outcomes.map((o) => card(o.key, o.label, count(view.totals, o.key))),
      card('flaky', 'flaky', view.totals.flaky));
    const parts = [cards];
    if (view.phases.length) parts.push(el('h3', { text: 'By phase' }), countTable('phase', view.phases));
    if (view.tiers.length) parts.push(el('h3', { text: 'By ' + view.tier_axis }), countTable(view.tier_axis, view.tiers));
    else parts.push(el('p', { class: 'empty', text: 'The suite has no tier axis (an axis named `tier`, or an exactly-one axis).' }));
    return section('summary', 'Summary', parts);
  }

  function jobs() {
    const matrix = view.jobs;
    if (!matrix) return null;
    const head = el('tr', {}, el('th', { text: 'job' }), el('th', { class: 'num', text: 'selected' }),
      matrix.columns.map((c) => el('th', { class: 'num', text: c })));
    const rows = matrix.rows.map((r) => el('tr', { 'data-job': r.name }, el('td', { text: r.name }), num(r.selected),
      r.counts.map((n) => num(n))));
    const run = el('tr', { class: 'total' }, el('td', { text: 'this run' }), num(matrix.run.reduce((a, b) => a + b, 0)),
      matrix.run.map((n) => num(n)));
    return section('jobs', 'Jobs × tiers',
      el('p', { class: 'empty', text: "How many of this run's tests each configured job selects, per " + (view.tier_axis || 'tier') + '.' }),
      el('div', { class: 'table-wrap' }, el('table', { id: 'jobs-matrix' }, el('thead', {}, head), el('tbody', {}, rows, run))));
  }

  function failures() {
    if (!view.failures.length) return section('failures', 'Failures', empty('No failures.'));
    return section('failures', 'Failures (' + view.failures.length + ')', view.failures.map((f) => {
      const body = el('div', { class: 'body' }, el('pre', { class: 'message', text: f.message }));
      if (f.output) body.append(el('h4', { text: 'Captured output' }), el('pre', { class: 'output', text: f.output }));
      const extra = [f.phase ? 'phase ' + f.phase : null, f.attempts > 1 ? f.attempts + ' attempts' : null].filter(Boolean).join(', ');
      return row('details', f.nodeid, { class: 'row failure', open: '' },
        el('summary', {}, badge(f.outcome), el('span', { class: 'nodeid', text: f.nodeid }),
          extra ? el('span', { class: 'empty', text: extra }) : null,
          el('span', { class: 'headline', text: f.headline })),
        body);
    }));
  }

  function skips() {
    if (!view.skips.length) return section('skips', 'Skips', empty('No test was skipped.'));
    const total = view.skips.reduce((n, g) => n + g.tests.length, 0);
    return section('skips', 'Skips (' + total + ', by reason)', view.skips.map((g) => el('details', { class: 'skip-group' },
      el('summary', {}, el('span', { class: 'count', text: '[' + g.tests.length + ']' }), el('span', { class: 'reason', text: g.reason })),
      el('ul', {}, g.tests.map((t) => row('li', t, {}, el('span', { class: 'nodeid', text: t })))))));
  }

  function durations() {
    if (!view.slowest.length) return section('durations', 'Durations', empty('No test took measurable time.'));
    const groups = view.slowest.map((g) => {
      const max = Math.max(...g.tests.map((t) => Math.max(t.duration, t.median || 0)));
      const bars = g.tests.map((t) => {
        const bar = el('div', { class: 'bar o-' + t.outcome });
        bar.style.width = (max > 0 ? (100 * t.duration) / max : 0).toFixed(1) + '%';
        const value = seconds(t.duration) + (t.median !== null && t.median !== undefined ? ' (median ' + seconds(t.median) + ')' : '');
        return row('div', t.nodeid, { class: 'row bar-row' },
          el('span', { class: 'nodeid', title: t.nodeid, text: t.nodeid }),
          el('div', { class: 'bar-track' }, bar),
          el('span', { class: 'bar-value', text: value }));
      });
      return [el('h3', { text: 'Slowest: ' + g.phase }), el('div', { class: 'bars' }, bars)];
    });
    return section('durations', 'Durations', groups);
  }

  function flaky() {
    const parts = [];
    if (view.flaky_now.length) {
      parts.push(el('h3', { text: 'Passed on a rerun in this run' }),
        el('ul', {}, view.flaky_now.map((f) => row('li', f.nodeid, {}, el('span', { class: 'nodeid', text: f.nodeid }),
          ' — attempt ' + f.attempts))));
    }
    const history = view.history;
    if (!history) {
      parts.push(empty('No run history in this report (runs with --no-history record none).'));
    } else if (!history.flaky.length) {
      parts.push(empty('The history (' + history.runs + ' runs, last ' + history.window + ' per test) finds no flaky test among this run\'s.'));
    } else {
      const head = el('tr', {}, el('th', { text: 'node id' }), el('th', { class: 'num', text: 'runs' }),
        el('th', { class: 'num', text: 'failed' }), el('th', { class: 'num', text: 'passed on rerun' }));
      const rows = history.flaky.map((t) => row('tr', t.nodeid, {}, el('td', { class: 'nodeid', text: t.nodeid }),
        num(t.runs), num(t.failures), num(t.passes_after_rerun)));
      parts.push(el('h3', { text: 'History: last ' + history.window + ' runs of each test (' + history.runs + ' runs recorded)' }),
        el('div', { class: 'table-wrap' }, el('table', { id: 'flaky-history' }, el('thead', {}, head), el('tbody', {}, rows))));
    }
    if (!parts.length) parts.push(empty('Nothing flaky.'));
    return section('flaky', 'Flaky', parts);
  }

  function tests() {
    const head = el('tr', {}, el('th', { text: 'node id' }), el('th', { text: 'outcome' }), el('th', { class: 'num', text: 'duration' }),
      el('th', { text: 'phase' }), el('th', { text: view.tier_axis || 'tier' }), el('th', { text: 'markers' }));
    const rows = view.tests.map((t) => row('tr', t.nodeid, { 'data-outcome': t.outcome },
      el('td', { class: 'nodeid', text: t.nodeid }),
      el('td', {}, badge(t.outcome), t.flaky ? [' ', el('span', { class: 'badge flaky', text: 'flaky' })] : null,
        t.reason ? el('div', { class: 'empty', text: t.reason }) : null),
      el('td', { class: 'num', text: seconds(t.duration) }),
      el('td', { text: t.phase || '' }),
      el('td', { text: t.tier || '' }),
      el('td', { text: t.markers.join(', ') })));
    return section('tests', 'All tests (' + view.tests.length + ')',
      el('div', { class: 'table-wrap' }, el('table', { id: 'tests-table' }, el('thead', {}, head), el('tbody', {}, rows))));
  }

  const page = el('div', { class: 'page' }, header(), toolbar(), summary(), jobs(), failures(), skips(), durations(), flaky(), tests(),
    el('footer', { text: 'Written by proctor ' + view.meta.proctor_version + '. This file is self-contained: it loads nothing.' }));
  app.append(page);

  const search = document.getElementById('search');
  const matchCount = document.getElementById('match-count');
  const allRows = Array.from(document.querySelectorAll('.row'));
  const testRows = Array.from(document.querySelectorAll('#tests-table tbody tr'));
  const skipGroups = Array.from(document.querySelectorAll('details.skip-group'));

  function filter() {
    const query = search.value.trim().toLowerCase();
    for (const node of allRows) {
      node.hidden = query !== '' && !node.dataset.nodeid.toLowerCase().includes(query);
    }
    for (const group of skipGroups) {
      const shown = group.querySelectorAll('li.row:not([hidden])').length;
      group.hidden = shown === 0;
      if (query !== '' && shown > 0) group.open = true;
    }
    const visible = testRows.filter((r) => !r.hidden).length;
    matchCount.textContent = query === '' ? testRows.length + ' tests' : visible + ' of ' + testRows.length + ' tests match';
  }
  search.addEventListener('input', filter);
  filter();
})();
