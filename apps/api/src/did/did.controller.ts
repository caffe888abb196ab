/**
 * The `did:passport` method on this deployment (docs/protocol.md §4): `GET /.well-known/did` describes it,
 * `GET /.well-known/did/resolve?did=` and `GET /.well-known/did/passport/{tokenId}` resolve a passport's
 * DID document (public), and `GET /passport/{tokenId}/did.json` serves it as the `alsoKnownAs` alias
 * resolves (did:web: every id under the did:web DID). The owner key is read from the chain on every resolution,
 * so a transfer changes the key at once. Errors: 400 INVALID_DID, 404 DID_NOT_FOUND, 500
 * DID_RESOLUTION_FAILED (chain failures; never upstream text).
 */
import { Controller, Get, Inject, Param, Query, Req } from '@nestjs/common';
import { type FastifyRequest } from 'fastify';
import { ApiOkResponse, ApiOperation, ApiParam, ApiQuery, ApiTags } from '@nestjs/swagger';
import { isPassportError, PassportError, parseDid, type ChainReader, type DidDocument } from '@passport/core';
import { asDidWebDocument, describeDidMethod, didWebAlias, resolveDidDocument } from '@passport/core/did';
import { printableText } from '@passport/core/codecs';
import { type AppConfig } from '../platform/config/app-config.js';
import { HTTP_STATUS } from '../platform/http/http-status.table.js';
import { RequestId } from '../platform/http/request-id.decorator.js';
import { APP_CONFIG, CHAIN_READER } from '../platform/infrastructure/di-tokens.js';
import { ApiErrors } from '../platform/openapi/api-errors.decorator.js';
import {
  didDocumentBodyComponent,
  didDocumentComponent,
  didMethodComponent,
  type DidDocumentResponse,
  type DidMethodResponse,
} from './did.schema.js';

const tokenIdParam = ApiParam({
  name: 'tokenId',
  description:
    'The token id: 12 lowercase letters (another case is 400 INVALID_DID with the canonical DID; on the did:web path, 404 DID_NOT_FOUND with the canonical did:web DID).',
  schema: { type: 'string' },
  example: 'bjbvcjzqbdsj',
});

@ApiTags('did')
@Controller()
export class DidController {
  constructor(
    @Inject(CHAIN_READER) private readonly chain: ChainReader,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get('.well-known/did')
  @ApiOperation({ summary: 'How the did:passport method works on this deployment' })
  @ApiOkResponse({ schema: didMethodComponent })
  method(@RequestId() requestId: string): DidMethodResponse {
    const description = describeDidMethod({ publicBaseUrl: this.config.publicBaseUrl });
    const errors = {
      INVALID_DID: HTTP_STATUS.INVALID_DID,
      DID_NOT_FOUND: HTTP_STATUS.DID_NOT_FOUND,
      DID_RESOLUTION_FAILED: HTTP_STATUS.DID_RESOLUTION_FAILED,
    };
    return { ...description, errors, requestId } as DidMethodResponse;
  }

  @Get('.well-known/did/resolve')
  @ApiOperation({
    summary: 'Resolve did:passport:<tokenId> to its DID document (public)',
    description:
      'The verification method #owner is the Ed25519 key of the current on-chain owner of the passport.',
  })
  @ApiQuery({ name: 'did', required: true, schema: { type: 'string' }, example: 'did:passport:bjbvcjzqbdsj' })
  @ApiOkResponse({ schema: didDocumentComponent })
  @ApiErrors('INVALID_DID', 'DID_NOT_FOUND', 'DID_RESOLUTION_FAILED')
  async resolve(@Query('did') did: unknown, @RequestId() requestId: string): Promise<DidDocumentResponse> {
    const document = await this.documentFor(parseDid(did).tokenId);
    return { ...document, requestId } as DidDocumentResponse;
  }

  @Get('.well-known/did/passport/:tokenId')
  @tokenIdParam
  @ApiOperation({ summary: 'The did-method document of one passport (same document as resolve)' })
  @ApiOkResponse({ schema: didDocumentComponent })
  @ApiErrors('INVALID_DID', 'DID_NOT_FOUND', 'DID_RESOLUTION_FAILED')
  async methodDocument(
    @Param('tokenId') tokenId: string,
    @RequestId() requestId: string,
  ): Promise<DidDocumentResponse> {
    const document = await this.documentFor(parseDid(`did:passport:${tokenId}`).tokenId);
    return { ...document, requestId } as DidDocumentResponse;
  }

  @Get('passport/:tokenId/did.json')
  @tokenIdParam
  @ApiOperation({
    summary:
      'The DID document of the alsoKnownAs alias did:web:<host>:passport:<tokenId>, where a did:web resolver fetches it: every id under the did:web DID (no requestId)',
  })
  @ApiOkResponse({ schema: didDocumentBodyComponent })
  @ApiErrors('INVALID_DID', 'DID_NOT_FOUND', 'DID_RESOLUTION_FAILED')
  async didWeb(@Param('tokenId') tokenId: string, @Req() request: FastifyRequest): Promise<DidDocument> {
    // A did:web path is compared as written, before any percent-decoding: another spelling of the token id
    // (ChAtbmaqbhem, %61nenemcnadep) would get a document whose id is not the DID its resolver asked for.
    const path = request.url.replace(/^[a-z][a-z\d+.-]*:\/\/[^/?#]*/i, '').split(/[?#]/, 1)[0] ?? '';
    const written = path.split('/')[2]; // /passport/<written>/did.json
    // Errors name the DID its resolver asked for, the did:web one as written (not did:passport:<…>).
    const asked = printableText(didWebAlias(written ?? tokenId, this.config.publicBaseUrl), 256);
    // Not a token id in any case: 400; a token id in another case: 404 below (no document lives there).
    const canonical = this.tokenIdOf(tokenId, asked);
    // A 404 names the canonical spelling too, as INVALID_DID does on the did:passport paths.
    if (canonical !== tokenId || written !== canonical)
      throw new PassportError('DID_NOT_FOUND', {
        did: asked,
        canonical: didWebAlias(canonical, this.config.publicBaseUrl),
      });
    const document = await this.documentFor(canonical, asked);
    return asDidWebDocument(document, { publicBaseUrl: this.config.publicBaseUrl });
  }

  /** The token id of a did:web path in lowercase; not one in any case: INVALID_DID naming `asked`. */
  private tokenIdOf(tokenId: string, asked: string): string {
    try {
      return parseDid(`did:passport:${tokenId.toLowerCase()}`).tokenId;
    } catch (err) {
      // Named as the did:web DID asked, and no did:passport DID beside it (`did_url`'s canonical): in a
      // did:web path an encoded `/` or `#` is part of the id, which is then no token id (a review).
      if (isPassportError(err) && err.code === 'INVALID_DID')
        throw new PassportError('INVALID_DID', { did: asked, reason: 'invalid_token_id' });
      throw err;
    }
  }

  private async documentFor(tokenId: string, asked = `did:passport:${tokenId}`): Promise<DidDocument> {
    try {
      const document = await resolveDidDocument(this.chain, tokenId, {
        publicBaseUrl: this.config.publicBaseUrl,
      });
      if (!document) throw new PassportError('DID_NOT_FOUND', { did: asked });
      return document;
    } catch (error) {
      if (isPassportError(error)) throw error;
      throw new PassportError('DID_RESOLUTION_FAILED', { did: `did:passport:${tokenId}` }, undefined, {
        cause: error,
      });
    }
  }
}
