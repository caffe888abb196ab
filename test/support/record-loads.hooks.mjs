// Module hooks that append every resolved module URL to the file named by PASSPORT_LOAD_LOG.
import { appendFileSync } from 'node:fs';

export async function resolve(specifier, context, nextResolve) {
  const result = await nextResolve(specifier, context);
  if (process.env.PASSPORT_LOAD_LOG) appendFileSync(process.env.PASSPORT_LOAD_LOG, `${result.url}\n`);
  return result;
}
