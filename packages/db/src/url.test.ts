import {
  assertSchemaName,
  connectionStringWithoutSchema,
  isValidSchemaName,
  quoteIdent,
  schemaFromUrl,
  withSchema,
} from './url';

const base = 'postgresql://postgres:p%40ss@127.0.0.1:5432/postgres';

describe('schemaFromUrl', () => {
  it('defaults to public without a schema parameter', () => {
    expect(schemaFromUrl(base)).toBe('public');
    expect(schemaFromUrl(`${base}?sslmode=disable`)).toBe('public');
    expect(schemaFromUrl(`${base}?schema=`)).toBe('public');
  });

  it('reads the schema parameter wherever it stands', () => {
    expect(schemaFromUrl(`${base}?schema=checkout`)).toBe('checkout');
    expect(schemaFromUrl(`${base}?sslmode=disable&schema=b2b&connect_timeout=5`)).toBe('b2b');
    expect(schemaFromUrl(`${base}?schema=vendor#frag`)).toBe('vendor');
  });

  it('decodes the value and takes the last one when repeated', () => {
    expect(schemaFromUrl(`${base}?schema=my%5Fschema`)).toBe('my_schema');
    expect(schemaFromUrl(`${base}?schema=a&schema=b`)).toBe('b');
  });
});

describe('connectionStringWithoutSchema', () => {
  it('removes only the schema parameter and keeps the rest byte for byte', () => {
    expect(connectionStringWithoutSchema(`${base}?schema=checkout`)).toBe(base);
    expect(connectionStringWithoutSchema(`${base}?sslmode=disable&schema=checkout&application_name=a%20b`)).toBe(
      `${base}?sslmode=disable&application_name=a%20b`,
    );
    expect(connectionStringWithoutSchema(`${base}?schema=a&schema=b#x`)).toBe(`${base}#x`);
  });

  it('leaves a URL without schema unchanged', () => {
    expect(connectionStringWithoutSchema(base)).toBe(base);
    expect(connectionStringWithoutSchema(`${base}?sslmode=disable`)).toBe(`${base}?sslmode=disable`);
  });
});

describe('withSchema', () => {
  it('adds the schema parameter', () => {
    expect(withSchema(base, 'checkout')).toBe(`${base}?schema=checkout`);
    expect(withSchema(`${base}?sslmode=disable`, 'b2b')).toBe(`${base}?sslmode=disable&schema=b2b`);
  });

  it('replaces an existing schema parameter', () => {
    expect(withSchema(`${base}?schema=old&sslmode=disable`, 'new_one')).toBe(`${base}?sslmode=disable&schema=new_one`);
  });

  it('round-trips with schemaFromUrl and connectionStringWithoutSchema', () => {
    const url = withSchema(`${base}?application_name=x`, 't_abc123');
    expect(schemaFromUrl(url)).toBe('t_abc123');
    expect(connectionStringWithoutSchema(url)).toBe(`${base}?application_name=x`);
  });

  it('refuses invalid schema names', () => {
    expect(() => withSchema(base, 'Checkout')).toThrow(/invalid schema name "Checkout"/);
    expect(() => withSchema(base, 'a"; DROP SCHEMA public; --')).toThrow(/invalid schema name/);
  });
});

describe('schema names', () => {
  it('accepts lowercase identifiers of up to 63 characters', () => {
    expect(isValidSchemaName('checkout')).toBe(true);
    expect(isValidSchemaName('_private')).toBe(true);
    expect(isValidSchemaName('t_0a1b2c')).toBe(true);
    expect(isValidSchemaName(`a${'b'.repeat(62)}`)).toBe(true);
  });

  it('rejects anything else', () => {
    for (const name of ['', '1abc', 'Abc', 'a-b', 'a b', 'a"b', 'ä', `a${'b'.repeat(63)}`]) {
      expect(isValidSchemaName(name)).toBe(false);
      expect(() => assertSchemaName(name)).toThrow(/invalid schema name/);
    }
  });

  it('quotes identifiers', () => {
    expect(quoteIdent('checkout')).toBe('"checkout"');
    expect(quoteIdent('we"ird')).toBe('"we""ird"');
  });
});
