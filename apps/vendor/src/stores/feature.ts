import type { VendorFeature } from '../feature';
import { createStoreRpc, storeOfOwnerRpc } from './rpc';

/** Stores: created by admin's approval through `rpc.vendor.create_store`; `rpc.vendor.store_of_owner` names a vendor's. */
export const storesFeature: VendorFeature = {
  name: 'stores',
  rpc: (ctx) => [createStoreRpc(ctx), storeOfOwnerRpc(ctx)],
};
