import { catalogProductsQuery, categoryBody, listQuery, pageQuery, uuidParam, vendorProductBody } from '@pasar/contracts';
import { API_PREFIX, parse, requireRole } from '@pasar/service-kit';
import type { Router } from 'express';
import type { PrismaClient } from '../generated/prisma/client';
import { browseCatalog, catalogProduct } from './browse';
import { createCategory, listCategories } from './categories';
import { toCatalogCard, toCatalogDetail, toCategory, toVendorProduct } from './json';
import { createProduct, listOwnProducts, removeProduct, updateProduct } from './products';

export interface CatalogRouteDeps {
  prisma: PrismaClient;
  config: { PUBLIC_STORAGE_URL: string };
}

/**
 * Public: GET /catalog/products, /catalog/products/{id}, /catalog/categories.
 * Vendor: GET/POST /vendor/products, PUT/DELETE /vendor/products/{id}.
 * Admin: GET/POST /admin/categories.
 */
export function catalogRoutes(router: Router, { prisma, config }: CatalogRouteDeps): void {
  const deps = { prisma };
  const storageUrl = config.PUBLIC_STORAGE_URL;

  router.get('/catalog/products', async (req, res) => {
    const page = await browseCatalog(deps, parse(catalogProductsQuery, req.query));
    res.json({ products: page.items.map((entry) => toCatalogCard(entry, storageUrl)), page: page.page, totalPages: page.totalPages, total: page.total });
  });

  router.get('/catalog/products/:id', async (req, res) => {
    const { id } = parse(uuidParam, req.params);
    res.json(toCatalogDetail(await catalogProduct(deps, id), storageUrl));
  });

  router.get('/catalog/categories', async (req, res) => {
    res.json((await listCategories(deps, parse(listQuery, req.query))).map(toCategory));
  });

  router.get('/vendor/products', async (req, res) => {
    const { userId } = requireRole(req, 'vendor');
    const { page } = parse(pageQuery, req.query);
    const result = await listOwnProducts(deps, userId, page);
    res.json({ products: result.items.map((p) => toVendorProduct(p, storageUrl)), page: result.page, totalPages: result.totalPages, total: result.total });
  });

  router.post('/vendor/products', async (req, res) => {
    const { userId } = requireRole(req, 'vendor');
    const product = await createProduct(deps, userId, parse(vendorProductBody, req.body));
    res.status(201).location(`${API_PREFIX}/vendor/products/${product.id}`).json(toVendorProduct(product, storageUrl));
  });

  router.put('/vendor/products/:id', async (req, res) => {
    const { userId } = requireRole(req, 'vendor');
    const { id } = parse(uuidParam, req.params);
    const product = await updateProduct(deps, userId, id, parse(vendorProductBody, req.body));
    res.json(toVendorProduct(product, storageUrl));
  });

  router.delete('/vendor/products/:id', async (req, res) => {
    const { userId } = requireRole(req, 'vendor');
    const { id } = parse(uuidParam, req.params);
    await removeProduct(deps, userId, id);
    res.status(204).end();
  });

  router.get('/admin/categories', async (req, res) => {
    requireRole(req, 'admin');
    res.json((await listCategories(deps, parse(listQuery, req.query))).map(toCategory));
  });

  router.post('/admin/categories', async (req, res) => {
    requireRole(req, 'admin');
    const created = await createCategory(deps, parse(categoryBody, req.body));
    res.status(201).location(`${API_PREFIX}/admin/categories/${created.id}`).json(toCategory(created));
  });
}
