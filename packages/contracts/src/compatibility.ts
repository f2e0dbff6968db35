import { z } from 'zod';

/**
 * Consumer-driven contract checks (README "Message contracts"). A consumer fixture is a JSON
 * example of what one consumer relies on in a message; these say whether the producer's schema
 * still gives it that.
 */

type Path = (string | number)[];
type JsonSchemaNode = {
  properties?: Record<string, JsonSchemaNode>;
  items?: JsonSchemaNode;
  additionalProperties?: JsonSchemaNode | boolean;
  anyOf?: JsonSchemaNode[];
  oneOf?: JsonSchemaNode[];
  allOf?: JsonSchemaNode[];
};

function valueAt(example: unknown, path: readonly PropertyKey[]): unknown {
  let value = example;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/** The paths to every leaf (scalar, null, empty array or object) of an example. */
export function leafPaths(example: unknown, prefix: Path = []): Path[] {
  if (Array.isArray(example)) {
    return example.length ? example.flatMap((item, index) => leafPaths(item, [...prefix, index])) : [prefix];
  }
  if (example !== null && typeof example === 'object') {
    const entries = Object.entries(example);
    return entries.length ? entries.flatMap(([key, value]) => leafPaths(value, [...prefix, key])) : [prefix];
  }
  return [prefix];
}

/** Whether a JSON Schema (as zod renders it) declares a value at `path`. */
function declares(node: JsonSchemaNode | boolean | undefined, path: Path): boolean {
  if (path.length === 0 || node === true) return true;
  if (!node || typeof node !== 'object') return false;
  if (Object.keys(node).length === 0) return true; // unknown / any
  const branches = [...(node.anyOf ?? []), ...(node.oneOf ?? []), ...(node.allOf ?? [])];
  if (branches.some((branch) => declares(branch, path))) return true;
  const [head, ...rest] = path;
  if (typeof head === 'number') return node.items !== undefined && declares(node.items, rest);
  if (node.properties && head in node.properties) return declares(node.properties[head], rest);
  if (node.additionalProperties && typeof node.additionalProperties === 'object') return declares(node.additionalProperties, rest);
  return false;
}

const show = (path: readonly PropertyKey[]) => (path.length ? path.map(String).join('.') : '(the message)');

/**
 * What breaks a reader of `example` (an event's data, an rpc response) if the producer sends what
 * `schema` describes: a field of the example the schema no longer declares (removed or renamed),
 * or a value of the example it no longer accepts (retyped, narrowed). A field the schema has and
 * the example lacks is fine: the producer added it, and this reader does not use it.
 */
export function breaksReader(schema: z.ZodType, example: unknown): string[] {
  const problems: string[] = [];
  const parsed = schema.safeParse(example);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      if (issue.path.length > 0 && valueAt(example, issue.path) === undefined) continue; // a field the reader does not use
      problems.push(`${show(issue.path)}: ${issue.message}`);
    }
  }
  const json = z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any' }) as JsonSchemaNode;
  for (const path of leafPaths(example)) {
    if (!declares(json, path)) problems.push(`${show(path)}: no longer in the producer's schema`);
  }
  return [...new Set(problems)];
}

/** What breaks a caller that sends `example` to a server expecting `schema`: every difference counts (a newly required field too). */
export function breaksCaller(schema: z.ZodType, example: unknown): string[] {
  const parsed = schema.safeParse(example);
  return parsed.success ? [] : parsed.error.issues.map((issue) => `${show(issue.path)}: ${issue.message}`);
}
