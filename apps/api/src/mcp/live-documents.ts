/**
 * The live documents of the MCP catalog, each from the part of the app that owns it: the OpenAPI
 * document (`OpenApiDocumentService`, looked up lazily because it is generated from the finished
 * app), DID documents (the core's builder over the chain reader and the owner's current keys), and
 * the face table of the core.
 */
import { type ModuleRef } from '@nestjs/core';
import { type ChainReader, isTokenId } from '@passport/core';
import { resolveDidDocument } from '@passport/core/did';
import { printableText } from '@passport/core/codecs';
import { AppError } from '../platform/http/app.error.js';
import { OpenApiDocumentService } from '../platform/openapi/openapi-document.service.js';
import { DID_RESOLVE_PREFIX } from './mcp-resource.manifest.js';
import { facialCategoriesDocument } from './facial-categories.document.js';
import { type LiveDocumentSources } from './mcp-resource.catalog.js';

export function createLiveDocuments(deps: {
  readonly chain: ChainReader;
  readonly publicBaseUrl: string;
  readonly moduleRef: ModuleRef;
}): LiveDocumentSources {
  return {
    openApiDocument: () => deps.moduleRef.get(OpenApiDocumentService, { strict: false }).get(),
    openApiJson: () => deps.moduleRef.get(OpenApiDocumentService, { strict: false }).bytes(),
    facialCategories: facialCategoriesDocument,
    // One reader per `per-token` entry of RESOURCE_MANIFEST, under its `reader` name.
    perToken: {
      // The lowercase token id only, as REST resolve (a document's id is the DID asked for, so
      // did:resolve:CHEP… must not get did:passport:chep…'s document); another spelling is not found,
      // said as INVALID_DID (REST's code for it; an audit: it read DID_NOT_FOUND), with the URI to use.
      did: async (rawTokenId) => {
        if (isTokenId(rawTokenId))
          return resolveDidDocument(deps.chain, rawTokenId, { publicBaseUrl: deps.publicBaseUrl });
        throw invalidDidResource(rawTokenId as string);
      },
    },
  };
}

/** The not-found answer for `did:resolve:<raw>` when `raw` is no lowercase token id. */
function invalidDidResource(raw: string): AppError {
  const lower = raw.toLowerCase();
  return new AppError('MCP_RESOURCE_NOT_FOUND', {
    uri: `${DID_RESOLVE_PREFIX}${printableText(raw, 64)}`,
    reason: 'INVALID_DID',
    ...(isTokenId(lower) && { canonicalUri: `${DID_RESOLVE_PREFIX}${lower}` }),
  });
}
