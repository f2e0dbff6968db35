/**
 * Database URLs carry the PostgreSQL schema a service owns in Prisma's `?schema=` query parameter.
 * These helpers read and rewrite it without touching the rest of the URL (credentials, host,
 * other parameters keep their exact spelling).
 */

export const DEFAULT_SCHEMA = 'public';

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** True when `name` is a schema name we accept: lowercase, starts with a letter or `_`, ≤ 63 chars. */
export function isValidSchemaName(name: string): boolean {
  return SCHEMA_NAME.test(name);
}

/** Throws unless `name` is a valid schema name; every SQL that quotes a schema goes through this. */
export function assertSchemaName(name: string): string {
  if (!isValidSchemaName(name)) {
    throw new Error(
      `invalid schema name ${JSON.stringify(name)}: expected ${SCHEMA_NAME.source} (lowercase letters, digits, _)`,
    );
  }
  return name;
}

/** `"name"` — only for names that passed `assertSchemaName` (or are otherwise plain identifiers). */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

interface SplitUrl {
  base: string;
  params: string[];
  hash: string;
}

function splitUrl(url: string): SplitUrl {
  const hashAt = url.indexOf('#');
  const hash = hashAt >= 0 ? url.slice(hashAt) : '';
  const withoutHash = hashAt >= 0 ? url.slice(0, hashAt) : url;
  const queryAt = withoutHash.indexOf('?');
  if (queryAt < 0) return { base: withoutHash, params: [], hash };
  const query = withoutHash.slice(queryAt + 1);
  return {
    base: withoutHash.slice(0, queryAt),
    params: query === '' ? [] : query.split('&').filter((p) => p !== ''),
    hash,
  };
}

function joinUrl({ base, params, hash }: SplitUrl): string {
  return `${base}${params.length > 0 ? `?${params.join('&')}` : ''}${hash}`;
}

function decode(component: string): string {
  try {
    return decodeURIComponent(component.replace(/\+/g, ' '));
  } catch {
    return component;
  }
}

function paramName(param: string): string {
  const eq = param.indexOf('=');
  return decode(eq >= 0 ? param.slice(0, eq) : param);
}

function paramValue(param: string): string {
  const eq = param.indexOf('=');
  return eq >= 0 ? decode(param.slice(eq + 1)) : '';
}

/** The schema named by the URL's `?schema=` parameter, `public` when absent or empty. */
export function schemaFromUrl(url: string): string {
  const { params } = splitUrl(url);
  const last = params.filter((p) => paramName(p) === 'schema').pop();
  const value = last === undefined ? '' : paramValue(last);
  return value === '' ? DEFAULT_SCHEMA : value;
}

/** The URL with its `schema` parameter removed (pg does not know it); everything else unchanged. */
export function connectionStringWithoutSchema(url: string): string {
  const parts = splitUrl(url);
  return joinUrl({ ...parts, params: parts.params.filter((p) => paramName(p) !== 'schema') });
}

/** The URL pointing at `schema` (replaces any `schema` parameter). Throws on an invalid name. */
export function withSchema(url: string, schema: string): string {
  assertSchemaName(schema);
  const parts = splitUrl(url);
  const params = parts.params.filter((p) => paramName(p) !== 'schema');
  params.push(`schema=${encodeURIComponent(schema)}`);
  return joinUrl({ ...parts, params });
}
