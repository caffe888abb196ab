/**
 * The did:passport endpoints over real HTTP: errors first (INVALID_DID, DID_NOT_FOUND), then
 * documents read through a `did-resolver` Resolver whose `passport` method calls this API (HTTP
 * status → DID Core resolution error), and the key in each document verifies a signature made by the
 * passport owner — and stops doing so once the passport is transferred.
 */
import { Resolver, parse as parseDidUrl, type DIDResolutionResult } from 'did-resolver';
import { createNobleVerifier, decodeBase58, randomFaceTokenId, utf8 } from '@passport/core';
import { cryptoRandomInt } from '@passport/core/token-id';
import { updateLedgerFile } from '@passport/adapters/ledger';
import { contractClient } from '../support/contract-fetch.js';
import { expectErrorEnvelope } from '../support/error-envelope.expect.js';
import { addNamedAccount, ledgerFileOf, mintPassport, newKey } from '../support/passports.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/** A did-resolver method backed by GET /.well-known/did/resolve of this API. */
function httpPassportResolver(baseUrl: string) {
  return new Resolver({
    passport: async (did): Promise<DIDResolutionResult> => {
      const res = await fetch(`${baseUrl}/.well-known/did/resolve?did=${encodeURIComponent(did)}`);
      const body = (await res.json()) as Record<string, any>;
      if (res.status !== 200) {
        const error = res.status === 400 ? 'invalidDid' : res.status === 404 ? 'notFound' : 'internalError';
        return { didResolutionMetadata: { error }, didDocument: null, didDocumentMetadata: {} };
      }
      const { requestId: _requestId, ...didDocument } = body;
      return {
        didResolutionMetadata: { contentType: 'application/did+json' },
        didDocument: didDocument as DIDResolutionResult['didDocument'],
        didDocumentMetadata: {},
      };
    },
  });
}

describe('did:passport endpoints', () => {
  let app: TestApp;
  let request: ReturnType<typeof contractClient>;
  let resolver: Resolver;

  beforeAll(async () => {
    app = await startTestApp({ STORE: 'memory' });
    request = contractClient(app.baseUrl);
    resolver = httpPassportResolver(app.baseUrl);
  });
  afterAll(() => app.close());

  describe('errors', () => {
    it.each([
      ['', 'not_a_did'],
      ['did:web:example.com', 'unsupported_method'],
      ['did:passport:short', 'invalid_token_id'],
      ['did:passport:bjbvcjzqbdsj#owner', 'did_url'],
    ])('resolve?did=%j → 400 INVALID_DID (%s)', async (did, reason) => {
      const res = await request(`/.well-known/did/resolve?did=${encodeURIComponent(did)}`);
      expect(expectErrorEnvelope(res, 'INVALID_DID').error.details).toMatchObject({ reason });
    });

    it('a missing did parameter is INVALID_DID too', async () => {
      expectErrorEnvelope(await request('/.well-known/did/resolve'), 'INVALID_DID');
    });

    it('an unknown passport → 404 DID_NOT_FOUND on every document path', async () => {
      const ghost = randomFaceTokenId(cryptoRandomInt);
      expectErrorEnvelope(
        await request(`/.well-known/did/resolve?did=did:passport:${ghost}`),
        'DID_NOT_FOUND',
      );
      expectErrorEnvelope(await request(`/.well-known/did/passport/${ghost}`), 'DID_NOT_FOUND');
      expectErrorEnvelope(await request(`/passport/${ghost}/did.json`), 'DID_NOT_FOUND');
      expectErrorEnvelope(await request('/.well-known/did/passport/nope'), 'INVALID_DID');
    });

    it('did-resolver sees invalidDid and notFound', async () => {
      expect((await resolver.resolve('did:passport:short')).didResolutionMetadata.error).toBe('invalidDid');
      const ghost = randomFaceTokenId(cryptoRandomInt);
      expect((await resolver.resolve(`did:passport:${ghost}`)).didResolutionMetadata.error).toBe('notFound');
    });
  });

  describe('documents', () => {
    it('resolve: the DID Core document with the owner key, which verifies an owner signature', async () => {
      const owner = newKey();
      const { tokenId } = await mintPassport(app, {
        owner,
        metadata: { webhook_url: 'https://hooks.example.org' },
      });
      const did = `did:passport:${tokenId}`;
      // Token ids are lowercase: another case is 400 INVALID_DID naming the canonical DID (a probe: it
      // answered the lowercase DID's document, whose id is not the DID asked for).
      const shouted = await request(`/.well-known/did/resolve?did=did:passport:${tokenId.toUpperCase()}`);
      expect(expectErrorEnvelope(shouted, 'INVALID_DID').error.details).toMatchObject({
        reason: 'not_lowercase',
        canonical: did,
      });
      expectErrorEnvelope(await request(`/.well-known/did/passport/${tokenId.toUpperCase()}`), 'INVALID_DID');
      const res = await request(`/.well-known/did/resolve?did=${did}`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        '@context': ['https://www.w3.org/ns/did/v1', 'https://w3id.org/security/suites/ed25519-2018/v1'],
        id: did,
        controller: did,
        verificationMethod: [
          {
            id: `${did}#owner`,
            type: 'Ed25519VerificationKey2018',
            controller: did,
            publicKeyBase58: expect.any(String),
          },
        ],
        authentication: [`${did}#owner`],
        assertionMethod: [`${did}#owner`],
        alsoKnownAs: [expect.stringMatching(/^did:web:127\.0\.0\.1%3A\d+:passport:/)],
        requestId: res.headers.get('x-request-id'),
      });
      expect(res.body.service).toEqual(
        expect.arrayContaining([
          { id: `${did}#webhook`, type: 'PassportWebhook', serviceEndpoint: 'https://hooks.example.org' },
        ]),
      );
      // The token metadata, for clients that read the holder's name, creature and contacts from the DID.
      const metadataService = res.body.service.find((x: { id: string }) => x.id === `${did}#metadata`);
      expect(metadataService).toEqual({
        id: `${did}#metadata`,
        type: 'PassportTokenMetadata',
        serviceEndpoint: {
          tokenId,
          ownerAccountId: owner.accountId,
          metadata: expect.objectContaining({
            userselected_dn: 'NNSWF=Test,NSWF=Agent,Creature=robot',
            webhook_url: 'https://hooks.example.org',
          }),
        },
      });
      expect(metadataService.serviceEndpoint.metadata.token_id).toBeUndefined();

      const result = await resolver.resolve(did);
      expect(result.didResolutionMetadata).toEqual({ contentType: 'application/did+json' });
      const doc = result.didDocument!;
      for (const id of [
        doc.id,
        ...(doc.verificationMethod ?? []).map((m) => m.id),
        ...(doc.service ?? []).map((s) => s.id),
      ])
        expect(parseDidUrl(id)).not.toBeNull();
      const key = decodeBase58(doc.verificationMethod![0].publicKeyBase58!)!;
      const message = utf8(`hello from ${tokenId}`);
      const verifier = createNobleVerifier();
      expect(verifier.verify(owner.signer.sign(message), message, key)).toBe(true);
      expect(verifier.verify(newKey().signer.sign(message), message, key)).toBe(false);
    });

    // Found by a probe at scale: /passport/ChAtbmaqbhem/did.json answered chatbmaqbhem's document, whose
    // id is not the did:web DID a resolver asked for.
    it('the did:web path takes the token id only as written: another spelling is 404 DID_NOT_FOUND', async () => {
      const { tokenId } = await mintPassport(app, { owner: newKey() });
      expect((await request(`/passport/${tokenId}/did.json`)).status).toBe(200);
      const shouted = `${tokenId.slice(0, 1).toUpperCase()}${tokenId.slice(1)}`;
      const notFound = expectErrorEnvelope(await request(`/passport/${shouted}/did.json`), 'DID_NOT_FOUND');
      // It names the DID its resolver asked for: the did:web one (a probe: it named did:passport:<shouted>).
      expect(notFound.error.details?.did).toMatch(new RegExp(`^did:web:.*:passport:${shouted}$`));
      // And the canonical spelling, as INVALID_DID does on the did:passport paths (a fuzz: no hint).
      const canonical = (notFound.error.details?.did as string).replace(/[^:]+$/, tokenId);
      expect(notFound.error.details?.canonical).toBe(canonical);
      // Percent-encoded letters are another spelling too (a probe of the fix: %61… was decoded first).
      const encoded = `%${tokenId.charCodeAt(0).toString(16)}${tokenId.slice(1)}`;
      const encodedNotFound = expectErrorEnvelope(
        await request(`/passport/${encoded}/did.json`),
        'DID_NOT_FOUND',
      );
      expect(encodedNotFound.error.details?.canonical).toBe(canonical);
      // A token id that is not one in any case has no canonical spelling: 400, naming the did:web DID as
      // its resolver asked for it (a review: it named did:passport:<lowercased>, another DID).
      for (const written of [tokenId.slice(1), 'AAAAAAAAAAAAA', 'aaaa%2Faaaaaaa']) {
        const invalid = expectErrorEnvelope(await request(`/passport/${written}/did.json`), 'INVALID_DID');
        expect(invalid.error.details?.did).toMatch(new RegExp(`^did:web:.*:passport:${written}$`));
        expect(invalid.error.details?.canonical).toBeUndefined();
      }
      // A token id followed by an encoded `/` or `#` (a did:passport DID URL's shape, not a did:web one's):
      // whatever the reason, the answer names did:web DIDs only (a review: canonical was did:passport:…).
      for (const written of [`${tokenId}%2Fx`, `${tokenId.toUpperCase()}%23owner`]) {
        const invalid = expectErrorEnvelope(await request(`/passport/${written}/did.json`), 'INVALID_DID');
        expect(invalid.error.details?.did).toMatch(new RegExp(`^did:web:.*:passport:${written}$`));
        expect(String(invalid.error.details?.canonical ?? 'did:web:')).toMatch(/^did:web:/);
      }
    });

    // Found by a probe: the did:web copy said id did:passport:…, and did:web requires the fetched
    // document's id to be the DID resolved, so a conformant resolver refused the advertised alias.
    it('the did-method document is the resolved one; the did:web copy is it with every id under the did:web alias', async () => {
      const owner = newKey();
      const { tokenId } = await mintPassport(app, { owner });
      const resolved = await request(`/.well-known/did/resolve?did=did:passport:${tokenId}`);
      const method = await request(`/.well-known/did/passport/${tokenId}`);
      const web = await request(`/passport/${tokenId}/did.json`);
      const strip = ({ requestId: _r, ...doc }: Record<string, unknown>) => doc;
      expect(strip(method.body)).toEqual(strip(resolved.body));
      const did = `did:passport:${tokenId}`;
      const [alias] = resolved.body.alsoKnownAs as string[];
      expect(alias).toBe(`did:web:${new URL(app.baseUrl).host.replace(':', '%3A')}:passport:${tokenId}`);
      // did:web: did:web:<host>:passport:<id> is fetched from https://<host>/passport/<id>/did.json.
      const webDoc = web.body as Record<string, any>;
      expect(webDoc.id).toBe(alias);
      expect(webDoc.alsoKnownAs).toEqual([did]);
      const underAlias = (id: string) => id.replace(alias, did);
      expect({
        ...webDoc,
        id: did,
        controller: underAlias(webDoc.controller),
        alsoKnownAs: [alias],
        verificationMethod: webDoc.verificationMethod.map((m: any) => ({
          ...m,
          id: underAlias(m.id),
          controller: underAlias(m.controller),
        })),
        authentication: webDoc.authentication.map(underAlias),
        assertionMethod: webDoc.assertionMethod.map(underAlias),
        service: webDoc.service.map((s: any) => ({ ...s, id: underAlias(s.id) })),
      }).toEqual(strip(resolved.body));
      expect(JSON.stringify(webDoc).includes(`"${did}#`)).toBe(false);
      expect(webDoc.verificationMethod[0].id).toBe(`${alias}#owner`);
      expect(webDoc.authentication).toEqual([`${alias}#owner`]);
    });

    // Found by a probe: a revoked passport resolved to a document any DID consumer would accept proofs from.
    // And a later probe: with the key still in verificationMethod, did-jwt's default check accepted new proofs.
    it('a revoked passport: deactivated: true and no key at all, in both documents', async () => {
      const owner = newKey();
      const { tokenId } = await mintPassport(app, { owner, revoked: true });
      const resolved = await request(`/.well-known/did/resolve?did=did:passport:${tokenId}`);
      expect(resolved.status).toBe(200);
      const none = { deactivated: true, verificationMethod: [], authentication: [], assertionMethod: [] };
      expect(resolved.body).toMatchObject(none);
      const web = await request(`/passport/${tokenId}/did.json`);
      expect(web.body).toMatchObject(none);
      const live = await request(
        `/.well-known/did/resolve?did=did:passport:${(await mintPassport(app, { owner })).tokenId}`,
      );
      expect('deactivated' in live.body).toBe(false);
    });

    it('a named owner with two keys gets #owner and #owner-2; a transfer changes the key at once', async () => {
      const [a, b] = [newKey(), newKey()];
      await addNamedAccount(app, 'bob.test', [a, b]);
      const { tokenId } = await mintPassport(app, { owner: 'bob.test' });
      const named = (await resolver.resolve(`did:passport:${tokenId}`)).didDocument!;
      expect(named.verificationMethod!.map((m) => m.id.split('#')[1])).toEqual(['owner', 'owner-2']);

      const buyer = newKey();
      await updateLedgerFile(ledgerFileOf(app), (doc) => ({
        ...doc,
        passports: doc.passports.map((p) =>
          p.token_id === tokenId ? { ...p, owner_id: buyer.accountId } : p,
        ),
      }));
      await new Promise((resolve) => setTimeout(resolve, 5100)); // past the chain cache (≤ 5 s)
      const after = (await resolver.resolve(`did:passport:${tokenId}`)).didDocument!;
      expect(after.verificationMethod!.map((m) => decodeBase58(m.publicKeyBase58!))).toEqual([
        buyer.signer.publicKey,
      ]);
    }, 15_000);

    it('GET /.well-known/did describes the method', async () => {
      const res = await request('/.well-known/did');
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        method: 'passport',
        syntax: 'did:passport:<tokenId>',
        resolve: `${app.baseUrl}/.well-known/did/resolve?did=did:passport:{tokenId}`,
        errors: { INVALID_DID: 400, DID_NOT_FOUND: 404, DID_RESOLUTION_FAILED: 500 },
      });
    });
  });
});
