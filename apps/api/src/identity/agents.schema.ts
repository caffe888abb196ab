/** Response body of `GET /api/agents` (docs/protocol.md §4), described once. */
import { type Face } from '@passport/core';
import { z } from 'zod';
import { documentedAs, openApiComponent } from '../platform/openapi/zod-openapi.js';
import { faceSchema } from './identity.schemas.js';

const agentSchema = z
  .object({
    tokenId: z.string().regex(/^[a-z]{12}$/),
    creature: z.string().nullable().meta({ description: 'Self-declared (DN Creature).' }),
    face: documentedAs<Face | null>(faceSchema),
  })
  .strict();

export const agentsPageSchema = z.object({
  agents: z.array(agentSchema),
  nextCursor: z
    .string()
    .nullable()
    .meta({ description: 'Pass as `cursor` for the next page; null on the last page.', example: '20' }),
  requestId: z.string(),
  disclaimer: z.string().meta({ description: 'Creature and metadata are self-declared and not verified.' }),
});
export type AgentsPage = z.infer<typeof agentsPageSchema>;

export const agentsPageComponent = openApiComponent('AgentsPageDto', agentsPageSchema);
