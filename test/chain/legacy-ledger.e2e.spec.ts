/**
 * Ledgers written by earlier versions: their passports carry `metadata.token_id` (equal to the
 * record's id) and were signed over the metadata's own fields, absent ones dropped. They keep logging
 * in after the family signature moved to the issuer's rule, but only on their own record: the same
 * metadata under another token id is not of the family. The digest is built here with node:crypto
 * alone (sorted-key JSON, SHA-512), independently of the core.
 */
import { createHash } from 'node:crypto';
import { randomFaceTokenId } from '@passport/core';
import { cryptoRandomInt } from '@passport/core/token-id';
import { updateLedgerFile } from '@passport/adapters/ledger';
import { familyRootSigner, ledgerFileOf, login, newKey, serverIdentityOf } from '../support/passports.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

describe('a passport minted by an earlier version (metadata.token_id, no quota fields)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ STORE: 'memory' });
  });
  afterAll(() => app.close());

  it('logs in on its own record and nowhere else', async () => {
    const owner = newKey();
    const tokenId = randomFaceTokenId(cryptoRandomInt);
    const metadata: Record<string, string> = {
      token_id: tokenId,
      serviceprovider_id: serverIdentityOf(app).serviceProviderId,
      subjectuniqueidentifier_url: app.baseUrl,
      not_before: '',
      not_after: '',
    };
    const signed = Object.keys(metadata).sort();
    const digest = createHash('sha512').update(JSON.stringify(metadata, signed), 'utf8').digest();
    metadata.serviceprovider_signature = Buffer.from((await familyRootSigner(app)).sign(digest)).toString(
      'base64url',
    );
    const elsewhere = randomFaceTokenId(cryptoRandomInt);
    await updateLedgerFile(ledgerFileOf(app), (doc) => ({
      ...doc,
      passports: [
        ...doc.passports,
        { token_id: tokenId, owner_id: owner.accountId, metadata },
        { token_id: elsewhere, owner_id: owner.accountId, metadata },
      ],
    }));
    const own = await login(app.baseUrl, { identifier: tokenId, key: owner });
    expect([own.status, own.body.error?.code]).toEqual([200, undefined]);
    const moved = await login(app.baseUrl, { identifier: elsewhere, key: owner });
    expect([moved.status, moved.body.error?.code]).toEqual([401, 'PASSPORT_FAMILY_MISMATCH']);
  });
});
