/**
 * The repository stands alone: README.md and docs/ link only to files inside it (or to the
 * running stack), and never send a reader to a document beside the repository.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');
const DOCS = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

/** Markdown link targets `[text](target)`, without their #anchor. */
function linkTargets(markdown: string): string[] {
  return [...markdown.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]);
}

describe.each(DOCS)('%s', (file) => {
  const text = readFileSync(join(ROOT, file), 'utf8');

  test('names no document outside the repository', () => {
    expect(text).not.toMatch(/\.\.\/shared|shared\/(SPEC|DESIGN)\.md|SPEC\.md|DESIGN\.md/);
  });

  test('links resolve to files inside the repository, or to the local stack', () => {
    for (const target of linkTargets(text)) {
      if (/^https?:\/\/(localhost|127\.0\.0\.1)[:/]/.test(target)) continue;
      expect({ target, external: /^[a-z]+:/.test(target) }).toEqual({ target, external: false });
      const path = resolve(ROOT, dirname(file), target.split('#')[0]);
      expect({ target, inside: !relative(ROOT, path).startsWith('..') }).toEqual({ target, inside: true });
      expect({ target, exists: existsSync(path) }).toEqual({ target, exists: true });
    }
  });
});

test('the README links the architecture document and the API reference page', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  expect(linkTargets(readme)).toEqual(expect.arrayContaining(['docs/architecture.md']));
  expect(readme).toContain('/api/v1/docs');
});
