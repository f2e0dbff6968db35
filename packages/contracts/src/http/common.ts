import { z } from 'zod';

/** RFC 9457 problem details, as every service answers an error (DESIGN §3). */
export const problemSchema = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string().optional(),
    code: z.string(),
    errors: z
      .array(
        z.object({
          path: z.array(z.union([z.string(), z.number()])),
          message: z.string(),
          code: z.string(),
          /** `price_changed`: the unit price the approver approved and the catalog's price now. */
          approvedPrice: z.string().optional(),
          currentPrice: z.string().optional(),
        }),
      )
      .optional(),
    requestId: z.string().optional(),
    /** The trace of the request (when tracing is on): what to look up in the trace viewer. */
    traceId: z.string().optional(),
  })
  .meta({ id: 'Problem' });
export type Problem = z.infer<typeof problemSchema>;

export const uuidParam = z.object({ id: z.uuid() });

/** Money as the API answers it: a string with two decimals. */
export const money = z.string().regex(/^-?\d+\.\d{2}$/).meta({ example: '12.50' });

export const pageQuery = z.object({ page: z.coerce.number().int().min(1).max(10000).default(1) });
/**
 * Paging of a list that answers a plain array: `?page=1&limit=50` (limit 1..200). Every list endpoint
 * takes it (or a bounded `limit` of its own where the interface names one), so no answer is unbounded.
 */
export const listQuery = z.object({
  page: z.coerce.number().int().min(1).max(10000).default(1),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});
export type ListQuery = z.infer<typeof listQuery>;

/** The rows of one page of a list (`skip`/`take` as Prisma reads them). */
export function listWindow({ page, limit }: ListQuery): { skip: number; take: number } {
  return { skip: (page - 1) * limit, take: limit };
}

export { postalAddress, type PostalAddress } from '../address';
