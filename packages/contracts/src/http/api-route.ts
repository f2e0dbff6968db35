import type { z } from 'zod';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** One documented endpoint: an entry of `apiRoutes` (openapi.ts); add one when you add an endpoint (README: "adding an endpoint"). */
export interface ApiRoute {
  method: Method;
  /** OpenAPI path template under /api/v1, e.g. `/account/addresses/{id}`. */
  path: string;
  summary: string;
  tag: string;
  /** `public` needs no session; otherwise the role the gateway requires (`any` = signed in). */
  access: 'public' | 'any' | 'customer' | 'vendor' | 'admin';
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodType;
  /** Success status and body schema (null = empty body). */
  success: { status: 200 | 201 | 202 | 204; body: z.ZodType | null };
  /** Problem answers of this endpoint beyond the ones its access and params imply (e.g. 409 duplicate). */
  problems?: { status: 400 | 401 | 403 | 404 | 409 | 413 | 415 | 429 | 500 | 502 | 503 | 504; description: string }[];
  /** The success answer is also served as text/csv (Accept: text/csv or ?format=csv). */
  csv?: boolean;
}
