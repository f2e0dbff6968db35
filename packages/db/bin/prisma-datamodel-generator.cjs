// @ts-check
/**
 * A Prisma generator that writes the full DMMF datamodel of a schema to `<output>/datamodel.json`.
 *
 * Why: the `prisma-client` generator (Prisma 7) keeps only a pruned `runtimeDataModel` inside the
 * client (no `isRequired`, no native types, no enum `@@map`) and no longer exposes `Prisma.dmmf`.
 * `checkDrift` needs all of that, so every app adds this generator next to its client:
 *
 *   generator datamodel {
 *     provider = "pasar-prisma-datamodel"
 *     output   = "../src/generated/prisma"
 *   }
 *
 * It speaks Prisma's generator protocol (the one `@prisma/generator-helper` implements): JSON-RPC
 * requests arrive one per line on stdin, responses go one per line to stderr. No dependencies, so
 * it runs offline and before anything is built.
 */
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const readline = require('node:readline');

const FILE_NAME = 'datamodel.json';

/**
 * @param {unknown} params the `generate` request's params (Prisma's GeneratorOptions)
 * @returns {string} the file written
 */
function writeDatamodel(params) {
  const options = /** @type {{ dmmf?: { datamodel?: unknown }, generator?: { output?: { value?: string | null } | null } }} */ (
    params
  );
  const output = options.generator?.output?.value;
  if (!output) throw new Error('pasar-prisma-datamodel: the generator block needs an `output`');
  const datamodel = options.dmmf?.datamodel;
  if (!datamodel) throw new Error('pasar-prisma-datamodel: Prisma sent no dmmf.datamodel');
  fs.mkdirSync(output, { recursive: true });
  const file = path.join(output, FILE_NAME);
  fs.writeFileSync(file, JSON.stringify(datamodel, null, 2) + '\n');
  return file;
}

/** @param {unknown} message */
function reply(message) {
  process.stderr.write(JSON.stringify(message) + '\n');
}

function main() {
  const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  lines.on('line', (line) => {
    if (!line.trim()) return;
    /** @type {{ id?: number, method?: string, params?: unknown }} */
    let request;
    try {
      request = JSON.parse(line);
    } catch {
      return;
    }
    const { id, method, params } = request;
    try {
      if (method === 'getManifest') {
        reply({
          jsonrpc: '2.0',
          id,
          result: {
            manifest: {
              prettyName: 'Pasar datamodel (DMMF for the drift check)',
              defaultOutput: '../src/generated/prisma',
              requiresGenerators: [],
            },
          },
        });
      } else if (method === 'generate') {
        writeDatamodel(params);
        reply({ jsonrpc: '2.0', id, result: null });
      } else {
        reply({ jsonrpc: '2.0', id, error: { code: -32601, message: `unknown method ${String(method)}` } });
      }
    } catch (error) {
      const err = error instanceof Error ? error : new Error(String(error));
      reply({ jsonrpc: '2.0', id, error: { code: -32000, message: err.message, data: { stack: err.stack } } });
    }
  });
}

module.exports = { main, writeDatamodel, FILE_NAME };

if (require.main === module) main();
