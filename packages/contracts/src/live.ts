import { z } from 'zod';
import { defineRpc } from './messaging';

/** The gateway's live shipment stream asks vendor which store a vendor owns (null: none yet). */
export const vendorStoreOfOwner = defineRpc(
  'rpc.vendor.store_of_owner',
  z.object({ ownerUserId: z.uuid() }),
  z.object({ storeId: z.uuid().nullable() }),
);
