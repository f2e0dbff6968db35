import pg from 'pg';
import { DEFAULT_TEST_DATABASE_URL } from './testing';
import { isConnectionFailure, isDatabaseBusy, isUniqueViolation, sqlStateOf } from './errors';

test('sqlStateOf reads a pg error, a Prisma adapter error, and nothing else', async () => {
  const client = new pg.Client({ connectionString: DEFAULT_TEST_DATABASE_URL });
  await client.connect();
  try {
    const err = await client.query('SELECT 1/0').catch((e: unknown) => e);
    expect(sqlStateOf(err)).toBe('22012');
    expect(isConnectionFailure(err)).toBe(false);
  } finally {
    await client.end();
  }
  expect(sqlStateOf({ code: 'P2010', meta: { driverAdapterError: { cause: { originalCode: '23505' } } } })).toBe('23505');
  expect(sqlStateOf({ code: 'P2002', clientVersion: '7.0.0' })).toBeUndefined();
  expect(sqlStateOf(new Error('Connection terminated unexpectedly'))).toBeUndefined();
  expect(sqlStateOf('x')).toBeUndefined();
  expect(isConnectionFailure(new Error('Connection terminated unexpectedly'))).toBe(true);
  expect(isConnectionFailure({ code: '08006' })).toBe(true);
  expect(isConnectionFailure({ code: '57P01' })).toBe(true);
});

test('isUniqueViolation: 23505 from pg, from a raw query through Prisma (P2010), and Prisma P2002; nothing else', async () => {
  const client = new pg.Client({ connectionString: DEFAULT_TEST_DATABASE_URL });
  await client.connect();
  try {
    await client.query('CREATE TEMP TABLE u (k int PRIMARY KEY)');
    await client.query('INSERT INTO u VALUES (1)');
    const duplicate = await client.query('INSERT INTO u VALUES (1)').catch((e: unknown) => e);
    expect(isUniqueViolation(duplicate)).toBe(true);
    const otherConstraint = await client.query('INSERT INTO u VALUES (NULL)').catch((e: unknown) => e);
    expect(sqlStateOf(otherConstraint)).toBe('23502');
    expect(isUniqueViolation(otherConstraint)).toBe(false);
  } finally {
    await client.end();
  }
  expect(isUniqueViolation({ code: 'P2010', clientVersion: '7.0.0', meta: { driverAdapterError: { cause: { originalCode: '23505' } } } })).toBe(true);
  expect(isUniqueViolation({ code: 'P2010', clientVersion: '7.0.0', meta: { driverAdapterError: { cause: { originalCode: '23503' } } } })).toBe(false);
  expect(isUniqueViolation({ code: 'P2002', clientVersion: '7.0.0' })).toBe(true);
  expect(isUniqueViolation({ code: 'P2025', clientVersion: '7.0.0' })).toBe(false);
  expect(isUniqueViolation(new Error('duplicate'))).toBe(false);
  expect(isUniqueViolation(null)).toBe(false);
});

test('isDatabaseBusy: Prisma P2024 (no pooled connection in time) and P2028 (transaction not started in time); nothing else', () => {
  expect(isDatabaseBusy({ code: 'P2024', clientVersion: '7.0.0' })).toBe(true);
  expect(isDatabaseBusy({ code: 'P2028', clientVersion: '7.0.0' })).toBe(true);
  expect(isDatabaseBusy({ code: 'P2002', clientVersion: '7.0.0' })).toBe(false);
  expect(isDatabaseBusy({ code: '53300' })).toBe(false);
  expect(isDatabaseBusy(new Error('Unable to start a transaction in the given time'))).toBe(false);
  expect(isDatabaseBusy(null)).toBe(false);
});
