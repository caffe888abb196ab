/**
 * Request and 200 body of `POST /api/testhola` (docs/protocol.md §4), described once: the OpenAPI models
 * and the service's return type come from these schemas.
 */
import { z } from 'zod';
import { openApiComponent } from '../platform/openapi/zod-openapi.js';
import { holaLineSchema, recipientWarningsSchema, subagentFields, tokenIdSchema } from './verify.schema.js';

export const testHolaRequestSchema = z.object({
  hola: holaLineSchema,
  expectedRecipient: z
    .string()
    .meta({
      description:
        'The recipient the line is meant for. Without it, RECIPIENT_MISMATCH is reported when the line is addressed neither to MUNDO nor to this server passport.',
    })
    .optional(),
});

/** Every check of a line that passed: all of them are true on a 200. */
const passed = z.literal(true);

export const testHolaResponseSchema = z.object({
  valid: z.literal(true),
  peerTokenId: tokenIdSchema.meta({ description: 'Sender of the tested line (need not be the caller).' }),
  destinatary: z
    .string()
    .meta({ description: 'Recipient of the tested line: MUNDO or a lowercase token id.' }),
  peerVerified: z.literal(true),
  hola: z.string().meta({
    description:
      "The server's own signed reply line, addressed to the caller (fresh nonce, server passport key).",
  }),
  serverTokenId: tokenIdSchema.meta({ description: 'The server passport (sender of the reply line).' }),
  serverDestinatary: tokenIdSchema.meta({ description: 'The caller: the recipient of the reply line.' }),
  serverTimestamp: z.string().meta({ format: 'date-time', description: 'Timestamp of the reply line.' }),
  checks: z
    .object({
      formatValid: passed,
      checksumValid: passed,
      timestampValid: passed,
      timestampFresh: passed,
      noncetsValid: passed,
      nonceReplaySafe: passed,
      tokenExists: passed,
      tokenActive: passed,
      signatureValid: passed,
      publicKeyAvailable: passed,
    })
    .strict(),
  warnings: recipientWarningsSchema.optional(),
  ...subagentFields,
  requestId: z.string(),
});

export type TestHolaResponse = z.infer<typeof testHolaResponseSchema>;

export const testHolaRequestComponent = openApiComponent('TestHolaRequestDto', testHolaRequestSchema);
export const testHolaResponseComponent = openApiComponent('TestHolaResponseDto', testHolaResponseSchema);
