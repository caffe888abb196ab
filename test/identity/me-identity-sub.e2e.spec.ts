/**
 * Spec: "GET /api/me/identity: 400 IDENTITY_SUB_MISSING when the JWT lacks sub or it is unparsable".
 * Tokens the server's own key signs (only it can make one the JWT tier takes), differing from an issued
 * token in `sub` alone. A conformance audit: a token without `sub` was 401 INVALIDATED_TOKEN
 * (`invalid_claims`: the codec required the claim), while one with `sub: null` was 400 as the spec says.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseNearCredentials } from '@passport/core/credentials';
import { createNodeSigner } from '@passport/core/node';
import { bearer, mintAndLogin } from '../support/passports.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

describe('GET /api/me/identity with a token whose sub is missing or unparsable', () => {
  let app: TestApp;
  let claims: Record<string, unknown>;
  let resign: (claims: Record<string, unknown>) => string;

  beforeAll(async () => {
    app = await startTestApp({ STORE: 'memory' });
    const { jwt } = await mintAndLogin(app);
    const signer = createNodeSigner(
      parseNearCredentials(await readFile(path.join(app.dataDir, 'keys', 'server.json'), 'utf8')).secretSeed,
    );
    const [header, payload] = jwt.split('.') as [string, string];
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    resign = (changed) => {
      const body = Buffer.from(JSON.stringify(changed)).toString('base64url');
      return `${header}.${body}.${Buffer.from(signer.sign(Buffer.from(`${header}.${body}`))).toString('base64url')}`;
    };
  });
  afterAll(() => app.close());

  const identity = async (token: string) => {
    const res = await fetch(`${app.baseUrl}/api/me/identity`, { headers: bearer(token) });
    return { status: res.status, code: ((await res.json()) as { error?: { code: string } }).error?.code };
  };

  it('the token as issued is served (the re-signing changes nothing else)', async () => {
    expect(await identity(resign(claims))).toEqual({ status: 200, code: undefined });
  });

  it.each([
    ['null', null],
    ['unparsable', 'garbage'],
    ['another service provider only', 'bc=local;sc=x'],
  ])('sub %s → 400 IDENTITY_SUB_MISSING', async (_label, sub) => {
    expect(await identity(resign({ ...claims, sub }))).toEqual({ status: 400, code: 'IDENTITY_SUB_MISSING' });
  });

  it('no sub at all → 400 IDENTITY_SUB_MISSING', async () => {
    const { sub: _sub, ...withoutSub } = claims;
    expect(await identity(resign(withoutSub))).toEqual({ status: 400, code: 'IDENTITY_SUB_MISSING' });
  });
});
