// Swagger UI's "Try it out" on every operation of the OpenAPI document, in real headless
// Chromium (issue #43: "every operation's example runs 200 from Swagger's Try it out").
//
// Usage: node .ci/swagger.cjs BASE_URL KEY ARTIFACT_DIR   (PW_DIR: where playwright-core is)
//
// For each operation, in the document's order (deletions last): expand it, "Try it out",
// fill only what no example can hold — the id of a saved scenario (made beforehand through the
// API with KEY, a write key), its current ETag for If-Match, the key (through the "Authorize"
// dialog, and in the report page's forms) — and "Execute". Every other field runs with the example Swagger UI
// pre-filled from the document. The answer's status must be 2xx. Prints one line an operation
// and exits 1 when any answered otherwise.
const path = require('path');
const { chromium } = require(require.resolve('playwright-core', { paths: [process.env.PW_DIR || '.'] }));

const [base, key, artifacts] = process.argv.slice(2);
if (!base || !key) {
  console.error('usage: node .ci/swagger.cjs BASE_URL KEY [ARTIFACT_DIR]');
  process.exit(2);
}
const auth = { Authorization: `Bearer ${key}` };

async function api(method, url, body) {
  const res = await fetch(base + url, {
    method,
    headers: { ...auth, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${text.slice(0, 200)}`);
  return { json: text ? JSON.parse(text) : null, etag: res.headers.get('etag') };
}

// A scenario of its own for each operation that names one, so that a deletion or a new
// revision never changes what a later operation reads.
async function scenario(name) {
  const made = await api('POST', '/v1/scenarios', { name, tags: ['swagger'], request: { gpus: 1024 } });
  return made.json.id;
}

async function currentEtag(id) {
  return (await api('GET', `/v1/scenarios/${id}`)).etag;
}

// A parameter's field, or a form body's.
async function fill(op, name, value) {
  const row = op.locator(`tr[data-param-name="${name}"], tr[data-property-name="${name}"]`).first();
  await row.locator('input, textarea').first().fill(value);
}

(async () => {
  const doc = await (await fetch(base + '/openapi.json')).json();
  const ops = [];
  for (const [p, item] of Object.entries(doc.paths)) {
    for (const m of ['get', 'post', 'put', 'delete']) {
      if (item[m]) ops.push({ method: m, path: p, op: item[m] });
    }
  }
  ops.sort((a, b) => (a.method === 'delete') - (b.method === 'delete'));

  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu'],
  });
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  const offsite = [];
  page.on('request', (r) => {
    const u = r.url();
    if (!u.startsWith(base) && !u.startsWith('data:')) offsite.push(u);
  });
  await page.goto(base + '/swagger-ui/', { waitUntil: 'load' });
  await page.locator('.opblock').first().waitFor({ timeout: 15000 });

  // The key, through the "Authorize" dialog as a user gives it.
  await page.locator('.auth-wrapper button.authorize').click();
  await page.locator('.modal-ux input').first().fill(key);
  await page.locator('.modal-ux .auth-btn-wrapper button.authorize').click();
  await page.locator('.modal-ux .auth-btn-wrapper button.btn-done, .modal-ux button.close-modal').first().click();

  const failures = [];
  for (const { method, path: p, op } of ops) {
    const label = `${method.toUpperCase()} ${p}`;
    const block = page.locator(`.opblock-${method}`, {
      has: page.locator(`.opblock-summary-path[data-path="${p}"]`),
    }).first();
    try {
      await block.scrollIntoViewIfNeeded();
      if (!(await block.locator('.opblock-body').count())) {
        await block.locator('.opblock-summary-control, .opblock-summary').first().click();
      }
      await block.locator('button.try-out__btn').click();
      const params = (op.parameters || []).map((x) => x.name);
      if (p.startsWith('/v1/scenarios/{id}')) {
        const id = await scenario(`swagger ${label}`);
        await fill(block, 'id', id);
        if (params.includes('If-Match')) await fill(block, 'If-Match', await currentEtag(id));
      }
      if (p === '/v1/diff') {
        await fill(block, 'from', await scenario('swagger diff from'));
        await fill(block, 'to', await scenario('swagger diff to'));
      }
      if (p === '/report/open' || p === '/report/compare') {
        await fill(block, '_scenario', await scenario(`swagger ${label}`));
      }
      if (p.startsWith('/report/')) await fill(block, '_key', key);
      await block.locator('button.execute').click();
      const cell = block.locator('.live-responses-table tbody .response-col_status').first();
      await cell.waitFor({ timeout: 30000 });
      const status = (await cell.innerText()).trim();
      const ok = /^2\d\d/.test(status);
      console.log(`${ok ? 'ok  ' : 'FAIL'} ${label}: ${status}`);
      if (!ok) {
        const body = await block.locator('.live-responses-table tbody .response-col_description').first().innerText();
        failures.push(`${label}: ${status} ${body.slice(0, 300).replace(/\s+/g, ' ')}`);
      }
      await block.locator('.opblock-summary-control, .opblock-summary').first().click();
    } catch (e) {
      console.log(`FAIL ${label}: ${e.message.split('\n')[0]}`);
      failures.push(`${label}: ${e.message.split('\n')[0]}`);
    }
  }
  if (artifacts) await page.screenshot({ path: path.join(artifacts, 'swagger.png'), fullPage: false });
  await browser.close();
  if (offsite.length) failures.push(`requests off the host: ${offsite.join(', ')}`);
  console.log(`Swagger "Try it out": ${ops.length - failures.length} of ${ops.length} operations answered 2xx`);
  for (const f of failures) console.log(`  ${f}`);
  process.exit(failures.length ? 1 : 0);
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
