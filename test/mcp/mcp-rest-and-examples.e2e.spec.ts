/**
 * The REST side of the MCP documentation and the documentation's own examples: every fenced `http`
 * / `curl` example in apps/api/resources names a method and path of the served OpenAPI document,
 * and the GET examples that need no credentials answer as stated when sent to the started app.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RESOURCE_MANIFEST } from '../../apps/api/src/mcp/mcp-resource.manifest.js';
import { contractClient } from '../support/contract-fetch.js';
import { startTestApp as startMcpTestApp, type TestApp as McpTestApp } from '../support/test-app.js';

const RESOURCES = fileURLToPath(new URL('../../apps/api/resources/', import.meta.url));

interface Example {
  readonly file: string;
  readonly method: string;
  readonly target: string;
  readonly expect: number | null;
  readonly authorized: boolean;
}

function markdownFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? markdownFiles(path) : path.endsWith('.md') ? [path] : [];
  });
}

/** Fenced ```http [expect=NNN] blocks (first line `METHOD /path`) and ```curl blocks against $PASSPORT_API. */
function examplesOf(file: string): Example[] {
  const text = readFileSync(file, 'utf8');
  const examples: Example[] = [];
  for (const match of text.matchAll(/^([ \t]*)```(http|curl)([^\n]*)\n([\s\S]*?)^\1```/gm)) {
    const [, , kind, info, body] = match;
    const expectMatch = /expect=(\d{3})/.exec(info);
    const expected = expectMatch ? Number(expectMatch[1]) : null;
    const authorized = /authorization:/i.test(body);
    if (kind === 'http') {
      const first = /^\s*([A-Z]+) (\S+)/.exec(body);
      if (!first) throw new Error(`${file}: http block without a request line`);
      examples.push({ file, method: first[1], target: first[2], expect: expected, authorized });
    } else {
      const url = /"?\$PASSPORT_API(\/[^\s"]*)"?/.exec(body);
      if (!url) throw new Error(`${file}: curl block without $PASSPORT_API`);
      const method =
        /(?:-X|--request)\s+([A-Z]+)/.exec(body)?.[1] ?? (/\s(-d|--data)/.test(body) ? 'POST' : 'GET');
      examples.push({ file, method, target: url[1], expect: expected, authorized });
    }
  }
  return examples;
}

const EXAMPLES = markdownFiles(RESOURCES).flatMap(examplesOf);
const pathOf = (target: string) => target.split('?')[0];
const hasPlaceholder = (target: string) => /[<>{}]/.test(target);

/** True when an OpenAPI path template (`/a/{b}`) matches a concrete or `<placeholder>` path. */
function matchesTemplate(template: string, path: string): boolean {
  const t = template.split('/');
  const p = path.split('/');
  return (
    t.length === p.length &&
    t.every((segment, i) => (/^\{[^}]+\}$/.test(segment) ? p[i] !== '' : segment === p[i]))
  );
}

describe('MCP documentation over REST and its examples', () => {
  let t: McpTestApp;
  let openapi: { paths: Record<string, Record<string, unknown>> };
  beforeAll(async () => {
    t = await startMcpTestApp();
    openapi = (await (await fetch(`${t.baseUrl}/openapi.json`)).json()) as typeof openapi;
  });
  afterAll(async () => t.close());

  it('finds examples in the documents (the convention is in use)', () => {
    expect(EXAMPLES.length).toBeGreaterThan(40);
    expect(new Set(EXAMPLES.map((e) => e.file)).size).toBeGreaterThanOrEqual(10);
  });

  it('documents the MCP REST routes and /mcp in the served OpenAPI document', () => {
    expect(Object.keys(openapi.paths)).toEqual(
      expect.arrayContaining(['/api/mcp/resources', '/api/mcp/resource/{uri}', '/api/mcp/schema', '/mcp']),
    );
    expect(Object.keys(openapi.paths['/mcp']).sort()).toEqual(['delete', 'get', 'post']);
  });

  it('serves the same OpenAPI document at /api/mcp/schema and as openapi:swagger', async () => {
    const schema = await (await fetch(`${t.baseUrl}/api/mcp/schema`)).json();
    const resource = await (await fetch(`${t.baseUrl}/api/mcp/resource/openapi:swagger`)).json();
    expect(schema).toEqual(openapi);
    expect(resource).toEqual(openapi);
  });

  // Checked against the served OpenAPI document too (a review: its 200 named no media type, so a
  // contract-checking client refused every answer).
  it('serves markdown as text/markdown and JSON resources as JSON, both as the OpenAPI document says', async () => {
    const request = contractClient(t.baseUrl);
    const md = await request('/api/mcp/resource/guide:api');
    expect(md.headers.get('content-type')).toMatch(/^text\/markdown/);
    expect(md.text).toMatch(/^# API guide/);
    const json = await request('/api/mcp/resource/token:facial-categories');
    expect(json.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('answers an unknown URI with 404 MCP_RESOURCE_NOT_FOUND and details.uri in the app envelope', async () => {
    const response = await fetch(`${t.baseUrl}/api/mcp/resource/doc:reference:nothing`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      error: {
        code: 'MCP_RESOURCE_NOT_FOUND',
        message: expect.any(String),
        details: { uri: 'doc:reference:nothing' },
      },
      requestId: expect.any(String),
      timestamp: expect.any(String),
    });
  });

  it('decodes a percent-encoded colon to the same URI', async () => {
    const plain = await (await fetch(`${t.baseUrl}/api/mcp/resource/doc:skills`)).text();
    const encoded = await (await fetch(`${t.baseUrl}/api/mcp/resource/doc%3Askills`)).text();
    expect(encoded).toBe(plain);
  });

  it.each(['limit=0', 'limit=101', 'limit=abc', 'cursor=-1', 'cursor=x'])(
    'GET /api/mcp/resources?%s is 400 INVALID_QUERY_PARAMETER',
    async (query) => {
      const response = await fetch(`${t.baseUrl}/api/mcp/resources?${query}`);
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe(
        'INVALID_QUERY_PARAMETER',
      );
    },
  );

  it('pages /api/mcp/resources with nextCursor until it is absent', async () => {
    const seen: string[] = [];
    let cursor: string | undefined = undefined;
    do {
      const page = (await (
        await fetch(`${t.baseUrl}/api/mcp/resources?limit=4${cursor ? `&cursor=${cursor}` : ''}`)
      ).json()) as {
        resources: Array<{ uri: string; name: string; type: string }>;
        nextCursor?: string;
      };
      for (const r of page.resources) expect(Object.keys(r).sort()).toEqual(['name', 'type', 'uri']);
      seen.push(...page.resources.map((r) => r.uri));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    expect(seen).toEqual(RESOURCE_MANIFEST.map((spec) => spec.uri));
    expect(new Set(seen).size).toBe(seen.length);
  });

  it.each(EXAMPLES.map((e) => [`${e.method} ${e.target}`, e.file.slice(RESOURCES.length), e] as const))(
    'example %s (%s) names an operation of the OpenAPI document',
    (_label, _file, example) => {
      const path = pathOf(example.target);
      const template = Object.keys(openapi.paths).find((candidate) => matchesTemplate(candidate, path));
      expect({ example: `${example.method} ${path}`, template }).toEqual({
        example: `${example.method} ${path}`,
        template: expect.any(String),
      });
      expect(Object.keys(openapi.paths[template as string])).toContain(example.method.toLowerCase());
    },
  );

  const runnable = EXAMPLES.filter((e) => e.method === 'GET' && !e.authorized && !hasPlaceholder(e.target));
  it.each(runnable.map((e) => [e.target, e.file.slice(RESOURCES.length), e] as const))(
    'GET %s (%s) answers as documented',
    async (_t, _f, example) => {
      const response = await fetch(`${t.baseUrl}${example.target}`);
      await response.arrayBuffer();
      if (example.expect === null)
        expect({
          target: example.target,
          status2xx: response.status >= 200 && response.status < 300,
          status: response.status,
        }).toMatchObject({ status2xx: true });
      else expect(response.status).toBe(example.expect);
    },
  );
});
