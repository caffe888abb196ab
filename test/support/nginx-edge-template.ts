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

/** PASSPORT_API_SERVERS as the image's entrypoint makes it: the shipped script, sourced by sh. */
export function upstreamServers(upstream: string): string {
  return execFileSync(
    'sh',
    ['-c', `. "$1" && printf '%s' "$PASSPORT_API_SERVERS"`, 'sh', UPSTREAMS_SCRIPT.pathname],
    {
      env: { PATH: process.env.PATH ?? '', PASSPORT_API_UPSTREAM: upstream },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
}

/** The template with PASSPORT_API_SERVERS and PASSPORT_EDGE_PORT substituted (and nothing else). */
export async function renderEdgeTemplate(upstream: string, port: number): Promise<string> {
  const template = await readFile(TEMPLATE, 'utf8');
  const rendered = template
    .replaceAll('${PASSPORT_API_SERVERS}', upstreamServers(upstream))
    .replaceAll('${PASSPORT_EDGE_PORT}', `127.0.0.1:${port}`);
  const leftover = rendered.match(/\$\{[^}]*\}/);
  if (leftover) throw new Error(`the edge template has an undocumented variable: ${leftover[0]}`);
  return rendered;
}
