/**
 * Request and 200 body of `POST /api/isauthorizedsigner` (docs/protocol.md §4, §6), described once: the
 * OpenAPI models and the controller's return type come from these schemas, checked at compile time
 * against the core's `DelegationRequestBody` and `DelegationCheckResult`. The core validates requests
 * itself (`validateDelegationRequest`, with its ISAUTHORIZEDSIGNER_* codes).
 */
import { type DelegationCheckResult, type DelegationRequestBody } from '@passport/core/delegation';
import { z } from 'zod';
import { openApiComponent, type SameShape } from '../platform/openapi/zod-openapi.js';
import { tokenIdSchema } from './verify.schema.js';

export const isAuthorizedSignerRequestSchema = z.object({
  tokenId: tokenIdSchema.meta({ description: 'The issuing passport.' }),
  base64HashOrDelegateSignerId: z
    .string()
    .min(1)
    .max(128)
    .meta({ description: 'The delegate id (as in the subagent HOLA line).' }),
  unixTimestamp: z.int().min(0).meta({ description: 'When the owner signed (Unix seconds).' }),
  publicKey: z
    .string()
    .meta({ description: 'The delegated 32-byte Ed25519 key, base64url or base64, exactly as signed.' }),
  signature: z.string().meta({
    description:
      "The owner's 64-byte Ed25519 signature (base64url or base64) over UTF-8 `tokenId:delegateId:unixTimestamp:publicKey`.",
  }),
});

export const isAuthorizedSignerResponseSchema = z.object({
  authorized: z
    .boolean()
    .meta({ description: 'True when the passport is active and its current owner signed this key.' }),
  tokenId: tokenIdSchema,
  base64HashOrDelegateSignerId: z.string(),
  checks: z
    .object({ tokenExists: z.boolean(), tokenActive: z.boolean(), publicKeyAuthorized: z.boolean() })
    .strict(),
  failureReasons: z.array(
    z.enum(['token_revoked', 'token_not_live', 'owner_keys_unavailable', 'signature_invalid']),
  ),
  requestId: z.string(),
});

export type IsAuthorizedSignerResponse = z.infer<typeof isAuthorizedSignerResponseSchema>;
/** The core's request body and result (plus the request id) are exactly these wire shapes. */
export const isAuthorizedSignerMatchesCore: [
  SameShape<z.infer<typeof isAuthorizedSignerRequestSchema>, DelegationRequestBody>,
  SameShape<IsAuthorizedSignerResponse, DelegationCheckResult & { requestId: string }>,
] = [true, true];

export const isAuthorizedSignerRequestComponent = openApiComponent(
  'IsAuthorizedSignerRequestDto',
  isAuthorizedSignerRequestSchema,
);
export const isAuthorizedSignerResponseComponent = openApiComponent(
  'IsAuthorizedSignerResponseDto',
  isAuthorizedSignerResponseSchema,
);
