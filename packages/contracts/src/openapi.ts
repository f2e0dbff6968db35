import { z } from 'zod';
import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiPathsObject } from 'zod-openapi';
import { problemSchema, uuidParam } from './http/common';
import { sessionResponse, signInBody, signUpBody, updateProfileBody } from './http/auth';
import { addressBody, customerAddress } from './http/addresses';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** One documented endpoint. Add an entry here when you add an endpoint (README: "adding an endpoint"). */
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
  success: { status: 200 | 201 | 204; body: z.ZodType | null };
  /** Problem answers of this endpoint beyond the ones its access and params imply (e.g. 409 duplicate). */
  problems?: { status: 400 | 401 | 403 | 404 | 409 | 413 | 415 | 429 | 500 | 502 | 503 | 504; description: string }[];
}

export const apiRoutes: ApiRoute[] = [
  { method: 'post', path: '/auth/sign-up', summary: 'Create a customer account and sign in', tag: 'Auth', access: 'public', body: signUpBody, success: { status: 201, body: sessionResponse }, problems: [{ status: 409, description: 'email_taken: an account with this e-mail exists' }] },
  { method: 'post', path: '/auth/sign-in', summary: 'Sign in; sets the session cookie', tag: 'Auth', access: 'public', body: signInBody, success: { status: 200, body: sessionResponse }, problems: [{ status: 401, description: 'invalid_credentials: wrong e-mail or password' }, { status: 429, description: 'rate_limited: too many failed attempts for this e-mail or IP (see Retry-After)' }] },
  { method: 'post', path: '/auth/sign-out', summary: 'End the session', tag: 'Auth', access: 'public', success: { status: 204, body: null } },
  { method: 'get', path: '/auth/session', summary: 'The signed-in user', tag: 'Auth', access: 'any', success: { status: 200, body: sessionResponse } },
  { method: 'patch', path: '/account/profile', summary: 'Change the full name', tag: 'Account', access: 'any', body: updateProfileBody, success: { status: 204, body: null } },
  { method: 'get', path: '/account/addresses', summary: "The caller's delivery addresses (default first)", tag: 'Account', access: 'customer', success: { status: 200, body: z.array(customerAddress) } },
  { method: 'post', path: '/account/addresses', summary: 'Add an address; is_default=true unsets the others atomically', tag: 'Account', access: 'customer', body: addressBody, success: { status: 201, body: null } },
  { method: 'put', path: '/account/addresses/{id}', summary: 'Replace an address', tag: 'Account', access: 'customer', params: uuidParam, body: addressBody, success: { status: 204, body: null } },
  { method: 'delete', path: '/account/addresses/{id}', summary: 'Delete an address', tag: 'Account', access: 'customer', params: uuidParam, success: { status: 204, body: null } },
  { method: 'patch', path: '/account/addresses/{id}/default', summary: 'Make the address the default', tag: 'Account', access: 'customer', params: uuidParam, success: { status: 204, body: null } },
];

const problemResponse = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: problemSchema } },
});

function operation(route: ApiRoute): ZodOpenApiOperationObject {
  const responses: ZodOpenApiOperationObject['responses'] = {
    [String(route.success.status)]: route.success.body
      ? { description: 'OK', content: { 'application/json': { schema: route.success.body } } }
      : { description: 'No content' },
    '400': problemResponse('Invalid input or a broken business rule'),
  };
  if (route.access !== 'public') responses['401'] = problemResponse('No or invalid session');
  if (route.access !== 'public' && route.access !== 'any') responses['403'] = problemResponse('Wrong role');
  if (route.params) responses['404'] = problemResponse('Unknown, or not yours');
  for (const problem of route.problems ?? []) responses[`${problem.status}`] = problemResponse(problem.description);
  return {
    summary: route.summary,
    tags: [route.tag],
    security: route.access === 'public' ? [] : [{ session: [] }],
    ...(route.params || route.query
      ? { requestParams: { ...(route.params ? { path: route.params } : {}), ...(route.query ? { query: route.query } : {}) } }
      : {}),
    ...(route.body ? { requestBody: { content: { 'application/json': { schema: route.body } } } } : {}),
    responses,
  };
}

/** The OpenAPI 3.1 document for everything in `apiRoutes`. */
export function buildOpenApiDocument(serverUrl = '/api/v1'): ReturnType<typeof createDocument> {
  const paths: ZodOpenApiPathsObject = {};
  for (const route of apiRoutes) {
    paths[route.path] = { ...paths[route.path], [route.method]: operation(route) };
  }
  return createDocument({
    openapi: '3.1.0',
    info: { title: 'Pasar marketplace API', version: '1.0.0', description: 'Multi-vendor marketplace commerce back end.' },
    servers: [{ url: serverUrl }],
    components: {
      securitySchemes: { session: { type: 'apiKey', in: 'cookie', name: 'pasar.session_token' } },
    },
    paths,
  });
}
