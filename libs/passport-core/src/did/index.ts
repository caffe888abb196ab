/**
 * @module @passport/core/did
 * did:passport documents: parse a DID, build and resolve its document, the did:web alias.
 */

// DID documents
export {
  buildDidDocument,
  asDidWebDocument,
  TOKEN_METADATA_SERVICE_TYPE,
  type PassportTokenMetadataEndpoint,
  resolveDidDocument,
  describeDidMethod,
  parseDid,
  passportDid,
  didWebAlias,
  didWebDocumentUrl,
  DID_CONTEXTS,
  DID_METHOD,
  DID_PREFIX,
  OWNER_KEY_TYPE,
  type DidDocument,
  type DidDocumentOptions,
  type DidService,
  type DidVerificationMethod,
  type ParsedDid,
} from './did-document.js';
