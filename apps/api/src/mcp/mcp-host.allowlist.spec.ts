/** The /mcp Host/Origin allowlist: the public host, localhost forms of the accepting port, nothing else. */
import { McpHostAllowlist } from './mcp-host.allowlist.js';

describe('McpHostAllowlist', () => {
  const https = new McpHostAllowlist('https://id.example.com');
  const custom = new McpHostAllowlist('http://id.example.com:8080');

  it.each([
    ['id.example.com', 3000],
    ['ID.EXAMPLE.COM', 3000],
    ['id.example.com:443', 3000],
    ['localhost:3000', 3000],
    ['127.0.0.1:3000', 3000],
    ['[::1]:3000', 3000],
  ])('allows Host %s (local port %d) for https://id.example.com', (host, port) => {
    expect(https.allowsHost(host, port)).toBe(true);
  });

  it.each([
    ['evil.example', 3000],
    ['id.example.com:8443', 3000],
    ['id.example.com.evil.example', 3000],
    ['localhost:3001', 3000],
    ['localhost', 3000],
    ['127.0.0.1:3000', undefined],
    ['', 3000],
  ])('refuses Host %s (local port %s)', (host, port) => {
    expect(https.allowsHost(host, port)).toBe(false);
  });

  it('requires the explicit non-default port of the public URL', () => {
    expect(custom.allowsHost('id.example.com:8080', 1)).toBe(true);
    expect(custom.allowsHost('id.example.com', 1)).toBe(false);
  });

  it('refuses a missing Host header', () => {
    expect(https.allowsHost(undefined, 3000)).toBe(false);
  });

  it('allows no Origin and origins naming an allowed host', () => {
    expect(https.allowsOrigin(undefined, 3000)).toBe(true);
    expect(https.allowsOrigin('https://id.example.com', 3000)).toBe(true);
    expect(https.allowsOrigin('http://localhost:3000', 3000)).toBe(true);
  });

  it.each([
    'https://evil.example',
    'http://id.example.com',
    'null',
    'file:///x',
    'not a url',
    'http://localhost:9999',
  ])('refuses Origin %s', (origin) => {
    expect(https.allowsOrigin(origin, 3000)).toBe(false);
  });

  it('admits the CORS_ORIGINS origins as Origin (the Host check unchanged); * admits any but the opaque null', () => {
    const withCors = new McpHostAllowlist('https://id.example.com', ['http://127.0.0.1:5173']);
    expect(withCors.allowsOrigin('http://127.0.0.1:5173', 3000)).toBe(true);
    expect(withCors.allowsOrigin('http://127.0.0.1:5174', 3000)).toBe(false);
    expect(withCors.allowsHost('evil.example', 3000)).toBe(false);
    const any = new McpHostAllowlist('https://id.example.com', '*');
    expect(any.allowsOrigin('https://anything.example', 3000)).toBe(true);
    expect(any.allowsOrigin('null', 3000)).toBe(false);
    expect(https.allowsOrigin('http://127.0.0.1:5173', 3000)).toBe(false);
  });
});
