/**
 * The import graph of apps/, packages/ and tools/ has no circle, neither between files nor
 * between rooms (folders directly under a package's src/). A failure prints every circle with
 * the import behind each arrow.
 */
import { cycles, describeCycle, importEdges, roomEdges, type ImportEdge } from './import-graph';

const edges = importEdges();

function report(found: ReturnType<typeof cycles>): string {
  return found.map((c, i) => `circle ${i + 1}:\n${describeCycle(c)}`).join('\n\n');
}

test('the scanner sees relative and workspace imports', () => {
  expect(edges).toEqual(
    expect.arrayContaining([
      expect.objectContaining({ from: 'apps/checkout/src/features.ts', to: 'apps/checkout/src/orders/feature.ts' }),
      expect.objectContaining({ to: 'packages/service-kit/src/index.ts', specifier: '@pasar/service-kit' }),
    ]),
  );
});

test('a circle is found and described with the imports behind it', () => {
  const sample: ImportEdge[] = [
    { from: 'a/src/x/one.ts', to: 'a/src/y/two.ts', specifier: '../y/two' },
    { from: 'a/src/y/two.ts', to: 'a/src/y/three.ts', specifier: './three' },
    { from: 'a/src/y/three.ts', to: 'a/src/x/four.ts', specifier: '../x/four' },
    { from: 'a/src/x/four.ts', to: 'a/src/z/five.ts', specifier: '../z/five' },
  ];
  expect(cycles(sample)).toEqual([]);
  const rooms = cycles(roomEdges(sample));
  expect(rooms.map((c) => c.nodes)).toEqual([['a/src/x', 'a/src/y']]);
  expect(describeCycle(rooms[0])).toContain("a/src/y/three.ts imports '../x/four'");
  const withBack = [...sample, { from: 'a/src/x/four.ts', to: 'a/src/x/one.ts', specifier: './one' }];
  expect(cycles(withBack).map((c) => c.nodes)).toEqual([['a/src/x/four.ts', 'a/src/x/one.ts', 'a/src/y/two.ts', 'a/src/y/three.ts']]);
});

test('no circle between files', () => {
  const found = cycles(edges);
  expect(report(found)).toBe('');
});

test('no circle between rooms', () => {
  const found = cycles(roomEdges(edges));
  expect(report(found)).toBe('');
});
