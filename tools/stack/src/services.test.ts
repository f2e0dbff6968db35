import { baseDatabaseUrl, databaseUrlForSchema, DEFAULT_PORTS, isServiceName, portsFromBase, redactUrl, schemaFor, schemasFor, serviceUrl } from './services';

describe('service catalogue', () => {
  it('has the six apps on their ports', () => {
    expect(DEFAULT_PORTS).toEqual({ gateway: 8080, checkout: 4001, b2b: 4002, vendor: 4003, admin: 4004, notifier: 4005 });
    expect(isServiceName('checkout')).toBe(true);
    expect(isServiceName('identity')).toBe(false);
  });

  it('puts the gateway on a port base and the five services on the next five ports', () => {
    expect(portsFromBase(18080)).toEqual({ gateway: 18080, checkout: 18081, b2b: 18082, vendor: 18083, admin: 18084, notifier: 18085 });
  });

  it('names schemas: gateway owns identity, a prefix goes in front', () => {
    expect(schemaFor('gateway')).toBe('identity');
    expect(schemaFor('notifier')).toBe('notifier');
    expect(schemaFor('gateway', 'e2e123')).toBe('e2e123_identity');
    expect(schemasFor('p')).toEqual({
      gateway: 'p_identity',
      checkout: 'p_checkout',
      b2b: 'p_b2b',
      vendor: 'p_vendor',
      admin: 'p_admin',
      notifier: 'p_notifier',
    });
    expect(() => schemaFor('b2b', 'Bad-Prefix')).toThrow('bad schema prefix');
  });
});

describe('database URLs', () => {
  it('sets ?schema= and keeps the other parameters', () => {
    expect(databaseUrlForSchema('postgresql://postgres@127.0.0.1:5432/postgres', 'checkout')).toBe(
      'postgresql://postgres@127.0.0.1:5432/postgres?schema=checkout',
    );
    expect(databaseUrlForSchema('postgres://u:p@db:6543/pasar?sslmode=disable&schema=old', 'p_identity')).toBe(
      'postgres://u:p@db:6543/pasar?sslmode=disable&schema=p_identity',
    );
  });

  it('refuses a non-postgres URL and a bad schema', () => {
    expect(() => databaseUrlForSchema('mysql://db/x', 'checkout')).toThrow('postgres://');
    expect(() => databaseUrlForSchema('postgresql://db/x', 'DROP TABLE')).toThrow('bad schema name');
  });

  it('strips the schema for plain connections and masks passwords', () => {
    expect(baseDatabaseUrl('postgresql://u:p@db:5432/pasar?schema=identity&sslmode=require')).toBe('postgresql://u:p@db:5432/pasar?sslmode=require');
    expect(redactUrl('postgresql://u:secret@db:5432/pasar')).toBe('postgresql://u:***@db:5432/pasar');
    expect(redactUrl('nats://127.0.0.1:4222')).toBe('nats://127.0.0.1:4222');
    expect(redactUrl('not a url')).toBe('not a url');
    expect(serviceUrl(4001)).toBe('http://127.0.0.1:4001');
  });
});
