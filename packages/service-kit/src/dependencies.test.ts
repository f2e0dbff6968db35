import path from 'node:path';
import { migrateServiceSchema } from '@pasar/bus';
import { createTestSchema } from '@pasar/db';
import { DependencyError, withDependency } from './dependencies';

const NOTIFIER_MIGRATIONS = path.join(__dirname, '..', '..', '..', 'apps', 'notifier', 'prisma', 'migrations');

describe('withDependency (a start step against DATABASE_URL or NATS_URL)', () => {
  test('a dependency that never answers stops the start at the deadline, naming the variable and not the URL', async () => {
    // what Bus.connect does while NATS_URL points nowhere: it keeps trying, never settles
    const natsUrl = 'nats://user:hunter2secret@127.0.0.1:9';
    const neverAnswers = () => new Promise<never>(() => void natsUrl);
    const started = Date.now();
    const error = await withDependency('NATS_URL', 'connecting to NATS', neverAnswers, 1500).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(DependencyError);
    expect((error as DependencyError).variable).toBe('NATS_URL');
    expect((error as Error).message).toBe('NATS_URL: connecting to NATS failed: no answer within 2 s (check NATS_URL and that it is reachable)');
    expect((error as Error).message).not.toContain('hunter2secret');
    expect(Date.now() - started).toBeGreaterThanOrEqual(1400);
  });

  test('a database that refuses stops the start naming DATABASE_URL, in one line', async () => {
    const db = createTestSchema(undefined, 'dependency');
    const missingDatabase = db.databaseUrl.replace(/\/([^/?]+)\?/, '/no_such_database_for_pasar?');
    const error = await withDependency('DATABASE_URL', 'migrating the schema', () => migrateServiceSchema({ databaseUrl: missingDatabase, migrationsDir: NOTIFIER_MIGRATIONS })).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(DependencyError);
    expect((error as Error).message).toMatch(/^DATABASE_URL: migrating the schema failed: .*no_such_database_for_pasar/);
    expect((error as Error).message).not.toContain('\n');
  });

  test('a step that succeeds gives its value', async () => {
    await expect(withDependency('NATS_URL', 'connecting', () => Promise.resolve(42), 1000)).resolves.toBe(42);
  });
});
