/**
 * HOST and PORT checked before anything is created. The development family (its server passport
 * recording PUBLIC_BASE_URL, which defaults to PORT), the store and its history were written before the
 * listen failed: a first start on a port in use left them behind, and the next start on another PORT was
 * degraded (`server_passport_url_mismatch`) and refused logins of passports minted without `--api` (a
 * README walkthrough). The address is bound once and let go; the real listen still reports a port taken
 * in between.
 */
import { createServer } from 'node:net';
import { type AppConfig } from '../config/app-config.js';

/** Throws `listenError` when HOST:PORT cannot be listened on now. */
export async function assertCanListen(config: Pick<AppConfig, 'host' | 'port'>): Promise<void> {
  const probe = createServer();
  try {
    await new Promise<void>((resolve, reject) => {
      probe.once('error', reject);
      probe.listen({ port: config.port, host: config.host, exclusive: true }, resolve);
    });
  } catch (error) {
    throw listenError(error, config);
  } finally {
    if (probe.listening) await new Promise<void>((resolve) => probe.close(() => resolve()));
  }
}

/** A failed listen as one line naming the variables to change (HOST, PORT), the system's cause kept. */
export function listenError(error: unknown, config: Pick<AppConfig, 'host' | 'port'>): Error {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  const cause = error instanceof Error ? error.message.split('\n')[0] : String(error);
  const where = `HOST=${config.host} PORT=${config.port}`;
  if (code === 'EADDRINUSE')
    return new Error(`cannot listen on ${where}: the port is in use (${cause})`, { cause: error });
  if (code === 'EACCES')
    return new Error(`cannot listen on ${where}: permission denied (${cause})`, { cause: error });
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EADDRNOTAVAIL')
    return new Error(`cannot listen on ${where}: HOST is not an address of this machine (${cause})`, {
      cause: error,
    });
  return error instanceof Error ? error : new Error(cause);
}
