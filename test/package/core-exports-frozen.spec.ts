/**
 * Every value the package exports that is data (an object or array, not a function or class) is frozen
 * all the way down: a caller must not be able to change, for the whole process, what the core decides
 * with (the fields a family signature covers, the metadata a login requires, the error catalogue).
 * The list of subpaths is read from package.json, so a new entry or a new exported table is covered.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const core = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../libs/passport-core');
const manifest = JSON.parse(readFileSync(path.join(core, 'package.json'), 'utf8')) as {
  exports: Record<string, unknown>;
};
const entries = Object.keys(manifest.exports).filter((key) => key !== './package.json' && !key.includes('*'));
/** The entry's module as the workspace resolves it (the sources, through the test mapper). */
const specifierOf = (entry: string): string =>
  entry === '.' ? '@passport/core' : `@passport/core/${entry.slice(2)}`;

/** Paths inside `value` that are not frozen (objects and arrays only; functions are code, not tables). */
function unfrozen(value: unknown, at: string, seen = new Set<unknown>()): string[] {
  if (value === null || typeof value !== 'object' || seen.has(value)) return [];
  seen.add(value);
  // Typed arrays cannot be frozen. A RegExp can (its lastIndex), though `compile` still changes it in
  // place: the library's functions keep their own copies (token-id and ulid specs).
  if (ArrayBuffer.isView(value)) return [];
  const found = Object.isFrozen(value) ? [] : [at];
  for (const key of Reflect.ownKeys(value)) {
    const child = (value as Record<PropertyKey, unknown>)[key as string];
    found.push(...unfrozen(child, `${at}.${String(key)}`, seen));
  }
  return found;
}

describe('exported data is frozen all the way down', () => {
  it.each(entries)('%s', async (entry) => {
    const exported = (await import(specifierOf(entry))) as Record<string, unknown>;
    const problems = Object.entries(exported).flatMap(([name, value]) => unfrozen(value, name));
    expect(problems).toEqual([]);
  });
});
