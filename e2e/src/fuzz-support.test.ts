/** The fuzz test's own pieces (no stack needed): the seeded generator, the sampler, the field edits. */
import { seededRandom } from '@pasar/testkit';
import { IdPool, REMOVE, SchemaSampler, fieldsOf, operationsOf, withField, type OpenApiDocument } from './support/fuzz';

const document: OpenApiDocument = {
  paths: {
    '/things/{id}': {
      get: { security: [{ session: [] }], parameters: [{ in: 'path', name: 'id', schema: { type: 'string', format: 'uuid' } }] },
      put: { security: [], requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } } },
    },
  },
  components: {
    schemas: {
      Thing: {
        type: 'object',
        required: ['name', 'items', 'amount'],
        properties: {
          name: { type: 'string', minLength: 3, maxLength: 40 },
          amount: { type: 'string', pattern: '^\\d{1,10}(\\.\\d{1,2})?$' },
          code: { type: 'string', pattern: '^[A-Z0-9_-]{3,40}$' },
          kind: { type: 'string', enum: ['a', 'b'] },
          productId: { type: 'string', format: 'uuid' },
          items: { type: 'array', minItems: 1, items: { type: 'object', required: ['quantity'], properties: { quantity: { type: 'integer', minimum: 1, maximum: 999 } } } },
          note: { anyOf: [{ type: 'string', maxLength: 10 }, { type: 'null' }] },
        },
      },
    },
  },
};

test('the same seed gives the same sequence; another seed another one', () => {
  const take = (seed: number) => Array.from({ length: 5 }, seededRandom(seed));
  expect(take(7)).toEqual(take(7));
  expect(take(7)).not.toEqual(take(8));
  expect(take(7).every((n) => n >= 0 && n < 1)).toBe(true);
});

test('operationsOf lists every operation with its parameters, body and whether it is public', () => {
  const operations = operationsOf(document);
  expect(operations.map((o) => [o.method, o.path, o.isPublic, o.pathParams.length, o.body !== undefined])).toEqual([
    ['GET', '/things/{id}', false, 1, false],
    ['PUT', '/things/{id}', true, 0, true],
  ]);
});

test('the sampler builds a body that follows the schema, taking known ids by field name', () => {
  const ids = new IdPool();
  ids.add('productId', '11111111-1111-4111-8111-111111111111');
  const sampler = new SchemaSampler(document, seededRandom(1), ids);
  sampler.optionalShare = 1;
  const thing = sampler.sample({ $ref: '#/components/schemas/Thing' }) as Record<string, unknown>;
  expect(thing.name).toEqual(expect.any(String));
  expect((thing.name as string).length).toBeGreaterThanOrEqual(3);
  expect(thing.amount).toMatch(/^\d{1,10}(\.\d{1,2})?$/);
  expect(thing.code).toMatch(/^[A-Z0-9_-]{3,40}$/);
  expect(['a', 'b']).toContain(thing.kind);
  expect(thing.productId).toMatch(/^[0-9a-f-]{36}$/);
  const quantity = (thing.items as { quantity: number }[])[0].quantity;
  expect(quantity).toBeGreaterThanOrEqual(1);
  expect(quantity).toBeLessThanOrEqual(999);

  sampler.optionalShare = 0;
  expect(Object.keys(sampler.sample({ $ref: '#/components/schemas/Thing' }) as object).sort()).toEqual(['amount', 'items', 'name']);
});

test('IdPool harvests ids from answers by their field names', () => {
  const ids = new IdPool();
  ids.harvest({ orderId: '22222222-2222-4222-8222-222222222222', subOrders: [{ id: '33333333-3333-4333-8333-333333333333' }], name: 'not an id' });
  expect(ids.named('orderId')).toEqual(['22222222-2222-4222-8222-222222222222']);
  expect(ids.named('id')).toEqual(['33333333-3333-4333-8333-333333333333']);
  expect(ids.all()).toHaveLength(2);
});

test('fieldsOf and withField reach nested fields and leave the original untouched', () => {
  const body = { a: 1, b: { c: [{ d: 'x' }] } };
  expect(fieldsOf(body)).toEqual([['a'], ['b'], ['b', 'c'], ['b', 'c', 0]]);
  expect(withField(body, ['b', 'c', 0], 'y')).toEqual({ a: 1, b: { c: ['y'] } });
  expect(withField(body, ['a'], REMOVE)).toEqual({ b: { c: [{ d: 'x' }] } });
  expect(body).toEqual({ a: 1, b: { c: [{ d: 'x' }] } });
});
