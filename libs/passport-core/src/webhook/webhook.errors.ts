/** @module webhook/webhook.errors The code of a webhook receiver's signature check. Stable wire contract. */
import { type AreaErrors } from '../errors/area-errors.js';

export const WEBHOOK_ERRORS = {
  WEBHOOK_SIGNATURE_INVALID: { message: 'The webhook signature, key or timestamp is invalid.' },
} as const satisfies AreaErrors;
