/**
 * @module @passport/core/webhook
 * Webhooks: signing and receiver verification, target resolution, and the address rules.
 */

// Signatures
export {
  signWebhook,
  verifyWebhookRequest,
  webhookDigest,
  WEBHOOK_HEADERS,
  WEBHOOK_MAX_FUTURE_MS,
  WEBHOOK_MAX_PAST_MS,
  type ExpectedWebhookSender,
  type SignedWebhook,
  type VerifiedWebhook,
  type VerifyWebhookParams,
  type WebhookPayload,
  type WebhookRejection,
} from './webhook-signature.js';

// Targets and addresses
export {
  resolveWebhookTarget,
  webhookUrlOf,
  webhookUrlWithScheme,
  checkWebhookAddress,
  pickWebhookAddress,
  pickWebhookAddresses,
  WEBHOOK_HOOK_PATHS,
  WEBHOOK_URL_MAX_LENGTH,
  type WebhookAddressPolicy,
  type WebhookTarget,
  type WebhookTargetRejection,
  type WebhookTargetResult,
} from './webhook-target.js';
export { type AddressClass, type AddressClassifier } from '../ports/address-classifier.port.js';
