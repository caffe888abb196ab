/**
 * DNS-rebinding protection for /mcp: the Host header (and Origin, when a browser sends one) must name
 * this deployment — the host of PUBLIC_BASE_URL — or a localhost form of the port that accepted the
 * connection. The SDK's own allowedHosts option is deprecated and off by default, and its helper only
 * exists for Express (engineering anchors §2.3), so the check lives here.
 */

const LOCAL_NAMES = ['localhost', '127.0.0.1', '[::1]'];

/** `host[:port]` forms allowed for a public URL, with and without its default port. */
function publicHostForms(publicBaseUrl: string): string[] {
  const url = new URL(publicBaseUrl);
  const defaultPort = url.protocol === 'https:' ? '443' : '80';
  const port = url.port || defaultPort;
  const forms = [`${url.hostname}:${port}`];
  if (port === defaultPort) forms.push(url.hostname);
  return forms.map((f) => f.toLowerCase());
}

export class McpHostAllowlist {
  private readonly publicForms: readonly string[];

  /**
   * `corsOrigins`: the browser origins the deployment lets call it (CORS_ORIGINS), whose pages may use
   * /mcp too; `*` admits any Origin (the Host check still refuses a rebound name).
   */
  constructor(
    publicBaseUrl: string,
    private readonly corsOrigins: readonly string[] | '*' = [],
  ) {
    this.publicForms = publicHostForms(publicBaseUrl);
  }

  /** True when `host` (a Host header value) names this deployment, given the local port that accepted it. */
  allowsHost(host: string | undefined, localPort: number | undefined): boolean {
    if (!host) return false;
    const value = host.trim().toLowerCase();
    if (this.publicForms.includes(value)) return true;
    return localPort !== undefined && LOCAL_NAMES.some((name) => value === `${name}:${localPort}`);
  }

  /** True when there is no Origin (non-browser client), it is a CORS_ORIGINS origin, or its host is allowed. */
  allowsOrigin(origin: string | undefined, localPort: number | undefined): boolean {
    if (origin === undefined) return true;
    if (this.corsOrigins === '*' ? origin !== 'null' : this.corsOrigins.includes(origin)) return true;
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      return false; // includes the opaque origin "null"
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
    const port = url.port || (url.protocol === 'https:' ? '443' : '80');
    return this.allowsHost(`${url.hostname}:${port}`, localPort);
  }
}
