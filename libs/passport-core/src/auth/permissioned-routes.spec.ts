import fc from 'fast-check';
import { isRouteAllowed, isRouteGranted, parsePermissionedRoutes } from './permissioned-routes.js';

const routes = JSON.stringify({ entities: { methods: { '/api/sessions': '10', '/api/metrics': '5' } } });

describe('permissioned routes', () => {
  it('allows exactly the listed paths', () => {
    expect(isRouteAllowed(routes, '/api/sessions')).toBe(true);
    expect(isRouteAllowed(routes, '/api/metrics')).toBe(true);
    expect(parsePermissionedRoutes(routes)?.get('/api/sessions')).toBe('10');
  });
  it.each([
    '/api/sessions/',
    '/api/sessions/list_all',
    '/API/SESSIONS',
    '/api',
    '',
    'toString',
    '__proto__',
    'constructor',
  ])('refuses %j', (path) => {
    expect(isRouteAllowed(routes, path)).toBe(false);
  });
  it.each([
    ['no value', null],
    ['empty text', ''],
    ['malformed JSON', '{"entities":'],
    ['no entities', '{"methods":{"/api/sessions":"1"}}'],
    ['methods as a list', '{"entities":{"methods":["/api/sessions"]}}'],
    ['entities null', '{"entities":null}'],
    ['a JSON string', '"/api/sessions"'],
  ])('grants nothing for %s', (_name, value) => {
    expect(isRouteAllowed(value, '/api/sessions')).toBe(false);
  });
  it('never throws, whatever the claim holds (property)', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string(), fc.json()),
        fc.string(),
        (value, path) => typeof isRouteAllowed(value, path) === 'boolean',
      ),
    );
  });
});

describe('isRouteGranted', () => {
  const local = { claimed: routes, onChain: routes, federated: false };

  it('needs the claim and the passport as the chain holds it now, both', () => {
    expect(isRouteGranted(local, '/api/metrics')).toBe(true);
    const withdrawn = JSON.stringify({ entities: { methods: { '/api/sessions': '10' } } });
    expect(isRouteGranted({ ...local, onChain: withdrawn }, '/api/metrics')).toBe(false);
    expect(isRouteGranted({ ...local, claimed: withdrawn }, '/api/metrics')).toBe(false);
    expect(isRouteGranted({ ...local, onChain: undefined }, '/api/metrics')).toBe(false);
    expect(isRouteGranted({ ...local, claimed: 42 }, '/api/metrics')).toBe(false);
  });

  it('grants an alias by its main route, and nothing through an inherited name', () => {
    expect(isRouteGranted(local, '/api/sessions/list_all')).toBe(true);
    expect(isRouteGranted(local, '/api/sessions/cleanup')).toBe(false);
    expect(isRouteGranted(local, '__proto__')).toBe(false);
    expect(isRouteGranted(local, 'constructor')).toBe(false);
  });

  it('a federated session holds no privilege, whatever its routes', () => {
    expect(isRouteGranted({ ...local, federated: true }, '/api/metrics')).toBe(false);
  });
});
