/**
 * Reading environment variables for the configuration: each reader trims, treats an empty value as
 * unset, checks the value and throws ConfigError naming the variable.
 */
import { urlForMessage } from '@passport/core/codecs';
import { ConfigError } from './config.error.js';

export type Env = Readonly<Record<string, string | undefined>>;

/** Reads a variable, treating empty and whitespace-only values as unset. */
export function read(env: Env, name: string): string | undefined {
  const value = env[name];
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}

export function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw))
    throw new ConfigError(name, `must be an integer from ${min} to ${max} (got "${raw}")`);
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new ConfigError(name, `must be an integer from ${min} to ${max} (got "${raw}")`);
  }
  return value;
}

export function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  const lower = raw.toLowerCase();
  if (!(allowed as readonly string[]).includes(lower)) {
    throw new ConfigError(name, `must be one of ${allowed.join(', ')} (got "${raw}")`);
  }
  return lower as T;
}

export function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  const lower = raw.toLowerCase();
  if (lower === 'true' || lower === '1') return true;
  if (lower === 'false' || lower === '0') return false;
  throw new ConfigError(name, `must be true, false, 1 or 0 (got "${raw}")`);
}

export function list(env: Env, name: string): string[] {
  const raw = read(env, name);
  if (raw === undefined) return [];
  return raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** A contract method name: what NEAR accepts as one (letters, digits, `_`), at most 256 characters. */
export function methodName(env: Env, name: string, fallback: string): string {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,255}$/.test(raw))
    throw new ConfigError(name, `must be a contract method name: letters, digits and _ (got "${raw}")`);
  return raw;
}

export function httpUrl(name: string, raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(name, `must be an absolute http(s) URL (got "${urlForMessage(raw)}")`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(name, `must be an absolute http(s) URL (got "${urlForMessage(raw)}")`);
  }
  if (url.username || url.password) throw new ConfigError(name, 'must not contain credentials');
  return url;
}

/** `*` alone, or origins written as the URL standard serialises them (`https://app.example[:port]`). */
export function corsOriginList(entries: string[]): readonly string[] | '*' {
  if (entries.length === 1 && entries[0] === '*') return '*';
  return entries.map((entry) => {
    let origin: string | undefined;
    try {
      const url = new URL(entry);
      if (url.protocol === 'http:' || url.protocol === 'https:') origin = url.origin;
    } catch {
      origin = undefined;
    }
    if (origin !== entry.toLowerCase().replace(/\/$/, '') || origin === undefined)
      throw new ConfigError(
        'CORS_ORIGINS',
        `must be * or a comma-separated list of origins written as a browser sends them: http(s)://host[:port], no path, the default port left out, an international host in punycode${origin ? ` (got "${urlForMessage(entry)}", meaning "${origin}")` : ` (got "${urlForMessage(entry)}")`}`,
      );
    return origin;
  });
}
