/**
 * (A probe of the backend team's experience: a new route's codes never reached this table, and six
 * routes' had not.) The errors reference (`apps/api/resources/reference/errors.md`, served as the MCP resource
 * `doc:reference:errors`) has a "Codes by endpoint" table. Every code an operation of the served OpenAPI
 * document lists, beyond the cross-cutting ones every operation lists, must appear in that reference,
 * or an agent reading it cannot know the code exists.
 */
import { readFile } from 'node:fs/promises';
import { startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
let document: { paths: Record<string, Record<string, { responses?: Record<string, unknown> }>> };

beforeAll(async () => {
  t = await startTestApp({ STORE: 'memory' });
  document = await (await fetch(`${t.baseUrl}/openapi.json`)).json();
});
afterAll(() => t.close());

function codesOf(response: unknown): Set<string> {
  const codes = new Set<string>();
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node && typeof node === 'object') {
      for (const [key, value] of Object.entries(node)) {
        if (key !== 'enum' || !Array.isArray(value)) {
          walk(value);
          continue;
        }
        for (const v of value) if (typeof v === 'string' && /^[A-Z][A-Z0-9_]+\*?$/.test(v)) codes.add(v);
      }
    }
  };
  walk(response);
  return codes;
}

it('lists every code an operation documents (cross-cutting codes aside)', async () => {
  const reference = await readFile(
    new URL('../../apps/api/resources/reference/errors.md', import.meta.url),
    'utf8',
  );
  const perOperation: Array<{ operation: string; codes: Set<string> }> = [];
  for (const [path, methods] of Object.entries(document.paths))
    for (const [method, op] of Object.entries(methods)) {
      const codes = new Set<string>();
      for (const [status, response] of Object.entries(op.responses ?? {}))
        for (const code of codesOf(response)) codes.add(`${status} ${code}`);
      perOperation.push({ operation: `${method.toUpperCase()} ${path}`, codes });
    }
  const everywhere = [...perOperation[0].codes].filter((c) => perOperation.every((o) => o.codes.has(c)));
  const missing: string[] = [];
  for (const { operation, codes } of perOperation)
    for (const entry of codes) {
      if (everywhere.includes(entry)) continue;
      const code = entry.split(' ')[1].replace(/_?\*$/, '');
      if (!reference.includes(code)) missing.push(`${operation} ${entry}`);
    }
  expect(missing).toEqual([]);
});
