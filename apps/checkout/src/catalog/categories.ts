import { listWindow, type CategoryBody, type ListQuery } from '@pasar/contracts';
import { isUniqueViolation } from '@pasar/db';
import { conflict } from '@pasar/service-kit';
import type { Category, PrismaClient } from '../generated/prisma/client';
import { slugify } from './rules';

export interface CategoryDeps {
  prisma: PrismaClient;
}

/** One page of the categories, by name. */
export function listCategories({ prisma }: CategoryDeps, page: ListQuery): Promise<Category[]> {
  return prisma.category.findMany({ orderBy: [{ name: 'asc' }, { id: 'asc' }], ...listWindow(page) });
}

/** Adds a category; a name (or the slug it makes) that exists answers 409 `category_exists`. */
export async function createCategory({ prisma }: CategoryDeps, body: CategoryBody): Promise<Category> {
  try {
    return await prisma.category.create({ data: { name: body.name, slug: slugify(body.name, 'category') } });
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict('category_exists', `a category named like "${body.name}" exists`);
    throw err;
  }
}
