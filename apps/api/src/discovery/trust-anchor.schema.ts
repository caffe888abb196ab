/** Response body of `GET /api/concierge/trust-anchor` (spec: Concierge trust anchor), described once. */
import { z } from 'zod';
import { openApiComponent } from '../platform/openapi/zod-openapi.js';

const uri = () => z.string().meta({ format: 'uri' });

export const trustAnchorSchema = z.object({
  displayName: z.string(),
  host: uri(),
  verifyHost: uri(),
  supportEmail: z.string().meta({ format: 'email' }),
  a2aRegistryId: z.string(),
  a2aRegistryUrl: uri(),
  agentCardUrl: uri(),
  a2aEndpoint: uri(),
  contactUris: z
    .object({
      a2a: z.string().optional(),
      email: z.string().optional(),
      discord: z.string().optional(),
      telegram: z.string().optional(),
    })
    .catchall(z.string())
    .meta({ description: 'Contact channels of the concierge; other string keys allowed.' }),
  verifyCli: z
    .string()
    .meta({ description: 'Command line a verifier runs to check a HOLA line against this service.' }),
  lobbyTokenId: z
    .string()
    .regex(/^[a-z]{12}$/)
    .nullable()
    .meta({
      description:
        'Token id of the official concierge passport; null until configured. Compare a verified peerTokenId with it.',
    })
    .optional(),
  requestId: z.string(),
});
export type TrustAnchorResponse = z.infer<typeof trustAnchorSchema>;

export const trustAnchorComponent = openApiComponent('TrustAnchorDto', trustAnchorSchema);
