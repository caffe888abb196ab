/**
 * @module federation/federation.errors
 * Codes the client library raises itself when a federated token or the server passport fails its
 * checks; never sent by the server.
 */
import { type AreaErrors } from '../errors/area-errors.js';

export const FEDERATION_ERRORS = {
  FEDERATED_ISSUER_MISSING: { message: 'The federated token carries no issuer.', clientSide: true },
  FEDERATED_ISSUER_MISMATCH: { message: 'The federated token was issued for another API.', clientSide: true },
  SERVER_PASSPORT_FAMILY_MISMATCH: {
    message: 'The server passport belongs to another family.',
    clientSide: true,
  },
  SERVER_PASSPORT_NOT_LIVE: { message: 'The server passport is not live.', clientSide: true },
  SERVER_PASSPORT_REVOKED: { message: 'The server passport has been revoked.', clientSide: true },
  SERVER_SMART_CONTRACT_NOT_TRUSTED: {
    message: 'The server passport was issued by an untrusted contract.',
    clientSide: true,
  },
  SERVER_TOKEN_IDENTITY_MISMATCH: {
    message: 'The token was not signed by the expected server passport.',
    clientSide: true,
  },
} as const satisfies AreaErrors;
