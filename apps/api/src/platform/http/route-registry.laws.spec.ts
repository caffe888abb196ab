/**
 * Property laws of the route registry (405 with Allow versus 404): for any set of route patterns and any
 * request target, the methods `allowedMethods` lists are exactly those Fastify's own router (find-my-way,
 * default options, as the app uses) routes that target to. The router is the oracle.
 */
import fc from 'fast-check';
import Fastify from 'fastify';
import { request } from 'node:http';
import { RouteRegistry, patternToRegex, routablePath } from './route-registry.js';

const METHODS = ['GET', 'POST', 'DELETE', 'PUT'] as const;
const patternSegment = fc.constantFrom('api', 'a', 'b.c', ':id', ':other', 'x-y');
const pattern = fc
  .tuple(fc.array(patternSegment, { minLength: 1, maxLength: 3 }), fc.boolean())
  // Parameter names are unique in a pattern (as in the app's routes): named after their position.
  .map(
    ([segments, star]) =>
      '/' +
      [...segments.map((s, i) => (s.startsWith(':') ? `${s}${i}` : s)), ...(star ? ['*'] : [])].join('/'),
  );
const routes = fc.uniqueArray(fc.record({ url: pattern, method: fc.constantFrom(...METHODS) }), {
  minLength: 1,
  maxLength: 6,
  selector: (r) => `${r.method} ${r.url.replace(/:[a-z]+/g, ':p')}`,
});
const targetSegment = fc.constantFrom(
  'api',
  'a',
  'b.c',
  'bxc',
  'x-y',
  '%61',
  '%2F',
  'a%2Fb',
  '',
  '.',
  '..',
  'z',
  '%C3%A9',
  '%2e',
  '%2E%2E',
  '%3F',
); // malformed escapes and raw non-ASCII are 400 in the app, before routing
const target = fc
  .tuple(
    fc.array(targetSegment, { minLength: 1, maxLength: 4 }),
    fc.constantFrom('', '?q=1', '#frag', '/', '?/a'),
    fc.constantFrom('', 'http://h.example'),
  )
  // An absolute-form target with a fragment is 400 INVALID_URL in the app, before any routing.
  .filter(([, suffix, origin]) => !(origin !== '' && suffix.includes('#')))
  .map(([segments, suffix, origin]) => origin + '/' + segments.join('/') + suffix);

const PORT = 41151;
/**
 * find-my-way gives a parameter an empty value (`/:id` routes `/`); every handler of the app answers such
 * a request 404 ENDPOINT_NOT_FOUND (an empty token id, asset or URI names nothing), so a path is routed
 * to a method only with non-empty parameters, and for the other methods 404 is then the right answer.
 */
const routedUnlessEmpty = (params: unknown) =>
  Object.entries(params as Record<string, string>).some(([k, v]) => k !== '*' && v === '')
    ? 'empty parameter'
    : 'routed';
/** The raw target on the wire (fetch would normalise it), as a client sends it. */
const send = (method: string, path: string) =>
  new Promise<string>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: PORT, method, path, agent: false }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve(body));
    });
    req.on('error', reject);
    req.end();
  });

describe('route registry laws', () => {
  it('oracle: allowedMethods(target) is the set of methods Fastify routes the target to', async () => {
    await fc.assert(
      fc.asyncProperty(routes, fc.array(target, { minLength: 1, maxLength: 8 }), async (rs, targets) => {
        const app = Fastify();
        const registry = new RouteRegistry();
        app.addHook('onRoute', (r) => registry.add({ method: r.method, url: r.url }));
        // find-my-way refuses two parameter names at one place; such sets are not routable at all.
        try {
          for (const r of rs)
            app.route({
              method: r.method,
              url: r.url,
              handler: async (req) => routedUnlessEmpty(req.params),
            });
          await app.listen({ host: '127.0.0.1', port: PORT });
        } catch {
          await app.close();
          return;
        }
        try {
          for (const t of targets) {
            const routed: string[] = [];
            let empty = false;
            for (const m of METHODS) {
              const answer = await send(m, t);
              if (answer === 'routed') routed.push(m);
              empty ||= answer === 'empty parameter';
            }
            // An empty parameter shadows a wildcard beside it; the app has no such pair of routes.
            if (empty) continue;
            const listed = registry
              .allowedMethods(t)
              .filter((m) => (METHODS as readonly string[]).includes(m));
            expect({ target: t, methods: listed }).toEqual({ target: t, methods: routed.sort() });
          }
        } finally {
          await app.close();
        }
      }),
      { numRuns: 150 },
    );
  });

  it('patternToRegex matches a literal pattern exactly itself, and routablePath drops query and fragment', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('a', 'b.c', 'x+y', '(z)', '$'), { minLength: 1, maxLength: 4 }),
        fc.string({ maxLength: 6 }),
        (segments, rest) => {
          const url = '/' + segments.join('/');
          expect(patternToRegex(url).test(url)).toBe(true);
          expect(patternToRegex(url).test(url + '/')).toBe(false);
          expect(routablePath(url + '?' + rest)).toBe(url);
          expect(routablePath(url + '#' + rest)).toBe(url);
        },
      ),
    );
  });
});
