/**
 * Request and 201 body of `POST /api/signclient` (docs/protocol.md §4), described once. The core
 * validates the request (`validateSignClientRequest`); this describes it.
 */
import { z } from 'zod';
import { documentedAs, openApiComponent } from '../platform/openapi/zod-openapi.js';

export const signClientRequestSchema = z.object({
  tobesignedValues: z.record(z.string(), z.string()).meta({
    description:
      'The passport metadata to sign (string values): not_after, not_before, max_requests, maxrq_window, ' +
      'openapijson_url, webhook_cidr, … serviceprovider_id is filled in with this server family when absent. ' +
      'A token_id here is taken as the token id to sign and left out of the metadata to mint. Without a JWT ' +
      'privileged for /api/signclient, permissioned_routes is refused, max_requests must be a positive integer ' +
      'of at most 4999, and maxrq_window (when given) whole seconds, at least 60 on the flat-fee tiers.',
  }),
  // A number or a decimal string: zod's union would say anyOf, the document has always said oneOf.
  mintingfee: documentedAs<number | string>({
    oneOf: [
      { type: 'number', minimum: 0 },
      { type: 'string', pattern: '^\\d{1,15}(\\.\\d{1,18})?$' },
    ],
    description:
      'The fee the client computed; more than 1e-6 away from the server fee is SIGNCLIENT_FEE_MISMATCH.',
  }),
  token_id: z
    .string()
    .regex(/^[a-z]{12}$/)
    .meta({
      description:
        'The token id the passport will be minted under (or tobesignedValues.token_id; equal when both are sent). ' +
        'Required: the family signature covers it, as the issuer signs.',
    })
    .optional(),
  tier: z
    .enum(['personal', 'enterprise', 'collectible'])
    .meta({
      description:
        'Explicit tier. Otherwise collectible when not_after is "0", enterprise when max_requests is "4999", else personal.',
    })
    .optional(),
});

export const signClientResponseSchema = z.object({
  serviceprovider_signature: z.string().meta({
    description: "base64url Ed25519 signature of the family root over the metadata's canonical digest.",
  }),
  token_id: z
    .string()
    .regex(/^[a-z]{12}$/)
    .meta({ description: 'The token id the signature covers: mint under exactly this id.' }),
  metadata: z.record(z.string(), z.string()).meta({
    description:
      'Exactly the metadata to mint (no token_id: the signature covers the token id of the record).',
  }),
  fee_data: z
    .object({
      tier: z.enum(['personal', 'enterprise', 'collectible']),
      fee: z.number(),
      clientFee: z.number(),
      daysUntilExpiry: z.int().nullable().meta({ description: 'null for collectibles.' }),
    })
    .strict(),
  requestId: z.string(),
});
export type SignClientResponse = z.infer<typeof signClientResponseSchema>;

export const signClientRequestComponent = openApiComponent('SignClientRequestDto', signClientRequestSchema);
export const signClientResponseComponent = openApiComponent(
  'SignClientResponseDto',
  signClientResponseSchema,
);
