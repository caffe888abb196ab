/**
 * Review of 80a0def (urlForMessage): a password holding `#` or `?` (unencoded, as password generators
 * write them) makes the URL unparsable, and urlForMessage cuts at that character before it looks for
 * the userinfo's `@`: the user name and the password up to that character are quoted
 * (`https://admin:S3CR#…`). `/` in a password does not leak (the `@` is still before the cut).
 */
import { urlForMessage } from '@passport/core/codecs';
import { ConfigError, loadConfig } from '../../apps/api/src/platform/config/app-config.js';

function messageOf(env: Record<string, string>): string {
  try {
    loadConfig({ HOST: '127.0.0.1', PORT: '44051', DATA_DIR: '/tmp/unused', ...env });
  } catch (err) {
    if (err instanceof ConfigError) return err.message;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('a refused URL whose password holds # or ? is quoted without the password', () => {
  it.each([
    ['https://admin:S3CR#ET@api.example.com'],
    ['https://admin:S3CR?ET@api.example.com'],
    ['https://admin:S3CR#ET@rpc.example/?key=x'],
  ])('urlForMessage(%j)', (raw) => {
    expect(urlForMessage(raw)).not.toContain('S3CR');
    expect(urlForMessage(raw)).not.toContain('admin');
  });

  it.each<[string, Record<string, string>]>([
    ['PUBLIC_BASE_URL', { PUBLIC_BASE_URL: 'https://admin:S3CR#ET@api.example.com' }],
    [
      'NEAR_RPC_URL',
      { CHAIN: 'near', NEAR_CONTRACT_ID: 'passport.testnet', NEAR_RPC_URL: 'https://u:S3CR?ET@rpc.example' },
    ],
    ['CORS_ORIGINS', { CORS_ORIGINS: 'https://u:S3CR#ET@app.example' }],
  ])('%s', (_name, env) => {
    expect(messageOf(env)).not.toContain('S3CR');
  });
});
