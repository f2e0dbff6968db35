/** The longest slug a store name yields (before a `-N` suffix). */
export const MAX_SLUG_LENGTH = 60;

/**
 * A store's URL name: lower case ASCII letters and digits joined by single dashes
 * ("Kedai Batik & Co." → "kedai-batik-co"); a name with none of those gives "store".
 */
export function slugify(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, MAX_SLUG_LENGTH)
    .replace(/^-+|-+$/g, '');
  return slug || 'store';
}

/** The first of `base`, `base-2`, `base-3`, ... that is not taken. */
export function firstFreeSlug(base: string, taken: ReadonlySet<string>): string {
  if (!taken.has(base)) return base;
  for (let n = 2; ; n += 1) {
    const candidate = `${base}-${n}`;
    if (!taken.has(candidate)) return candidate;
  }
}
