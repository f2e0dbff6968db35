import { followStoreBody, followedFeedQuery, storeIdParam } from '@pasar/contracts';
import { parse, requireRole } from '@pasar/service-kit';
import type { Router } from 'express';
import { followStore, followedFeed, followedStores, unfollowStore, type FollowDeps } from './follows';

/** POST/GET /account/followed-stores, DELETE /account/followed-stores/{storeId}, GET /account/followed-feed (customers). */
export function followRoutes(router: Router, deps: FollowDeps): void {
  router.post('/account/followed-stores', async (req, res) => {
    const { userId } = requireRole(req, 'customer');
    const { storeId } = parse(followStoreBody, req.body);
    await followStore(deps, userId, storeId);
    res.status(204).end();
  });

  router.get('/account/followed-stores', async (req, res) => {
    const { userId } = requireRole(req, 'customer');
    res.json(await followedStores(deps, userId));
  });

  router.delete('/account/followed-stores/:storeId', async (req, res) => {
    const { userId } = requireRole(req, 'customer');
    const { storeId } = parse(storeIdParam, req.params);
    await unfollowStore(deps, userId, storeId);
    res.status(204).end();
  });

  router.get('/account/followed-feed', async (req, res) => {
    const { userId } = requireRole(req, 'customer');
    const { page } = parse(followedFeedQuery, req.query);
    res.json(await followedFeed(deps, userId, page));
  });
}
