/**
 * `/docs` in headless Chromium: the Swagger UI page loads only from this server (no CDN: every other
 * host is blocked) and renders the operations of the served OpenAPI document.
 */
import { createServer, request as httpRequest } from 'node:http';
import { type AddressInfo } from 'node:net';
import { type Browser } from 'playwright-core';
import { launchChromium } from '../support/chromium.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
let browser: Browser;
beforeAll(async () => {
  t = await startTestApp({ STORE: 'memory' });
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

it('renders the operations of /openapi.json, offline', async () => {
  const page = await browser.newPage();
  const foreign: string[] = [];
  await page.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.origin === t.baseUrl) return route.continue();
    foreign.push(url.href);
    return route.abort();
  });
  const pageErrors: string[] = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));
  const refused: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) refused.push(message.text());
  });

  const response = await page.goto(`${t.baseUrl}/docs`);
  expect(response?.status()).toBe(200);
  // Found by a probe: the portal had no CSP and could be framed.
  expect(response?.headers()).toMatchObject({
    'content-security-policy': expect.stringContaining(`connect-src 'self' ${t.baseUrl};`),
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
  });
  await page.waitForSelector('.opblock-summary-path', { timeout: 30_000 });

  const document = (await (await fetch(`${t.baseUrl}/openapi.json`)).json()) as {
    paths: Record<string, object>;
    info: { title: string };
  };
  const shown = await page.$$eval('.opblock-summary-path, .opblock-summary-path__deprecated', (nodes) =>
    nodes.map((n) => n.getAttribute('data-path') ?? n.textContent?.trim() ?? ''),
  );
  for (const path of [
    '/health',
    '/api/login/timestamp',
    '/.well-known/enrollment',
    '/api/concierge/trust-anchor',
  ]) {
    expect(shown).toContain(path);
  }
  expect(new Set(shown)).toEqual(new Set(Object.keys(document.paths)));
  expect(await page.textContent('.title')).toContain(document.info.title);
  // "Try it out" calls this origin under the policy: GET /health executes and shows its answer.
  const health = page.locator('#operations-health-get_health, [id^="operations-"][id$="health"]').first();
  await health.locator('.opblock-summary').click();
  await health.locator('button.try-out__btn').click();
  await health.locator('button.execute').click();
  await health.locator('.live-responses-table tbody .response-col_status').first().waitFor();
  expect(
    await health.locator('.live-responses-table tbody .response-col_status').first().textContent(),
  ).toContain('200');
  expect(foreign).toEqual([]);
  expect(pageErrors).toEqual([]);
  expect(refused).toEqual([]);
  await page.close();
}, 60_000);

// Found by a probe: behind a proxy's path prefix (PUBLIC_BASE_URL with a path) the page asked for its
// files and the document at the origin's root, and got 404s; and on any host but localhost Swagger UI
// showed its online validator's badge, an image the CSP refused (and which sends the document's URL away).
it('works behind a path prefix on a host other than localhost: every request stays under the prefix', async () => {
  let appPort = 0;
  const proxy = createServer((req, res) => {
    if (!req.url?.startsWith('/prefix/')) {
      res.writeHead(404).end();
      return;
    }
    const forwarded = httpRequest(
      {
        host: '127.0.0.1',
        port: appPort,
        method: req.method,
        path: req.url.slice('/prefix'.length),
        headers: req.headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forwarded.on('error', () => res.destroy());
    req.pipe(forwarded);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.2', resolve));
  const origin = `http://127.0.0.2:${(proxy.address() as AddressInfo).port}`;
  const behind = await startTestApp({ STORE: 'memory', PUBLIC_BASE_URL: `${origin}/prefix` });
  appPort = Number(new URL(behind.baseUrl).port);
  const page = await browser.newPage();
  try {
    const elsewhere: string[] = [];
    await page.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith(`${origin}/prefix/`)) return route.continue();
      elsewhere.push(url);
      return route.abort();
    });
    const failed: string[] = [];
    page.on('response', (response) => {
      if (response.status() >= 400) failed.push(`${response.status()} ${response.url()}`);
    });
    // The validator's badge is refused by the CSP before it reaches the route above.
    const refused: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to|violates/i.test(message.text())) refused.push(message.text());
    });
    expect((await page.goto(`${origin}/prefix/docs`))?.status()).toBe(200);
    await page.waitForSelector('.opblock-summary-path', { timeout: 30_000 });
    expect(await page.$$eval('.opblock-summary-path', (nodes) => nodes.length)).toBeGreaterThan(10);
    await page.waitForLoadState('networkidle');
    expect(elsewhere).toEqual([]);
    expect(failed).toEqual([]);
    expect(refused).toEqual([]);
    // The deprecated document path moves to the document under the prefix.
    const moved = await fetch(`${origin}/prefix/api/v1/openapi.json`, { redirect: 'manual' });
    expect(moved.status).toBe(301);
    expect(moved.headers.get('location')).toBe('/prefix/openapi.json');
  } finally {
    await page.close();
    await behind.close();
    await new Promise((resolve) => proxy.close(resolve));
  }
}, 60_000);
