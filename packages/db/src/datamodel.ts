import { readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';

/**
 * The part of Prisma's DMMF datamodel the drift check reads. Structural and loose on purpose: it
 * accepts the `datamodel.json` written by the `pasar-prisma-datamodel` generator (imported as JSON
 * or read with `readDatamodel`) as well as a `Prisma.dmmf.datamodel` from a `prisma-client-js` client.
 */
export interface DatamodelField {
  readonly name: string;
  /** `scalar` | `enum` | `object` (relation) | `unsupported` */
  readonly kind: string;
  /** Prisma type (`String`, `Int`, …) or the enum / related model name. */
  readonly type: string;
  readonly dbName?: string | null;
  readonly isRequired: boolean;
  readonly isList: boolean;
  /** `[name, args]` for `@db.Name(args)`, e.g. `["VarChar", ["320"]]`; null/absent when none. */
  readonly nativeType?: readonly unknown[] | null;
}

export interface DatamodelModel {
  readonly name: string;
  readonly dbName?: string | null;
  readonly fields: readonly DatamodelField[];
}

export interface DatamodelEnum {
  readonly name: string;
  readonly dbName?: string | null;
  readonly values: readonly { readonly name: string; readonly dbName?: string | null }[];
}

export interface PrismaDatamodel {
  readonly models: readonly DatamodelModel[];
  readonly enums?: readonly DatamodelEnum[];
}

/** File name the `pasar-prisma-datamodel` generator writes into its output folder. */
export const DATAMODEL_FILE = 'datamodel.json';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isDatamodel(value: unknown): value is PrismaDatamodel {
  if (!isRecord(value) || !Array.isArray(value.models)) return false;
  return value.models.every(
    (m: unknown) =>
      isRecord(m) &&
      typeof m.name === 'string' &&
      Array.isArray(m.fields) &&
      m.fields.every(
        (f: unknown) =>
          isRecord(f) &&
          typeof f.name === 'string' &&
          typeof f.kind === 'string' &&
          typeof f.type === 'string' &&
          typeof f.isRequired === 'boolean' &&
          typeof f.isList === 'boolean',
      ),
  );
}

/**
 * Reads the datamodel written by the `pasar-prisma-datamodel` generator. `location` is its output
 * folder (holding `datamodel.json`) or the file itself.
 */
export function readDatamodel(location: string): PrismaDatamodel {
  const file = statSync(location, { throwIfNoEntry: false })?.isDirectory()
    ? path.join(location, DATAMODEL_FILE)
    : location;
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(
      `cannot read the Prisma datamodel at ${file} (${(error as Error).message}); ` +
        'add the `pasar-prisma-datamodel` generator to schema.prisma and run `prisma generate`',
      { cause: error },
    );
  }
  if (!isDatamodel(parsed)) throw new Error(`${file} is not a Prisma DMMF datamodel`);
  return parsed;
}
