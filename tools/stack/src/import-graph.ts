/**
 * The import graph of apps/, packages/ and tools/, read with TypeScript's own scanner
 * (`ts.preProcessFile`) and module resolution: relative imports and `@pasar/*` workspace
 * imports become edges between files; everything else (node:, npm packages) is left out.
 * `cycles` finds the circles, between files and between rooms (a room is a folder directly
 * under a package's `src/`; a file directly in `src/` is a room of its own).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import ts from 'typescript';

export const ROOT = join(__dirname, '..', '..', '..');
const AREAS = ['apps', 'packages', 'tools'];
const SKIP_DIRS = new Set(['node_modules', 'generated', 'dist', '.turbo', 'coverage']);
const SOURCE = /\.(ts|tsx|mts|cts)$/;

/** One import: the file that imports, the file imported, and the specifier as written. */
export interface ImportEdge {
  from: string;
  to: string;
  specifier: string;
}

/** A circle: the nodes in order (the last imports the first) and the import behind each arrow. */
export interface Cycle {
  nodes: string[];
  edges: ImportEdge[];
}

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      if (!SKIP_DIRS.has(entry.name) && !entry.name.startsWith('.')) sourceFiles(join(dir, entry.name), out);
    } else if (SOURCE.test(entry.name) && !entry.name.endsWith('.d.ts')) {
      out.push(join(dir, entry.name));
    }
  }
  return out;
}

/** Every source file under apps/, packages/ and tools/, relative to the repository root. */
export function listSources(root = ROOT): string[] {
  return AREAS.flatMap((area) => sourceFiles(join(root, area))).map((f) => relative(root, f).split(sep).join('/')).sort();
}

/** The import edges between the repository's own files. */
export function importEdges(root = ROOT): ImportEdge[] {
  const files = listSources(root);
  const known = new Set(files);
  const options: ts.CompilerOptions = {
    module: ts.ModuleKind.Preserve,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    allowJs: false,
    jsx: ts.JsxEmit.ReactJSX,
    resolveJsonModule: false,
  };
  const host: ts.ModuleResolutionHost = ts.sys;
  const cache = ts.createModuleResolutionCache(root, (f) => f, options);
  const edges: ImportEdge[] = [];
  for (const file of files) {
    const abs = join(root, file);
    const info = ts.preProcessFile(readFileSync(abs, 'utf8'), true, true);
    for (const { fileName: specifier } of info.importedFiles) {
      if (!specifier.startsWith('.') && !specifier.startsWith('@pasar/')) continue;
      const resolved = ts.resolveModuleName(specifier, abs, options, host, cache).resolvedModule;
      if (!resolved) continue;
      const target = relative(root, resolved.resolvedFileName).split(sep).join('/');
      if (known.has(target) && target !== file) edges.push({ from: file, to: target, specifier });
    }
  }
  return edges;
}

/** `apps/checkout/src/orders/submit.ts` → `apps/checkout/src/orders`; a file directly in src/ is its own room. */
export function roomOf(file: string): string {
  const parts = file.split('/');
  const src = parts.indexOf('src');
  if (src < 0) return file;
  return parts.length > src + 2 ? parts.slice(0, src + 2).join('/') : file;
}

/** Test code: a test, a room's test fixtures, a service's test harness (`apps/<svc>/test/`). */
const TEST_CODE = /\.test\.tsx?$|(^|\/)test-fixtures\.ts$|^(apps|packages|tools)\/[^/]+\/test\//;

/**
 * The same graph between rooms; each room-to-room arrow keeps one import that makes it. The
 * imports of test code are left out: a test, its fixtures and its service's harness may reach into
 * any room, and product code never imports them (a file cycle through them still fails).
 */
export function roomEdges(edges: ImportEdge[]): ImportEdge[] {
  const seen = new Map<string, ImportEdge>();
  for (const edge of edges) {
    if (TEST_CODE.test(edge.from)) continue;
    const from = roomOf(edge.from);
    const to = roomOf(edge.to);
    if (from === to) continue;
    const key = `${from}\0${to}`;
    if (!seen.has(key)) seen.set(key, { from, to, specifier: `${edge.from} imports '${edge.specifier}'` });
  }
  return [...seen.values()];
}

/**
 * Every circle worth reading: for each strongly connected component, for each arrow inside it,
 * the shortest circle through that arrow (deduplicated). A graph without circles answers [].
 */
export function cycles(edges: ImportEdge[]): Cycle[] {
  const out = new Map<string, ImportEdge[]>();
  for (const edge of edges) out.set(edge.from, [...(out.get(edge.from) ?? []), edge]);

  // Tarjan's strongly connected components
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const component = new Map<string, number>();
  let counter = 0;
  let components = 0;
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter);
    counter += 1;
    stack.push(node);
    onStack.add(node);
    for (const { to } of out.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) {
        low.set(node, Math.min(low.get(node)!, index.get(to)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.set(member, components);
      } while (member !== node);
      components += 1;
    }
  };
  for (const node of [...out.keys()].sort()) if (!index.has(node)) visit(node);

  const found = new Map<string, Cycle>();
  for (const edge of edges) {
    if (component.get(edge.from) !== component.get(edge.to)) continue;
    // shortest path back from edge.to to edge.from, inside the component
    const previous = new Map<string, ImportEdge>();
    const queue = [edge.to];
    const reached = new Set([edge.to]);
    while (queue.length && !reached.has(edge.from)) {
      const node = queue.shift()!;
      for (const next of out.get(node) ?? []) {
        if (reached.has(next.to) || component.get(next.to) !== component.get(edge.from)) continue;
        reached.add(next.to);
        previous.set(next.to, next);
        queue.push(next.to);
      }
    }
    const path: ImportEdge[] = [edge];
    for (let node = edge.from; node !== edge.to; node = previous.get(node)!.from) path.splice(1, 0, previous.get(node)!);
    const nodes = path.map((e) => e.from);
    const start = nodes.indexOf([...nodes].sort()[0]);
    const rotated = [...path.slice(start), ...path.slice(0, start)];
    const key = rotated.map((e) => e.from).join('\0');
    if (!found.has(key)) found.set(key, { nodes: rotated.map((e) => e.from), edges: rotated });
  }
  return [...found.values()].sort((a, b) => a.nodes.join().localeCompare(b.nodes.join()));
}

/** A circle for a human: each arrow with the import behind it. */
export function describeCycle(cycle: Cycle): string {
  return cycle.edges.map((e) => `  ${e.from}\n    → ${e.to}   (${e.specifier})`).join('\n');
}
