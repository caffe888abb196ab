/**
 * Builds real HOLA lines for a running test app (its SERVICE_HOST, the current time, a fresh random
 * nonce) with the core's builder, plus helpers to mutate one slot of a line and to POST to the
 * verification endpoints through the OpenAPI-checked client.
 */
import { randomBytes } from 'node:crypto';
import { buildHolaLine, holaChecksum, type Signer } from '@passport/core';
import { contractClient } from '../support/contract-fetch.js';
import { type TestApp } from '../support/test-app.js';

export const serviceHostOf = (app: TestApp): string => new URL(app.baseUrl).host;

export const freshNonce = (): string => randomBytes(16).toString('hex').toUpperCase();

export interface LineOptions {
  readonly sender: string;
  readonly signer: Signer;
  readonly recipient?: string;
  /** Shift of the timestamp from now, in ms. */
  readonly shiftMs?: number;
  readonly timestamp?: string;
  readonly nonceHex?: string;
  readonly subagent?: { readonly delegateId: string };
}

export function holaLine(app: TestApp, options: LineOptions): string {
  return buildHolaLine({
    recipient: options.recipient,
    senderTokenId: options.sender,
    timestamp: options.timestamp ?? new Date(Date.now() + (options.shiftMs ?? 0)).toISOString(),
    nonceHex: options.nonceHex ?? freshNonce(),
    serviceHost: serviceHostOf(app),
    signer: options.signer,
    ...(options.subagent ? { subagent: options.subagent } : {}),
  });
}

/** Replaces slot `index` (negative counts from the right) and, unless `keepChecksum`, recomputes the checksum. */
export function withSlot(line: string, index: number, value: string, keepChecksum = false): string {
  const fields = line.split('/');
  fields[index < 0 ? fields.length + index : index] = value;
  if (!keepChecksum) {
    const signature = fields.at(-2)!;
    const prefix = `${fields.slice(0, -2).join('/')}/`;
    fields[fields.length - 1] = holaChecksum(prefix, signature);
  }
  return fields.join('/');
}

export function postJson(app: TestApp) {
  const request = contractClient(app.baseUrl);
  return (path: string, body: unknown, headers: Record<string, string> = {}) =>
    request(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
}
