/**
 * Reads a passport for the identity endpoints with their error mapping: a chain failure is 500
 * `IDENTITY_LOOKUP_FAILED` (never the upstream text), a missing passport 404 `IDENTITY_NOT_FOUND`;
 * both carry `details.tokenId`.
 */
import { PassportError, type ChainReader, type PassportRecord } from '@passport/core';

export async function lookupIdentityPassport(chain: ChainReader, tokenId: string): Promise<PassportRecord> {
  let record: PassportRecord | null;
  try {
    record = await chain.getPassport(tokenId);
  } catch (error) {
    throw new PassportError('IDENTITY_LOOKUP_FAILED', { tokenId }, undefined, { cause: error });
  }
  if (!record) throw new PassportError('IDENTITY_NOT_FOUND', { tokenId });
  return record;
}
