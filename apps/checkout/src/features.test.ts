/**
 * The feature registry: every `src/<feature>/feature.ts` is listed once in `features.ts`, and no
 * module below `src/` imports the registry (feature modules take their type from `../feature`),
 * so there is no import circle between the registry and the features.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { features } from './features';

const SRC = __dirname;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'generated' ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

test('every feature module is in the registry, once', () => {
  const featureDirs = readdirSync(SRC, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && sourceFiles(join(SRC, entry.name)).some((file) => file.endsWith('/feature.ts')))
    .map((entry) => entry.name);
  const registry = readFileSync(join(SRC, 'features.ts'), 'utf8');
  for (const dir of featureDirs) expect(registry).toContain(`./${dir}/feature'`);
  const names = features.map((feature) => feature.name);
  expect(new Set(names).size).toBe(names.length);
  expect(names.length).toBeGreaterThanOrEqual(featureDirs.length);
});

test('no module below src/ imports the registry', () => {
  const importers = sourceFiles(SRC)
    .filter((file) => !file.endsWith('features.test.ts'))
    .filter((file) => /from '(\.\.\/)+features'/.test(readFileSync(file, 'utf8')));
  expect(importers).toEqual([]);
});
