/**
 * A WebhookDispatcher for tests (a fixed server key, the system clock), one event sent through it, and one
 * sent from a child process whose TCP binding is patched (network conditions a host cannot make for real).
 */
import { execFile } from 'node:child_process';
import { systemClock } from '@passport/core';
import { createNodeSigner } from '@passport/core/node';
import { WebhookDispatcher } from '../../apps/api/src/webhooks/webhook-dispatcher.js';
import { type WebhookNameResolver } from '../../apps/api/src/webhooks/webhook-name.resolver.js';

export function testDispatcher(resolveName: WebhookNameResolver, allowLoopback = false): WebhookDispatcher {
  return new WebhookDispatcher(
    { webhookAllowLoopback: allowLoopback, webhookTlsSkipVerify: false } as never,
    { tokenId: 'aaaaaaaaaaaa', signer: createNodeSigner(new Uint8Array(32).fill(7)) } as never,
    systemClock,
    resolveName,
  );
}

/** Sends one testhola event to `webhookUrl`; its outcomes as `<outcome> <reason or status>`. */
export async function sendOneEvent(dispatcher: WebhookDispatcher, webhookUrl: string): Promise<string[]> {
  dispatcher.dispatch(
    async () => ({ event: 'testhola_validation_success', data: {}, requestId: 'r1', webhookUrl }),
    'holder',
  );
  await dispatcher.idle();
  return dispatcher.recentOutcomes().map((o) => `${o.outcome} ${o.reason ?? o.status ?? ''}`.trim());
}

/**
 * Sends one event from a child process whose TCP binding (`TCP` in scope) `patch` changes, the name
 * resolving to `addresses`; the outcomes (`<outcome> <reason or address>`) and the milliseconds the
 * delivery took. The child runs beside this process's event loop (a receiver here keeps answering).
 */
export async function sendFromChildWithTcpPatch(options: {
  readonly patch: string;
  readonly addresses: readonly string[];
  readonly webhookUrl: string;
  readonly allowLoopback: boolean;
}): Promise<{ outcomes: string[]; tookMs: number }> {
  const script = `
    const { TCP } = process.binding('tcp_wrap');
    ${options.patch}
    const { systemClock } = await import('@passport/core');
    const { createNodeSigner } = await import('@passport/core/node');
    const { WebhookDispatcher } = await import('./apps/api/src/webhooks/webhook-dispatcher.ts');
    const d = new WebhookDispatcher(
      { webhookAllowLoopback: ${options.allowLoopback}, webhookTlsSkipVerify: false },
      { tokenId: 'aaaaaaaaaaaa', signer: createNodeSigner(new Uint8Array(32).fill(7)) },
      systemClock,
      async () => ${JSON.stringify(options.addresses)},
    );
    const started = performance.now();
    d.dispatch(async () => ({ event: 'testhola_validation_success', data: {}, requestId: 'r1', webhookUrl: ${JSON.stringify(options.webhookUrl)} }), 'holder');
    await d.idle();
    console.log(JSON.stringify(d.recentOutcomes().map((o) => o.outcome + ' ' + (o.reason ?? o.address))));
    console.log(JSON.stringify(performance.now() - started));
    process.exit(0);
  `;
  const child = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script],
      { cwd: process.cwd(), encoding: 'utf8', timeout: 20000 },
      (error, stdout, stderr) => resolve({ code: error ? 1 : 0, stdout, stderr }),
    );
  });
  if (child.stderr.includes("Unhandled 'error' event") || child.code !== 0)
    throw new Error(`the child failed (${child.code}): ${child.stderr}`);
  const lines = child.stdout.trim().split('\n');
  return { outcomes: JSON.parse(lines.at(-2) ?? '[]'), tookMs: Number(JSON.parse(lines.at(-1) ?? '0')) };
}
