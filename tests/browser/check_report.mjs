// Opens a proctor HTML report in headless Chromium and checks it as a
// person would see it. Driven by crates/proctor/tests/cli_html.rs.
//
// Usage: node check_report.mjs --html r.html --json r.json --search TEXT --screenshot out.png
//
// Checks: no console error, page error, dialog or network request; the
// counts on the page equal the JSON report's; the tests table has a row per
// test; typing TEXT in the search box leaves the rows whose node id
// contains it; node ids with markup are shown as text (no injected
// element). Prints one JSON line with what it measured; exits 1 with the
// reasons when a check fails.
//
// Chromium: /usr/bin/chromium (Debian's), or $PROCTOR_CHROMIUM. Playwright
// never downloads a browser here.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';

function parseArgs(argv) {
  const args = {};
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i];
    if (!key.startsWith('--') || i + 1 >= argv.length) throw new Error(`bad argument ${key}`);
    args[key.slice(2)] = argv[i + 1];
  }
  for (const required of ['html', 'json', 'search', 'screenshot']) {
    if (!args[required]) throw new Error(`missing --${required}`);
  }
  return args;
}

const args = parseArgs(process.argv.slice(2));
const report = JSON.parse(fs.readFileSync(args.json, 'utf8'));
const failures = [];
const check = (ok, message) => { if (!ok) failures.push(message); };

const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'proctor-chromium-'));
const context = await chromium.launchPersistentContext(userDataDir, {
  executablePath: process.env.PROCTOR_CHROMIUM || '/usr/bin/chromium',
  headless: true,
  viewport: { width: 1280, height: 900 },
  args: [
    '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync',
  ],
});
const measured = {};
try {
  const page = context.pages()[0] || await context.newPage();
  const problems = [];
  page.on('console', (message) => { if (message.type() === 'error' || message.type() === 'warning') problems.push(`console ${message.type()}: ${message.text()}`); });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('dialog', async (dialog) => { problems.push(`dialog (${dialog.type()}): ${dialog.message()}`); await dialog.dismiss(); });
  page.on('request', (request) => { if (!request.url().startsWith('file:')) problems.push(`request to ${request.url()}`); });

  const started = Date.now();
  await page.goto(pathToFileURL(path.resolve(args.html)).href, { waitUntil: 'load' });
  await page.waitForSelector('#tests-table');
  measured.load_ms = Date.now() - started;

  // Counts on the page equal the JSON report's.
  const shown = await page.$$eval('[data-count]', (cards) => Object.fromEntries(cards.map((c) => [c.dataset.count, Number(c.querySelector('.n').textContent)])));
  const counts = report.summary.counts;
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  check(shown.total === total, `page shows ${shown.total} tests, the JSON has ${total}`);
  check(shown.flaky === report.summary.flaky, `page shows ${shown.flaky} flaky, the JSON has ${report.summary.flaky}`);
  for (const [outcome, n] of Object.entries(counts)) {
    check(shown[outcome] === n, `page shows ${shown[outcome]} ${outcome}, the JSON has ${n}`);
  }
  for (const [outcome, n] of Object.entries(shown)) {
    if (!['total', 'flaky'].includes(outcome)) check(n === (counts[outcome] || 0), `page shows ${n} ${outcome}, the JSON has ${counts[outcome] || 0}`);
  }
  measured.counts = shown;
  const summaryLine = await page.textContent('#summary-line');
  check(summaryLine === report.summary.line, `summary line ${JSON.stringify(summaryLine)} differs from the JSON's`);
  const failureCards = await page.$$eval('details.failure', (cards) => cards.length);
  const failing = report.tests.filter((t) => ['failed', 'error', 'crashed', 'timed-out'].includes(t.outcome)).length;
  check(failureCards === failing, `page shows ${failureCards} failures, the JSON has ${failing}`);
  if (report.jobs_by_tier) {
    const jobRows = await page.$$eval('#jobs-matrix tbody tr[data-job]', (rows) => rows.map((r) => [r.dataset.job, Number(r.children[1].textContent)]));
    check(JSON.stringify(jobRows) === JSON.stringify(report.jobs_by_tier.map((j) => [j.name, j.selected])), `jobs matrix ${JSON.stringify(jobRows)} differs from the JSON's`);
    measured.jobs = jobRows;
  }

  // The search box filters the rows by node id.
  const visibleRows = () => page.$$eval('#tests-table tbody tr', (rows) => rows.filter((r) => !r.hidden && r.offsetParent !== null).length);
  measured.rows_before = await visibleRows();
  check(measured.rows_before === report.tests.length, `${measured.rows_before} rows visible before searching, the JSON has ${report.tests.length} tests`);
  await page.click('#search');
  await page.keyboard.type(args.search);
  const expected = report.tests.filter((t) => t.nodeid.toLowerCase().includes(args.search.toLowerCase())).length;
  measured.rows_after = await visibleRows();
  measured.rows_expected = expected;
  check(expected > 0 && expected < report.tests.length, `search ${JSON.stringify(args.search)} should match some tests but not all (matches ${expected})`);
  check(measured.rows_after === expected, `${measured.rows_after} rows visible after searching ${JSON.stringify(args.search)}, expected ${expected}`);
  await page.fill('#search', '');
  check(await visibleRows() === report.tests.length, 'clearing the search shows every row again');

  // Node ids with markup are text, not elements.
  const hostile = report.tests.filter((t) => /[<>&]/.test(t.nodeid)).map((t) => t.nodeid);
  check(hostile.length > 0, 'the JSON report has no node id with markup to check');
  const cells = await page.$$eval('#tests-table td.nodeid', (tds) => tds.map((td) => td.textContent));
  for (const nodeid of hostile) check(cells.includes(nodeid), `node id ${JSON.stringify(nodeid)} is not shown as text`);
  const injected = await page.evaluate(() => ({
    scripts: document.scripts.length,
    images: document.images.length,
    handlers: document.querySelectorAll('[onerror], [onload], [onclick]').length,
  }));
  check(injected.scripts === 2, `the page has ${injected.scripts} script elements, expected its own 2`);
  check(injected.images === 0 && injected.handlers === 0, `markup from a node id became elements: ${JSON.stringify(injected)}`);
  measured.hostile_nodeids = hostile.length;

  // Wide enough for 1280 px: nothing scrolls sideways.
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  check(overflow <= 0, `the page is ${overflow}px wider than a 1280px window`);

  await page.screenshot({ path: args.screenshot, fullPage: true });
  measured.screenshot = path.resolve(args.screenshot);
  for (const problem of problems) failures.push(problem);
} finally {
  await context.close();
  fs.rmSync(userDataDir, { recursive: true, force: true });
}

if (failures.length) {
  console.error('check_report: the HTML report failed these checks:');
  for (const failure of failures) console.error(`- ${failure}`);
  console.log(JSON.stringify(measured));
  process.exit(1);
}
console.log(JSON.stringify({ ok: true, ...measured }));
