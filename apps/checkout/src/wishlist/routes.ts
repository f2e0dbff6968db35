import { wishlistToggleBody } from '@pasar/contracts';
import { parse, requireRole } from '@pasar/service-kit';
import type { Router } from 'express';
import { toggleWishlist, wishlistCards, wishlistProductIds, type WishlistDeps } from './wishlist';

/** GET /account/wishlist, GET /account/wishlist/ids, POST /account/wishlist/toggle (customers). */
export function wishlistRoutes(router: Router, deps: WishlistDeps): void {
  router.get('/account/wishlist', async (req, res) => {
    const { userId } = requireRole(req, 'customer');
    res.json(await wishlistCards(deps, userId));
  });

  router.get('/account/wishlist/ids', async (req, res) => {
    const { userId } = requireRole(req, 'customer');
    res.json(await wishlistProductIds(deps, userId));
  });

  router.post('/account/wishlist/toggle', async (req, res) => {
    const { userId } = requireRole(req, 'customer');
    const { productId } = parse(wishlistToggleBody, req.body);
    res.json({ wishlisted: await toggleWishlist(deps, userId, productId) });
  });
}
