/**
 * The edge gateway's shipped files (docker/nginx) rendered the way the official nginx image does: its
 * entrypoint sources `entrypoint.d/15-passport-upstreams.envsh` (PASSPORT_API_UPSTREAM → the `server`
 * lines in PASSPORT_API_SERVERS), then fills the template's variables. Shared by the edge tests.
 */
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';

const TEMPLATE = new URL('../../docker/nginx/templates/passport-edge.conf.template', import.meta.url);
const UPSTREAMS_SCRIPT = new URL(
  '../../docker/nginx/entrypoint.d/15-passport-upstreams.envsh',
  import.meta.url,
);

/** A variable as the image's entrypoint leaves it after sourcing the shipped script with `env`. */
function scriptVariable(name: string, env: Record<string, string>): string {
  return execFileSync('sh', ['-c', `. "$1" && printf '%s' "$${name}"`, 'sh', UPSTREAMS_SCRIPT.pathname], {
    env: { PATH: process.env.PATH ?? '', ...env },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** PASSPORT_API_SERVERS as the image's entrypoint makes it: the shipped script, sourced by sh. */
export function upstreamServers(upstream: string): string {
  // (The script checks the port too: any valid one will do here.)
  return scriptVariable('PASSPORT_API_SERVERS', {
    PASSPORT_API_UPSTREAM: upstream,
    PASSPORT_EDGE_PORT: '8080',
  });
}

/**
 * The template with the script's variables substituted (and nothing else), PASSPORT_EDGE_PORT being
 * `127.0.0.1:<port>`. `readTimeout`, `maxConnectionsPerAddress`: PASSPORT_EDGE_READ_TIMEOUT and
 * PASSPORT_EDGE_MAX_CONNECTIONS_PER_ADDRESS as an operator would set them (unset: the script's defaults).
 */
export async function renderEdgeTemplate(
  upstream: string,
  port: number,
  options: { readTimeout?: string; maxConnectionsPerAddress?: string; maxStreamsPerAddress?: string } = {},
): Promise<string> {
  const template = await readFile(TEMPLATE, 'utf8');
  const env = {
    PASSPORT_API_UPSTREAM: upstream,
    PASSPORT_EDGE_PORT: `127.0.0.1:${port}`,
    ...(options.readTimeout !== undefined && { PASSPORT_EDGE_READ_TIMEOUT: options.readTimeout }),
    ...(options.maxConnectionsPerAddress !== undefined && {
      PASSPORT_EDGE_MAX_CONNECTIONS_PER_ADDRESS: options.maxConnectionsPerAddress,
    }),
    ...(options.maxStreamsPerAddress !== undefined && {
      PASSPORT_EDGE_MAX_STREAMS_PER_ADDRESS: options.maxStreamsPerAddress,
    }),
  };
  const rendered = template
    .replaceAll('${PASSPORT_API_SERVERS}', upstreamServers(upstream))
    .replaceAll('${PASSPORT_EDGE_READ_TIMEOUT}', scriptVariable('PASSPORT_EDGE_READ_TIMEOUT', env))
    .replaceAll(
      '${PASSPORT_EDGE_MAX_CONNECTIONS_PER_ADDRESS}',
      scriptVariable('PASSPORT_EDGE_MAX_CONNECTIONS_PER_ADDRESS', env),
    )
    .replaceAll(
      '${PASSPORT_EDGE_MAX_STREAMS_PER_ADDRESS}',
      scriptVariable('PASSPORT_EDGE_MAX_STREAMS_PER_ADDRESS', env),
    )
    .replaceAll('${PASSPORT_EDGE_LISTEN}', scriptVariable('PASSPORT_EDGE_LISTEN', env));
  const leftover = rendered.match(/\$\{[^}]*\}/);
  if (leftover) throw new Error(`the edge template has an undocumented variable: ${leftover[0]}`);
  return rendered;
}

/** A variable as the shipped script leaves it for `env` (exported for the script's own tests). */
export function edgeScriptVariable(name: string, env: Record<string, string>): string {
  return scriptVariable(name, env);
}
