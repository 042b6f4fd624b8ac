// Run by .ci/browser.sh: node .ci/browser.cjs <base-url> <artifacts-dir> (PW_DIR = where
// playwright-core is installed). Exits 1 on any failed check.
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { chromium } = require(require.resolve('playwright-core', { paths: [process.env.PW_DIR || '.'] }));

const [base, out] = process.argv.slice(2);
const failures = [];
let passed = 0;
const check = (ok, what) => {
  if (ok) passed += 1;
  else failures.push(what);
};

// Decimal strings compared exactly: "1234.50" and "1234.5" are equal.
const norm = (s) => {
  s = String(s);
  if (s.includes('.')) s = s.replace(/0+$/, '').replace(/\.$/, '');
  return s === '-0' ? '0' : s;
};
// Whole dollars with thousands separators, as the page shows them (half away from zero).
const dollars = (s) => {
  const n = Number(s);
  const whole = Math.sign(n) * Math.round(Math.abs(n));
  return (whole < 0 ? '-$' : '$') + Math.abs(whole).toLocaleString('en-US');
};
const dig = (obj, dotted) => dotted.split('.').reduce((o, k) => (o == null ? undefined : o[k]), obj);

async function swaggerUnderHostName(base) {
  const port = new URL(base).port;
  const host = `http://fabric-tco.internal.test:${port}`;
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'fabric-tco-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--no-first-run',
      '--host-resolver-rules=MAP fabric-tco.internal.test 127.0.0.1',
    ],
  });
  const offsite = [];
  const violations = [];
  await context.route('**/*', (route) => {
    const u = route.request().url();
    if (u.startsWith(host + '/') || u.startsWith('data:')) return route.continue();
    offsite.push(u);
    return route.abort();
  });
  const page = context.pages()[0] || (await context.newPage());
  page.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
  });
  const res = await page.goto(host + '/swagger-ui/', { waitUntil: 'load' });
  check(res && res.status() === 200, `Swagger UI answered ${res && res.status()}`);
  const csp = (res && res.headers()['content-security-policy']) || '';
  check(csp.includes("script-src 'self'"), `Swagger UI's CSP: ${csp}`);
  let rendered = true;
  try {
    await page.locator('.opblock').first().waitFor({ timeout: 15000 });
  } catch (e) {
    rendered = false;
  }
  check(rendered, 'Swagger UI rendered no operation under its CSP');
  // "Try it out" on GET /healthz: the answer comes back from this service.
  try {
    const op = page.locator('.opblock', { hasText: '/healthz' }).first();
    await op.locator('.opblock-summary').click();
    await op.locator('button.try-out__btn').click();
    await op.locator('button.execute').click();
    const cell = op.locator('.live-responses-table tbody .response-col_status').first();
    await cell.waitFor({ timeout: 10000 });
    const status = (await cell.innerText()).trim();
    check(status.startsWith('200'), `Try it out on /healthz answered ${status}`);
  } catch (e) {
    check(false, `Try it out on /healthz failed: ${e.message.split('\n')[0]}`);
  }
  await page.waitForTimeout(500);
  check(offsite.length === 0, `Swagger UI sent requests off the host: ${offsite.join(', ')}`);
  check(violations.length === 0, `Swagger UI broke its CSP: ${violations.join(' | ')}`);
  await context.close();
  fs.rmSync(profile, { recursive: true, force: true });
}

(async () => {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'fabric-tco-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1280, height: 900 },
    args: [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--no-first-run',
    ],
  });
  const origin = new URL(base).origin;
  const offsite = [];
  // Anything not for the service (or an inline data: URL) is recorded and refused.
  await context.route('**/*', (route) => {
    const u = route.request().url();
    if (u.startsWith(origin + '/') || u.startsWith('data:')) return route.continue();
    offsite.push(u);
    return route.abort();
  });
  context.on('request', (r) => {
    const u = new URL(r.url());
    if (u.protocol !== 'data:' && u.hostname !== '127.0.0.1') offsite.push(r.url());
  });
  const page = context.pages()[0] || (await context.newPage());
  // The page works under its Content-Security-Policy: Chromium reports no violation.
  const violations = [];
  page.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
  });

  // 1. The default page.
  let res = await page.goto(base + '/', { waitUntil: 'load' });
  check(res && res.status() === 200, `GET / answered ${res && res.status()}`);
  check((await page.locator('form[action="/report"]').count()) === 1, 'GET / has no form');
  check((await page.locator('#comparison').count()) === 1, 'GET / has no comparison table');

  // 2. Submit the form with another GPU count.
  const gpus = '2048';
  await page.fill('#f-gpus', gpus);
  await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('form[action="/report"] button[type=submit]')]);
  const url = new URL(page.url());
  check(url.pathname === '/report', `the form went to ${url.pathname}`);
  check(url.searchParams.get('gpus') === gpus, `the submitted URL has gpus=${url.searchParams.get('gpus')}`);
  check((await page.locator('h2#rec-title').innerText()).includes('2,048 GPUs'), 'the heading does not say 2,048 GPUs');

  // 3. Every table figure equals the JSON plan's for the same parameters.
  const api = await page.request.get(base + '/v1/plans' + url.search);
  check(api.status() === 200, `GET /v1/plans${url.search} answered ${api.status()}`);
  const plan = await api.json();
  const cells = await page.$$eval('#comparison td[data-metric]', (tds) =>
    tds.map((td) => ({ metric: td.dataset.metric, fabric: td.dataset.fabric, value: td.dataset.value, text: td.textContent.trim() })));
  const fabrics = plan.fabrics.map((f) => f.fabric);
  const headers = await page.$$eval('#comparison thead th[data-fabric]', (ths) => ths.map((t) => t.dataset.fabric));
  check(JSON.stringify(headers) === JSON.stringify(fabrics), `table fabrics ${headers} ≠ plan fabrics ${fabrics}`);
  let compared = 0;
  for (const c of cells) {
    const f = plan.fabrics.find((x) => x.fabric === c.fabric);
    if (!f) { check(false, `table has fabric ${c.fabric} not in the plan`); continue; }
    if (c.metric.startsWith('per_gpu.')) {
      const total = Number(dig(f, c.metric.slice(8)));
      const want = Math.round((total / plan.inputs.gpus) * 100) / 100;
      check(Math.abs(Number(c.value) - want) < 0.0051, `${c.fabric} ${c.metric}: page ${c.value}, plan ${want}`);
    } else {
      const want = dig(f, c.metric);
      if (want == null) { check(c.value === '', `${c.fabric} ${c.metric}: page ${c.value}, plan null`); continue; }
      check(norm(c.value) === norm(want), `${c.fabric} ${c.metric}: page ${c.value}, plan ${want}`);
      if (c.metric.endsWith('_usd') && !c.metric.startsWith('cost_per_useful')) {
        check(c.text === dollars(want), `${c.fabric} ${c.metric}: page shows ${c.text}, plan ${dollars(want)}`);
      }
    }
    compared += 1;
  }
  check(compared >= 10 * fabrics.length, `only ${compared} table figures compared`);
  const rec = await page.locator('.recommendation').innerText();
  check(!plan.comparison || rec.includes(plan.comparison.recommendation), 'the recommendation differs from the plan');
  const warnings = await page.$$eval('#warnings li', (lis) => lis.map((l) => l.textContent.trim()));
  check(JSON.stringify(warnings) === JSON.stringify(plan.warnings), 'the warnings differ from the plan');
  check((await page.textContent('body')).includes(plan.plan_id), 'the plan id is not on the page');

  // 4. Every image loaded.
  await page.waitForFunction(() => Array.from(document.images).every((i) => i.complete), null, { timeout: 30000 });
  const imgs = await page.$$eval('img', (is) => is.map((i) => ({ src: i.getAttribute('src'), w: i.naturalWidth })));
  check(imgs.length >= 3, `only ${imgs.length} images`);
  for (const i of imgs) check(i.w > 0, `image did not load: ${i.src}`);

  // 5. Artifacts: a screenshot and a printed PDF.
  await page.screenshot({ path: path.join(out, 'report.png'), fullPage: true });
  await page.screenshot({ path: path.join(out, 'report-top.png') });
  await page.emulateMedia({ media: 'print' });
  await page.pdf({ path: path.join(out, 'report.pdf'), format: 'A4', printBackground: true });
  await page.emulateMedia({ media: 'screen' });

  // 5b. The memo opens the page: the recommendation, at most three inputs that would change
  // it (in words, not dotted paths) and five reasons; printed, it fits two A4 pages (laid out
  // at the printable width, 210 mm less the 14 mm margins, measured against the printable
  // height).
  check((await page.locator('#memo').count()) === 1, 'the page has no memo');
  const memoText = await page.locator('#memo').innerText();
  check(!plan.comparison || memoText.includes(plan.comparison.recommendation), 'the memo does not carry the recommendation');
  check((await page.locator('#memo-drivers li').count()) <= 3, 'the memo names more than three inputs');
  check((await page.locator('#memo-reasons li').count()) <= 5, 'the memo gives more than five reasons');
  check(!/prices\.(list|overrides)\./.test(memoText), 'the memo names an input by its dotted path');
  const mm = 96 / 25.4;
  await page.setViewportSize({ width: Math.floor((210 - 28) * mm), height: 1000 });
  await page.emulateMedia({ media: 'print' });
  const memoHeight = await page.$eval('#memo', (e) => e.getBoundingClientRect().height);
  const printable = (297 - 28) * mm;
  check(memoHeight <= 2 * printable, `the memo prints on ${(memoHeight / printable).toFixed(2)} A4 pages (at most 2)`);
  console.log(`memo: ${(memoHeight / printable).toFixed(2)} A4 pages`);
  await page.emulateMedia({ media: 'screen' });
  await page.setViewportSize({ width: 1280, height: 900 });

  // 6. The uncertainty analysis: choose it in the form; the table equals the JSON analysis.
  await page.goto(base + '/', { waitUntil: 'load' });
  await page.selectOption('#f-uncertainty-samples', '1000');
  await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('form[action="/report"] button[type=submit]')]);
  const uurl = new URL(page.url());
  check(uurl.searchParams.get('uncertainty.samples') === '1000', `the submitted URL has uncertainty.samples=${uurl.searchParams.get('uncertainty.samples')}`);
  const uapi = await page.request.get(base + '/v1/plans' + uurl.search);
  check(uapi.status() === 200, `GET /v1/plans${uurl.search} answered ${uapi.status()}`);
  const uplan = await uapi.json();
  check(uplan.uncertainty && uplan.uncertainty.samples === 1000, 'the JSON plan has no 1,000-sample analysis');
  const ucells = await page.$$eval('#uncertainty tbody tr', (trs) => trs.map((tr) => ({
    fabric: tr.dataset.fabric,
    values: Object.fromEntries(Array.from(tr.querySelectorAll('td[data-metric]')).map((td) => [td.dataset.metric, td.dataset.value])),
  })));
  check(ucells.length === uplan.uncertainty.fabrics.length, `uncertainty table has ${ucells.length} rows, plan ${uplan.uncertainty.fabrics.length}`);
  let psum = 0;
  for (const r of ucells) {
    const f = uplan.uncertainty.fabrics.find((x) => x.fabric === r.fabric);
    if (!f) { check(false, `uncertainty row for ${r.fabric} not in the plan`); continue; }
    check(Number(r.values.probability_cheapest) === f.probability_cheapest, `${r.fabric} probability: page ${r.values.probability_cheapest}, plan ${f.probability_cheapest}`);
    for (const k of ['p5', 'p50', 'p95']) {
      check(norm(r.values['total_usd.' + k]) === norm(f.total_usd[k]), `${r.fabric} total ${k}: page ${r.values['total_usd.' + k]}, plan ${f.total_usd[k]}`);
    }
    check(norm(r.values.expected_regret_usd) === norm(f.expected_regret_usd), `${r.fabric} regret differs`);
    psum += Number(r.values.probability_cheapest);
  }
  check(Math.abs(psum - 1) < 1e-9, `probabilities sum to ${psum}`);
  await page.waitForFunction(() => Array.from(document.images).every((i) => i.complete), null, { timeout: 30000 });
  const tornado = await page.$$eval('#chart-tornado img', (is) => is.map((i) => i.naturalWidth));
  check(tornado.length === 1 && tornado[0] > 0, 'the tornado chart did not load');
  await page.screenshot({ path: path.join(out, 'report-uncertainty.png'), fullPage: true });

  // 7. Invalid input: an HTML page naming the problem, with a 4xx status.
  res = await page.goto(base + '/report?gpus=0', { waitUntil: 'load' });
  check(res.status() === 422, `/report?gpus=0 answered ${res.status()}`);
  check((res.headers()['content-type'] || '').startsWith('text/html'), 'the problem page is not HTML');
  check((await page.locator('.problem').innerText()).includes('gpus'), 'the problem page does not name gpus');
  check((await page.locator('form[action="/report"]').count()) === 1, 'the problem page has no form');

  check(offsite.length === 0, `requests left 127.0.0.1: ${offsite.join(', ')}`);
  check(violations.length === 0, `the report page broke its CSP: ${violations.join(' | ')}`);
  await context.close();
  fs.rmSync(profile, { recursive: true, force: true });

  // 8. Swagger UI under a host name other than localhost (mapped to 127.0.0.1): it renders the
  // operations under its Content-Security-Policy, "Try it out" reaches the service, and no
  // request leaves the host (no online validator badge).
  await swaggerUnderHostName(base);

  for (const f of failures) console.error('FAIL: ' + f);
  console.log(`browser: ${passed} passed, ${failures.length} failed`);
  console.log(`artifacts: ${path.join(out, 'report.png')}, ${path.join(out, 'report.pdf')}`);
  process.exit(failures.length ? 1 : 0);
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
