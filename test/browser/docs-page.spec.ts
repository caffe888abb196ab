/**
 * `/docs` in headless Chromium: the Swagger UI page loads only from this server (no CDN: every other
 * host is blocked) and renders the operations of the served OpenAPI document.
 */
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
