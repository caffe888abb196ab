/** Bodies of the privileged session endpoints (docs/protocol.md §4: Sessions admin), described once. */
import { z } from 'zod';
import { openApiComponent } from '../platform/openapi/zod-openapi.js';

const dateTime = () => z.string().meta({ format: 'date-time' });

export const sessionViewSchema = z.object({
  sessionId: z.string().meta({ example: 'sess_bjbvcjzqbdsj_01JZ3K5V7W8X9Y0Z1A2B3C4D5E' }),
  tokenId: z.string().regex(/^[a-z]{12}$/),
  ownerId: z.string(),
  status: z.enum(['open', 'closed', 'expired']),
  createdAt: dateTime(),
  expiresAt: dateTime(),
  closedAt: dateTime().nullable(),
  closeReason: z.string().nullable(),
  federatedFrom: z.string().nullable().meta({ description: 'Home API URL of a federated login.' }),
  renewalCount: z.int().min(0).meta({ description: 'Tokens renewed within this session (New-Token).' }),
  lastRenewedAt: dateTime().nullable().meta({ description: 'When the last renewal was issued.' }),
});
export type SessionView = z.infer<typeof sessionViewSchema>;
export const sessionViewComponent = openApiComponent('SessionViewDto', sessionViewSchema);

export const sessionListSchema = z.object({
  sessions: z.array(z.custom<SessionView>().meta({ ...sessionViewComponent })),
  total: z.int(),
  nextCursor: z
    .string()
    .nullable()
    .meta({ description: 'Pass as cursor for the next page; null at the end.' }),
  requestId: z.string(),
});
export type SessionList = z.infer<typeof sessionListSchema>;

export const sessionCleanupSchema = z.object({
  removed: z.int().meta({ description: 'Expired or closed sessions removed.' }),
  requestId: z.string(),
});
export type SessionCleanup = z.infer<typeof sessionCleanupSchema>;

// As the controller checks them (400 VALIDATION_FAILED otherwise); an operators' probe found the document looser.
export const sessionRevokeRequestSchema = z.object({
  sessionId: z.string().min(1).max(200).meta({
    description:
      'The session to close: printable text (no control or format characters), at most 200 UTF-16 units.',
  }),
  reason: z
    .string()
    .max(200)
    .optional()
    .meta({ description: "Printable text, kept as the session's close reason (default revoked_by_admin)." }),
});

export const sessionRevokeSchema = z.object({
  sessionId: z.string(),
  revoked: z.boolean().meta({ description: 'false when the session was already closed.' }),
  reason: z.string().meta({
    description: "The close reason recorded: this request's, or the earlier one when already closed.",
  }),
  requestId: z.string(),
});
export type SessionRevoke = z.infer<typeof sessionRevokeSchema>;

export const sessionListComponent = openApiComponent('SessionListDto', sessionListSchema);
export const sessionCleanupComponent = openApiComponent('SessionCleanupDto', sessionCleanupSchema);
export const sessionRevokeRequestComponent = openApiComponent(
  'SessionRevokeRequestDto',
  sessionRevokeRequestSchema,
);
export const sessionRevokeComponent = openApiComponent('SessionRevokeDto', sessionRevokeSchema);
