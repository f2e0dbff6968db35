import { apiRoutes, buildOpenApiDocument } from './openapi';

describe('OpenAPI document', () => {
  const doc = buildOpenApiDocument();

  test('documents every route of apiRoutes with its method', () => {
    for (const route of apiRoutes) {
      const path = doc.paths?.[route.path] as Record<string, unknown> | undefined;
      expect(path?.[route.method]).toBeDefined();
    }
  });

  test('marks session routes with the cookie scheme and public ones with none', () => {
    const signIn = doc.paths?.['/auth/sign-in']?.post;
    const list = doc.paths?.['/account/addresses']?.get;
    expect(signIn?.security).toEqual([]);
    expect(list?.security).toEqual([{ session: [] }]);
    expect(list?.responses?.['403']).toBeDefined();
    expect(doc.components?.securitySchemes?.session).toMatchObject({ type: 'apiKey', in: 'cookie', name: 'pasar.session_token' });
  });

  test('path parameters and bodies come from the zod contracts', () => {
    const put = doc.paths?.['/account/addresses/{id}']?.put;
    expect(JSON.stringify(put?.parameters ?? [])).toContain('id');
    expect(put?.requestBody).toBeDefined();
    expect(JSON.stringify(doc)).toContain('address_line_1');
  });
});
