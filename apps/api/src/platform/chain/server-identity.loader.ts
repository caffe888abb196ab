/**
 * Loads the server's identity at start: the key from SERVER_CREDENTIALS_FILE (NEAR credential JSON)
 * and its passport from the chain (the first 12-letter passport the key's account owns). Every problem
 * stops the start with one line naming the file or the account, never the secret.
 */
import { readFile } from 'node:fs/promises';
import { type ChainReader, isTokenId, parseNearCredentials } from '@passport/core';
import { isPassportRevoked, resolveOwnerKeys } from '@passport/core/passport';
import { bytesEqual } from '@passport/core/codecs';
import { createNodeSigner } from '@passport/core/node';
import { type ServerIdentity } from '../infrastructure/server-identity.js';

/** The start cannot continue; `message` is one line. */
export class StartupError extends Error {
  override readonly name = 'StartupError';
}

export async function loadServerIdentity(
  credentialsFile: string,
  chain: ChainReader,
): Promise<ServerIdentity> {
  let text: string;
  try {
    text = await readFile(credentialsFile, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new StartupError(`SERVER_CREDENTIALS_FILE ${credentialsFile} cannot be read (${code})`);
  }
  let credentials;
  try {
    credentials = parseNearCredentials(text);
  } catch (error) {
    throw new StartupError(`SERVER_CREDENTIALS_FILE ${credentialsFile}: ${(error as Error).message}`);
  }
  const owned = await chain.listPassportsByOwner(credentials.accountId, { fromIndex: 0, limit: 100 });
  // An unrevoked one first: an operator who revoked a compromised server passport and minted another
  // for the same account gets the new one at the next start (not the revoked one again, with every login
  // refused). With none unrevoked the first is taken, and login and health say it is revoked.
  const candidates = owned.filter((record) => isTokenId(record.tokenId));
  const passport = candidates.find((record) => !isPassportRevoked(record)) ?? candidates[0];
  if (!passport) {
    throw new StartupError(
      `no passport on contract ${chain.contractId} is owned by the server account ${credentials.accountId}`,
    );
  }
  const ownerKeys = await resolveOwnerKeys(chain, credentials.accountId);
  if (!ownerKeys.some((key) => bytesEqual(key, credentials.publicKey))) {
    throw new StartupError(
      `the key in ${credentialsFile} is not a full-access key of ${credentials.accountId}`,
    );
  }
  const serviceProviderId = passport.metadata.serviceprovider_id ?? '';
  return {
    tokenId: passport.tokenId,
    ownerId: passport.ownerId,
    secretSeed: credentials.secretSeed,
    signer: createNodeSigner(credentials.secretSeed),
    serviceProviderId,
    passport,
  };
}
