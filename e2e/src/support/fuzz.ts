/**
 * The pieces of the OpenAPI-driven fuzz test (e2e/src/fuzz.test.ts; its seeded generator is
 * testkit's `seededRandom`): a sampler that builds a plausible value from a JSON Schema of the
 * served document, and the bad variants of bodies, path parameters and queries sent to every
 * operation.
 */

export type JsonSchema = {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  minItems?: number;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  default?: unknown;
  example?: unknown;
  examples?: unknown[];
};

export interface OpenApiParameter {
  in: 'path' | 'query' | 'header' | 'cookie';
  name: string;
  required?: boolean;
  schema?: JsonSchema;
}

export interface OpenApiOperation {
  security?: unknown[];
  parameters?: OpenApiParameter[];
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, OpenApiOperation>>;
  components?: { schemas?: Record<string, JsonSchema> };
}

export interface Operation {
  method: string;
  /** The path template, e.g. `/account/addresses/{id}`. */
  path: string;
  isPublic: boolean;
  pathParams: OpenApiParameter[];
  queryParams: OpenApiParameter[];
  body?: JsonSchema;
}

const METHODS = new Set(['get', 'post', 'put', 'patch', 'delete']);

/** Every operation of the document, in document order. */
export function operationsOf(document: OpenApiDocument): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!METHODS.has(method)) continue;
      const parameters = operation.parameters ?? [];
      operations.push({
        method: method.toUpperCase(),
        path,
        isPublic: Array.isArray(operation.security) && operation.security.length === 0,
        pathParams: parameters.filter((p) => p.in === 'path'),
        queryParams: parameters.filter((p) => p.in === 'query'),
        body: operation.requestBody?.content?.['application/json']?.schema,
      });
    }
  }
  return operations;
}

/** Strings tried, in order, against a `pattern` the sampler cannot otherwise satisfy. */
const PATTERN_CANDIDATES = ['10.00', '10', 'FUZZ-CODE-1', 'images/fuzz.png', '0123456789abcdef0123456789abcdef', 'fuzz', 'A1'];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const POOL_SIZE = 50;

/**
 * Ids that exist in the stack, by the field name they were seen under (`productId`, `storeId`,
 * `id`...): seeded with what the test created, then grown from every 2xx answer (bodies and
 * Location headers), so later requests reach real rows and not only "not found".
 */
export class IdPool {
  private readonly byName = new Map<string, string[]>();
  private readonly everything: string[] = [];

  add(name: string, id: string): void {
    if (!UUID.test(id)) return;
    const named = this.byName.get(name) ?? [];
    if (!named.includes(id)) named.push(id);
    if (named.length > POOL_SIZE) named.shift();
    this.byName.set(name, named);
    if (!this.everything.includes(id)) this.everything.push(id);
    if (this.everything.length > POOL_SIZE * 4) this.everything.shift();
  }

  /** Every id-looking field of an answer (`id`, `*Id`, `*_id`), walked `maxDepth` levels deep. */
  harvest(value: unknown, maxDepth = 4, name = 'id'): void {
    if (typeof value === 'string') return this.add(name, value);
    if (maxDepth === 0 || value === null || typeof value !== 'object') return;
    if (Array.isArray(value)) {
      for (const inner of value.slice(0, 20)) this.harvest(inner, maxDepth - 1, name);
      return;
    }
    for (const [key, inner] of Object.entries(value)) {
      const idLike = key === 'id' || key.endsWith('Id') || key.endsWith('_id');
      if (idLike && typeof inner === 'string') this.add(key, inner);
      else if (typeof inner === 'object') this.harvest(inner, maxDepth - 1, key === 'items' ? 'orderItemId' : 'id');
    }
  }

  named(name: string): readonly string[] {
    return this.byName.get(name) ?? [];
  }

  all(): readonly string[] {
    return this.everything;
  }
}

export class SchemaSampler {
  /** How often an optional property is filled in (0: required properties only, the likeliest valid body). */
  optionalShare = 0.7;

  constructor(
    private readonly document: OpenApiDocument,
    private readonly random: () => number,
    /** Ids that exist in the stack: uuid fields take one of them most of the time. */
    private readonly ids: IdPool,
  ) {}

  resolve(schema: JsonSchema): JsonSchema {
    let current = schema;
    for (let hops = 0; current.$ref && hops < 10; hops += 1) {
      const name = current.$ref.replace('#/components/schemas/', '');
      current = this.document.components?.schemas?.[name] ?? {};
    }
    return current;
  }

  private pick<T>(values: readonly T[]): T {
    return values[Math.floor(this.random() * values.length)];
  }

  /** An id for a field called `name`: one seen under that name, or any known one, or a fresh one. */
  uuid(name = 'id'): string {
    const named = this.ids.named(name);
    if (named.length > 0 && this.random() < 0.8) return this.pick(named);
    const all = this.ids.all();
    if (all.length > 0 && this.random() < 0.7) return this.pick(all);
    const hex = () => Math.floor(this.random() * 16).toString(16);
    const part = (n: number) => Array.from({ length: n }, hex).join('');
    return `${part(8)}-${part(4)}-4${part(3)}-8${part(3)}-${part(12)}`;
  }

  /** A plausible value of the schema (valid where the sampler knows how), `depth`-bounded; `name` is the field's. */
  sample(input: JsonSchema, depth = 0, name = 'id'): unknown {
    const schema = this.resolve(input);
    if (depth > 8) return null;
    if (schema.const !== undefined) return schema.const;
    if (schema.enum && schema.enum.length > 0) return this.pick(schema.enum);
    if (schema.example !== undefined) return schema.example;
    if (schema.examples && schema.examples.length > 0) return schema.examples[0];
    const variants = schema.anyOf ?? schema.oneOf;
    if (variants) {
      const nonNull = variants.filter((v) => this.resolve(v).type !== 'null');
      return this.sample(nonNull.length > 0 ? nonNull[0] : variants[0], depth + 1, name);
    }
    if (schema.allOf && schema.allOf.length > 0) return this.sample(schema.allOf[0], depth + 1, name);
    const types = Array.isArray(schema.type) ? schema.type.filter((t) => t !== 'null') : schema.type ? [schema.type] : [];
    const type = types[0] ?? (schema.properties ? 'object' : undefined);
    switch (type) {
      case 'object': {
        const result: Record<string, unknown> = {};
        for (const [key, property] of Object.entries(schema.properties ?? {})) {
          // required fields always; optional ones most of the time, so both shapes are tried
          if (schema.required?.includes(key) || this.random() < this.optionalShare) result[key] = this.sample(property, depth + 1, key);
        }
        return result;
      }
      case 'array': {
        const count = Math.max(1, schema.minItems ?? 0);
        return Array.from({ length: count }, () => this.sample(schema.items ?? {}, depth + 1, name));
      }
      case 'integer':
      case 'number': {
        const low = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : 1);
        const high = schema.maximum ?? low + 10;
        const value = low + Math.floor(this.random() * Math.min(5, high - low + 1));
        return Math.min(value, high);
      }
      case 'boolean':
        return this.random() < 0.5;
      case 'string':
        return this.sampleString(schema, name);
      default:
        return null;
    }
  }

  private sampleString(schema: JsonSchema, name: string): string {
    if (schema.format === 'uuid') return this.uuid(name);
    if (schema.format === 'email') return `fuzz-${Math.floor(this.random() * 1e9)}@fuzz.pasar.test`;
    if (schema.format === 'date-time') return new Date(Date.UTC(2030, 0, 1 + Math.floor(this.random() * 300))).toISOString();
    if (schema.format === 'uri') return 'https://example.test/fuzz';
    if (schema.pattern) {
      const pattern = new RegExp(schema.pattern);
      const fitting = PATTERN_CANDIDATES.find((candidate) => pattern.test(candidate));
      if (fitting) return fitting;
    }
    const length = Math.max(schema.minLength ?? 1, Math.min(schema.maxLength ?? 12, 12));
    return 'fuzz-value-'.padEnd(length, 'x').slice(0, Math.max(length, 1));
  }
}

/** A path into a sample: keys and array indexes. */
export type FieldPath = (string | number)[];

/** Every field of a sample (objects and arrays walked, `maxDepth` levels), the root excluded. */
export function fieldsOf(value: unknown, maxDepth = 3, prefix: FieldPath = []): FieldPath[] {
  if (prefix.length >= maxDepth || value === null || typeof value !== 'object') return [];
  const entries: [string | number, unknown][] = Array.isArray(value) ? value.map((v, i) => [i, v]) : Object.entries(value);
  return entries.flatMap(([key, inner]) => [[...prefix, key], ...fieldsOf(inner, maxDepth, [...prefix, key])]);
}

/** A deep copy of `value` with the field at `path` replaced (or removed when `replacement` is REMOVE). */
export const REMOVE = Symbol('remove');
export function withField(value: unknown, path: FieldPath, replacement: unknown): unknown {
  const copy = structuredClone(value) as Record<string | number, unknown>;
  let parent = copy;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
  const last = path[path.length - 1];
  if (replacement === REMOVE) {
    if (Array.isArray(parent)) parent.splice(Number(last), 1);
    else delete parent[last];
  } else {
    parent[last] = replacement;
  }
  return copy;
}

export const HUGE_STRING = 'x'.repeat(100_000);

/** Values that replace one field: wrong types, missing, huge strings and numbers, NUL, overflows. */
export function fieldMutations(original: unknown): { name: string; value: unknown }[] {
  const wrongType = typeof original === 'string' ? 12345 : typeof original === 'number' ? 'not-a-number' : typeof original === 'boolean' ? 'yes' : 'not-an-object';
  return [
    { name: 'missing', value: REMOVE },
    { name: 'wrong type', value: wrongType },
    { name: 'null', value: null },
    { name: 'huge string', value: HUGE_STRING },
    { name: 'NUL character', value: typeof original === 'string' ? `${original}\u0000` : 'nul\u0000' },
    { name: 'lone surrogate', value: 'x\ud800' },
    { name: 'huge number', value: 1e308 },
    { name: 'int4 overflow', value: 2_147_483_648 },
    { name: 'numeric(12,2) overflow', value: 99_999_999_999_999 },
    { name: 'numeric(12,2) overflow as a string', value: '99999999999999.99' },
    { name: 'negative', value: -1 },
    { name: 'fraction', value: 0.001 },
    { name: 'nested object', value: { a: { b: [1, 'two'] } } },
    { name: 'special characters', value: `%_\\'"; DROP TABLE x; -- \u202e\u{1F375}` },
    { name: 'huge array', value: Array.from({ length: 10_000 }, () => (Array.isArray(original) && original.length > 0 ? original[0] : 1)) },
  ];
}

/** Whole-body variants: sent with the given content type and raw text. */
export function bodyMutations(sample: unknown): { name: string; contentType: string; text: string }[] {
  const json = 'application/json';
  return [
    { name: 'bad JSON', contentType: json, text: '{"unterminated": ' },
    { name: 'bad JSON (single quotes)', contentType: json, text: "{'a': 1}" },
    { name: 'empty JSON object', contentType: json, text: '{}' },
    { name: 'JSON array', contentType: json, text: JSON.stringify([sample]) },
    { name: 'JSON string', contentType: json, text: '"just a string"' },
    { name: 'JSON null', contentType: json, text: 'null' },
    { name: 'nested 5,000 levels', contentType: json, text: '{"a":'.repeat(5000) + '1' + '}'.repeat(5000) },
    { name: 'flat array of 500,000 items', contentType: json, text: `[${'0,'.repeat(499_999)}0]` },
    { name: 'NUL in a key', contentType: json, text: JSON.stringify({ ['key\u0000']: 1, ...(sample as object) }) },
    { name: 'wrong content type (text/plain)', contentType: 'text/plain', text: JSON.stringify(sample) },
    { name: 'wrong content type (form)', contentType: 'application/x-www-form-urlencoded', text: 'a=1&b=%E0%A4%A&c=%00' },
    { name: 'unknown extra fields', contentType: json, text: JSON.stringify({ ...(sample as object), __proto__x: 1, extra: HUGE_STRING }) },
  ];
}

/** Replacements of one path parameter (raw, inserted in the URL as is). */
export const PATH_PARAM_MUTATIONS = [
  { name: 'not a uuid', raw: 'not-a-uuid' },
  { name: 'bad percent-encoding', raw: '%E0%A4%A' },
  { name: 'lone percent', raw: '%' },
  { name: 'encoded NUL', raw: 'a%00b' },
  { name: 'long value', raw: 'x'.repeat(4000) },
  { name: 'encoded slash and dots', raw: '..%2F..%2Fadmin' },
  { name: 'nil uuid', raw: '00000000-0000-0000-0000-000000000000' },
];

/** Replacements of one query parameter (raw, already URL-encoded). */
export const QUERY_MUTATIONS = [
  { name: 'wrong type', raw: 'abc' },
  { name: 'huge number', raw: '99999999999999999999999' },
  { name: 'negative', raw: '-1' },
  { name: 'zero', raw: '0' },
  { name: 'fraction', raw: '1.5' },
  { name: 'long value', raw: 'y'.repeat(4000) },
  { name: 'encoded NUL', raw: 'a%00' },
  { name: 'bad percent-encoding', raw: '%E0%A4%A' },
  { name: 'repeated', raw: '1&{name}=2' },
  { name: 'special characters', raw: encodeURIComponent(`%_\\'"; --\u{1F375}`) },
];

/** Odd headers sent once per operation: a bad session cookie, an over-long or non-ASCII Idempotency-Key. */
export const HEADER_MUTATIONS: { name: string; headers: Record<string, string> }[] = [
  { name: 'malformed session cookie', headers: { cookie: 'pasar.session_token=%E0%A4%A' } },
  { name: 'huge session cookie', headers: { cookie: `pasar.session_token=${'z'.repeat(4000)}` } },
  { name: 'cookie without a value', headers: { cookie: 'pasar.session_token' } },
  { name: 'huge Idempotency-Key', headers: { 'idempotency-key': 'k'.repeat(4000) } },
  { name: 'non-ASCII Idempotency-Key', headers: { 'idempotency-key': 'cl\u00e9-\u00ff' } },
  { name: 'empty Idempotency-Key', headers: { 'idempotency-key': '' } },
];
