import type { VendorFeature } from '../feature';
import { createStoreRpc } from './rpc';

/** Stores: created by admin's approval through `rpc.vendor.create_store`. */
export const storesFeature: VendorFeature = {
  name: 'stores',
  rpc: (ctx) => [createStoreRpc(ctx)],
};
