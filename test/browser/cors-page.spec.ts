/**
 * A page on another origin calling the API in headless Chromium (CORS_ORIGINS). Found by a probe: the
 * core is documented for browser agents, yet Chromium blocked every cross-origin call (no CORS headers;
 * preflights for Authorization and JSON bodies answered 405). The pages are served by small loopback
 * servers of their own; every call goes to the real API.
 */
import { createServer, type Server } from 'node:http';
import { type Browser, type Page } from 'playwright-core';
import { launchChromium } from '../support/chromium.js';
import { mintAndLogin } from '../support/passports.js';
import { freePort, startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
let browser: Browser;
/** Two page origins on loopback, like the API (a browser keeps public pages off loopback addresses). */
let allowedOrigin: string;
let otherOrigin: string;
const pageServers: Server[] = [];

async function servePage(): Promise<string> {
  const port = await freePort();
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>agent</title>');
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  pageServers.push(server);
  return `http://127.0.0.1:${port}`;
}

beforeAll(async () => {
  [allowedOrigin, otherOrigin] = [await servePage(), await servePage()];
  t = await startTestApp({ STORE: 'memory', CORS_ORIGINS: allowedOrigin });
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await t?.close();
  for (const server of pageServers) server.close();
});

/** A blank page served from `origin`. */
async function pageAt(origin: string): Promise<Page> {
  const page = await browser.newPage();
  await page.goto(`${origin}/`);
  return page;
}

type Outcome = { status: number; requestId: string | null; code?: string } | { failed: string };

const callApi = (page: Page, api: string, jwt: string) =>
  page.evaluate(
    async ({ api, jwt }) => {
      const run = async (input: string, init: RequestInit): Promise<Outcome> => {
        try {
          const res = await fetch(input, init);
          const body = (await res.json()) as { error?: { code: string } };
          return { status: res.status, requestId: res.headers.get('x-request-id'), code: body.error?.code };
        } catch (error) {
          return { failed: String(error) };
        }
      };
      return {
        // Authorization makes this a preflighted request.
        me: await run(`${api}/api/me/identity`, { headers: { authorization: `Bearer ${jwt}` } }),
        // So does a JSON body; the 400 is readable too.
        verify: await run(`${api}/api/identity/verify`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ hola: 'x' }),
        }),
      };
    },
    { api, jwt },
  );

it('an allowed origin calls JWT routes and posts JSON, and reads X-Request-Id', async () => {
  const { jwt } = await mintAndLogin(t);
  const page = await pageAt(allowedOrigin);
  const result = await callApi(page, t.baseUrl, jwt);
  expect(result.me).toEqual({ status: 200, requestId: expect.stringMatching(/\S/), code: undefined });
  expect(result.verify).toEqual({
    status: 400,
    requestId: expect.stringMatching(/\S/),
    code: 'HOLA_VALIDATION_FAILED',
  });
  await page.close();
}, 60_000);

it('another origin is blocked by the browser', async () => {
  const { jwt } = await mintAndLogin(t);
  const page = await pageAt(otherOrigin);
  const result = await callApi(page, t.baseUrl, jwt);
  expect(result.me).toEqual({ failed: expect.stringContaining('Failed to fetch') });
  expect(result.verify).toEqual({ failed: expect.stringContaining('Failed to fetch') });
  await page.close();
}, 60_000);
