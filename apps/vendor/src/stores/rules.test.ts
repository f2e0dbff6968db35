import { MAX_SLUG_LENGTH, firstFreeSlug, slugify } from './rules';

describe('slugify', () => {
  test.each([
    ['Kedai Batik & Co.', 'kedai-batik-co'],
    ['  Café  Réunion  ', 'cafe-reunion'],
    ['ABC 123', 'abc-123'],
    ['---', 'store'],
    ['日本', 'store'],
  ])('%s → %s', (name, slug) => {
    expect(slugify(name)).toBe(slug);
  });

  test(`keeps at most ${MAX_SLUG_LENGTH} characters and never ends with a dash`, () => {
    const slug = slugify(`${'a'.repeat(MAX_SLUG_LENGTH - 1)} b`);
    expect(slug).toBe('a'.repeat(MAX_SLUG_LENGTH - 1));
  });
});

describe('firstFreeSlug', () => {
  test('is the base when it is free', () => {
    expect(firstFreeSlug('kedai', new Set(['other']))).toBe('kedai');
  });

  test('numbers from 2 past the taken ones', () => {
    expect(firstFreeSlug('kedai', new Set(['kedai']))).toBe('kedai-2');
    expect(firstFreeSlug('kedai', new Set(['kedai', 'kedai-2', 'kedai-4']))).toBe('kedai-3');
  });
});
