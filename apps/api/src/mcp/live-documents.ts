/**
 * The live documents of the MCP catalog, each from the part of the app that owns it: the OpenAPI
 * document (`OpenApiDocumentService`, looked up lazily because it is generated from the finished
 * app), DID documents (the core's builder over the chain reader and the owner's current keys), and
 * the face table of the core.
 */
import { type ModuleRef } from '@nestjs/core';
import { type ChainReader, normalizeTokenId } from '@passport/core';
import { resolveDidDocument } from '@passport/core/did';
import { OpenApiDocumentService } from '../platform/openapi/openapi-document.service.js';
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
    resolveDid: async (rawTokenId) => {
      const tokenId = normalizeTokenId(rawTokenId);
      return tokenId === null
        ? null
        : resolveDidDocument(deps.chain, tokenId, { publicBaseUrl: deps.publicBaseUrl });
    },
  };
}
