import { ROUTE_TABLE, type GatewayRoute } from './route-table';
import { bodyLimitOf, classifyProxyError, compileRouteTable, decideAccess, forwardHeaders, isPlainPath, joinedVary, matchRoute } from './rules';

const compiled = compileRouteTable(ROUTE_TABLE);
const target = (path: string) => {
  const route = matchRoute(compiled, path);
  return route ? `${route.to}:${route.access}` : 'none';
};

describe('route table', () => {
  it.each([
    ['/auth/sign-in', 'gateway:public'],
    ['/auth/session', 'gateway:public'],
    ['/account/profile', 'gateway:any'],
    ['/openapi.json', 'gateway:public'],
    ['/docs', 'gateway:public'],
    ['/docs/assets/reference.js', 'gateway:public'],
    ['/account/addresses', 'checkout:any'],
    ['/account/addresses/5d0c8f3e-0000-4000-8000-000000000000/default', 'checkout:any'],
    ['/checkout/submit', 'checkout:any'],
    ['/catalog/products', 'checkout:public'],
    ['/payments/notify', 'checkout:public'],
    ['/family/cart/items', 'checkout:any'],
    ['/vendor/products', 'checkout:vendor'],
    ['/vendor/products/abc', 'checkout:vendor'],
    ['/vendor/returns/abc/approve', 'checkout:vendor'],
    ['/vendor/shipments/abc/ship', 'vendor:vendor'],
    ['/vendor/shipping-methods', 'vendor:vendor'],
    ['/admin/vouchers', 'checkout:admin'],
    ['/admin/kol-codes/x', 'checkout:admin'],
    ['/admin/categories', 'checkout:admin'],
    ['/admin/b2b/companies/pending', 'b2b:admin'],
    ['/b2b/context', 'b2b:any'],
    ['/b2b/companies', 'b2b:any'],
    ['/admin/vendor-applications/x/approve', 'admin:admin'],
    ['/admin/shipments/x/book', 'admin:admin'],
    ['/admin/shipping/settlements/import', 'admin:admin'],
    ['/vendor-applications', 'admin:any'],
    ['/shipment-labels/x', 'admin:public'],
  ])('%s → %s', (path, expected) => {
    expect(target(path)).toBe(expected);
  });

  it('matches whole segments only', () => {
    expect(target('/vendor-applications')).toBe('admin:any'); // not /vendor
    expect(target('/vendorx')).toBe('none');
    expect(target('/authx/sign-in')).toBe('none');
    expect(target('/account/profiles')).toBe('checkout:any'); // not /account/profile
    expect(target('/openapi.jsonx')).toBe('none');
  });

  it('answers 404 for what no entry serves', () => {
    expect(target('/')).toBe('none');
    expect(target('/payments')).toBe('none');
    expect(target('/payments/other')).toBe('none');
    expect(target('/admin/unknown')).toBe('none');
    expect(target('/admin')).toBe('none');
    expect(target('/nothing')).toBe('none');
  });

  it('lets the longest prefix win, whatever the table order', () => {
    const table: GatewayRoute[] = [
      { prefix: '/a', to: 'checkout', access: 'any' },
      { prefix: '/a/b/c', to: 'admin', access: 'admin' },
      { prefix: '/a/b', to: 'vendor', access: 'vendor' },
    ];
    const routes = compileRouteTable(table);
    expect(matchRoute(routes, '/a/b/c/d')?.to).toBe('admin');
    expect(matchRoute(routes, '/a/b/x')?.to).toBe('vendor');
    expect(matchRoute(routes, '/a/x')?.to).toBe('checkout');
    expect(matchRoute(routes, '/a')?.to).toBe('checkout');
  });

  it('has no duplicate prefixes and only well-formed ones', () => {
    const prefixes = ROUTE_TABLE.map((r) => r.prefix);
    expect(new Set(prefixes).size).toBe(prefixes.length);
    expect(() => compileRouteTable([{ prefix: 'no-slash', to: 'b2b', access: 'any' }])).toThrow(/bad route prefix/);
    expect(() => compileRouteTable([{ prefix: '/trailing/', to: 'b2b', access: 'any' }])).toThrow(/bad route prefix/);
  });

  it('refuses paths that are not plain (dot segments, encoded slashes, empty segments)', () => {
    expect(isPlainPath('/catalog/products')).toBe(true);
    expect(isPlainPath('/catalog/products/')).toBe(true);
    expect(isPlainPath('/catalog/../admin/vouchers')).toBe(false);
    expect(isPlainPath('/catalog/%2e%2e/admin/vouchers')).toBe(false);
    expect(isPlainPath('/catalog/./x')).toBe(false);
    expect(isPlainPath('/catalog%2F..%2Fadmin')).toBe(false);
    expect(isPlainPath('//catalog')).toBe(false);
    expect(target('/catalog/../admin/vouchers')).toBe('none');
  });
});

describe('role gate', () => {
  it('lets anyone through a public route', () => {
    expect(decideAccess('public', null)).toBe('allow');
    expect(decideAccess('public', { role: 'vendor' })).toBe('allow');
  });

  it('needs a session for `any`', () => {
    expect(decideAccess('any', null)).toBe('unauthenticated');
    for (const role of ['customer', 'vendor', 'admin'] as const) expect(decideAccess('any', { role })).toBe('allow');
  });

  it('needs exactly the role for vendor and admin routes', () => {
    expect(decideAccess('vendor', null)).toBe('unauthenticated');
    expect(decideAccess('vendor', { role: 'vendor' })).toBe('allow');
    expect(decideAccess('vendor', { role: 'customer' })).toBe('forbidden');
    expect(decideAccess('vendor', { role: 'admin' })).toBe('forbidden');
    expect(decideAccess('admin', { role: 'admin' })).toBe('allow');
    expect(decideAccess('admin', { role: 'vendor' })).toBe('forbidden');
    expect(decideAccess('admin', null)).toBe('unauthenticated');
  });
});

describe('forwarded headers', () => {
  it('drop every incoming x-pasar-* header and the cookie, and add the signed ones', () => {
    const out = forwardHeaders(
      {
        host: 'gateway',
        'content-type': 'application/json',
        cookie: 'pasar.session_token=secret',
        'x-pasar-user-id': 'forged',
        'x-pasar-role': 'admin',
        'x-pasar-sig': 'forged',
        'X-Pasar-Custom': 'forged',
        'x-other': 'kept',
      },
      { 'x-pasar-user-id': 'u1', 'x-pasar-sig': 'good' },
      'req-1',
    );
    expect(out).toEqual({
      host: 'gateway',
      'content-type': 'application/json',
      'x-other': 'kept',
      'x-pasar-user-id': 'u1',
      'x-pasar-sig': 'good',
      'x-request-id': 'req-1',
    });
  });

  it("carry the gateway's trace context, never the caller's", () => {
    const caller = { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', TraceState: 'caller=1', accept: 'application/json' };
    const ours = { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00' };
    expect(forwardHeaders(caller, {}, 'r', 0, ours)).toEqual({ accept: 'application/json', traceparent: ours.traceparent, 'x-request-id': 'r' });
    // without tracing in the gateway the services get none (they start their own traces)
    expect(forwardHeaders(caller, {}, 'r')).toEqual({ accept: 'application/json', 'x-request-id': 'r' });
  });
});

describe('proxy failures', () => {
  it('answer 503 when the service cannot be reached', () => {
    for (const code of ['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'EAI_AGAIN']) {
      expect(classifyProxyError(code, 'checkout')).toMatchObject({ status: 503, code: 'service_unavailable' });
    }
  });

  it('answer 504 when it does not answer in time', () => {
    expect(classifyProxyError('UPSTREAM_TIMEOUT', 'b2b')).toMatchObject({ status: 504, code: 'upstream_timeout' });
    expect(classifyProxyError('ETIMEDOUT', 'b2b').status).toBe(504);
  });

  it('answer 502 for anything else', () => {
    expect(classifyProxyError('ECONNRESET', 'admin')).toMatchObject({ status: 502, code: 'bad_gateway' });
    expect(classifyProxyError(undefined, 'admin').status).toBe(502);
  });
});

describe('body limits and the forwarded length', () => {
  test('1 MB everywhere but the settlement import (POST, exact path, any query)', () => {
    expect(bodyLimitOf('POST', '/api/v1/checkout/submit')).toBe('1mb');
    expect(bodyLimitOf('POST', '/api/v1/admin/shipping/settlements/import')).toBe('21mb');
    expect(bodyLimitOf('POST', '/api/v1/admin/shipping/settlements/import?dry=1')).toBe('21mb');
    expect(bodyLimitOf('PUT', '/api/v1/admin/shipping/settlements/import')).toBe('1mb');
    expect(bodyLimitOf('POST', '/api/v1/admin/shipping/settlements/import/more')).toBe('1mb');
  });

  test('a body read whole goes on with its length, no longer chunked; a request without one is left as it came', () => {
    expect(forwardHeaders({ 'transfer-encoding': 'chunked' }, {}, 'r', 12)).toMatchObject({ 'content-length': '12' });
    expect(forwardHeaders({ 'transfer-encoding': 'chunked' }, {}, 'r', 12)['transfer-encoding']).toBeUndefined();
    expect(forwardHeaders({ 'content-length': '5' }, {}, 'r', 5)['content-length']).toBe('5');
    expect(forwardHeaders({}, {}, 'r', 0)['content-length']).toBeUndefined();
  });
});

describe('the Vary of a proxied answer', () => {
  it.each([
    ['Origin', 'Accept-Language', 'Accept-Language, Origin'],
    ['Origin', 'accept-language, ORIGIN', 'accept-language, ORIGIN'],
    ['Origin', '*', '*'],
    ['Origin', 'Accept-Language, *', '*'],
    ['*', 'Accept-Language', '*'],
    ['Origin', '', 'Origin'],
    ['Origin', undefined, 'Origin'],
    [undefined, 'Accept-Language', 'Accept-Language'],
    [undefined, undefined, undefined],
  ])('the gateway %p and the upstream %p: %p', (gateway, upstream, joined) => {
    expect(joinedVary(gateway, upstream)).toBe(joined);
  });

  it("takes the upstream's as sent (a malformed one is not a reason to fail the answer)", () => {
    expect(joinedVary('Origin', 'Accept@Language')).toBe('Accept@Language, Origin');
  });
});
