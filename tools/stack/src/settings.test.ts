import { DEFAULT_READY_TIMEOUT_MS, parseArgs, resolveSettings, UsageError } from './settings';

const ROOT = '/repo';

describe('parseArgs', () => {
  it('reads bare flags, --key value and --key=value', () => {
    const args = parseArgs(['--free-ports', '--namespace', 'dev1', '--schema-prefix=p1', '-h']);
    expect(Object.fromEntries(args)).toEqual({ 'free-ports': true, namespace: 'dev1', 'schema-prefix': 'p1', help: true });
  });

  it('refuses unknown options, missing values and stray words', () => {
    expect(() => parseArgs(['--nope'])).toThrow(UsageError);
    expect(() => parseArgs(['--namespace'])).toThrow('--namespace needs a value');
    expect(() => parseArgs(['--namespace', '--free-ports'])).toThrow('--namespace needs a value');
    expect(() => parseArgs(['start'])).toThrow('unexpected argument "start"');
    expect(() => parseArgs(['--free-ports=yes'])).toThrow('takes no value');
  });
});

describe('resolveSettings', () => {
  it('leaves DATABASE_URL and NATS_URL unset so the local defaults are tried', () => {
    const s = resolveSettings([], {}, ROOT);
    expect(s.databaseUrl).toBeUndefined();
    expect(s.natsUrl).toBeUndefined();
    expect(s.identitySecret).toBeUndefined();
    expect(s).toMatchObject({
      help: false,
      freePorts: false,
      namespace: '',
      schemaPrefix: '',
      dataDir: '/repo/.data',
      readyTimeoutMs: DEFAULT_READY_TIMEOUT_MS,
      color: true,
      admin: { email: 'admin@pasar.local', password: 'pasar-admin-2026' },
      demo: { enabled: true, password: 'pasar-demo-2026' },
    });
  });

  it('refuses the public admin and demo passwords when NODE_ENV is production, naming them', () => {
    expect(() => resolveSettings([], { NODE_ENV: 'production' }, ROOT)).toThrow(/ADMIN_PASSWORD and DEMO_PASSWORD must be set when NODE_ENV is production/);
    expect(() => resolveSettings([], { NODE_ENV: 'production', ADMIN_PASSWORD: 'an own password' }, ROOT)).toThrow(/DEMO_PASSWORD must be set/);
    const settings = resolveSettings([], { NODE_ENV: 'production', ADMIN_PASSWORD: 'an own password', SEED_DEMO: 'false' }, ROOT);
    expect(settings.admin.password).toBe('an own password');
    expect(resolveSettings([], { NODE_ENV: 'test' }, ROOT).demo.password).toBe('pasar-demo-2026');
  });

  it('takes the environment, blank values counting as unset', () => {
    const s = resolveSettings(
      [],
      {
        DATABASE_URL: 'postgresql://u:p@db:5432/pasar',
        NATS_URL: ' ',
        IDENTITY_SECRET: 'x'.repeat(16),
        STACK_FREE_PORTS: 'true',
        NATS_NAMESPACE: 'dev',
        STACK_SCHEMA_PREFIX: 'me',
        STACK_DATA_DIR: '/var/pasar',
        STACK_READY_TIMEOUT: '30',
        NO_COLOR: '1',
        ADMIN_EMAIL: 'root@example.test',
        ADMIN_PASSWORD: 'secret-secret',
        SEED_DEMO: 'false',
        DEMO_PASSWORD: 'demo-demo-demo',
      },
      ROOT,
    );
    expect(s).toMatchObject({
      databaseUrl: 'postgresql://u:p@db:5432/pasar',
      natsUrl: undefined,
      identitySecret: 'x'.repeat(16),
      freePorts: true,
      namespace: 'dev',
      schemaPrefix: 'me',
      dataDir: '/var/pasar',
      readyTimeoutMs: 30_000,
      color: false,
      admin: { email: 'root@example.test', password: 'secret-secret' },
      demo: { enabled: false, password: 'demo-demo-demo' },
    });
  });

  it('lets arguments win over the environment', () => {
    const s = resolveSettings(
      ['--namespace', 'fromarg', '--data-dir', 'tmp/data', '--timeout', '2.5', '--no-color'],
      { NATS_NAMESPACE: 'fromenv', STACK_DATA_DIR: '/elsewhere', STACK_READY_TIMEOUT: '99' },
      ROOT,
    );
    expect(s).toMatchObject({ namespace: 'fromarg', dataDir: '/repo/tmp/data', readyTimeoutMs: 2500, color: false });
  });

  it('refuses bad values with a clear message', () => {
    expect(() => resolveSettings(['--namespace', 'Bad.Name'], {}, ROOT)).toThrow('bad namespace');
    expect(() => resolveSettings(['--schema-prefix', 'x-y'], {}, ROOT)).toThrow('bad schema prefix');
    expect(() => resolveSettings(['--timeout', '0'], {}, ROOT)).toThrow('positive number');
    expect(() => resolveSettings([], { IDENTITY_SECRET: 'short' }, ROOT)).toThrow('at least 16');
    expect(() => resolveSettings([], { STACK_FREE_PORTS: 'maybe' }, ROOT)).toThrow('expected true or false');
  });

  it('takes a port base from --port-base or STACK_PORT_BASE, never with free ports', () => {
    expect(resolveSettings([], {}, ROOT).portBase).toBeUndefined();
    expect(resolveSettings(['--port-base', '18080'], {}, ROOT).portBase).toBe(18080);
    expect(resolveSettings([], { STACK_PORT_BASE: '28080' }, ROOT).portBase).toBe(28080);
    expect(() => resolveSettings(['--port-base', '80'], {}, ROOT)).toThrow('from 1024 to 65530');
    expect(() => resolveSettings(['--port-base', '65531'], {}, ROOT)).toThrow('from 1024 to 65530');
    expect(() => resolveSettings(['--port-base', '9000.5'], {}, ROOT)).toThrow('whole number');
    expect(() => resolveSettings(['--port-base', '18080', '--free-ports'], {}, ROOT)).toThrow('either free ports or a port base');
  });

  it('takes the replicas from --replicas or STACK_REPLICAS (default 1), refusing anything but 1..8', () => {
    expect(resolveSettings([], {}, '/repo').replicas).toBe(1);
    expect(resolveSettings(['--replicas', '2'], {}, '/repo').replicas).toBe(2);
    expect(resolveSettings([], { STACK_REPLICAS: '3' }, '/repo').replicas).toBe(3);
    expect(resolveSettings(['--replicas=2'], { STACK_REPLICAS: '3' }, '/repo').replicas).toBe(2);
    for (const bad of ['0', '9', '1.5', 'two', '-1']) {
      expect(() => resolveSettings(['--replicas', bad], {}, '/repo')).toThrow(/replicas must be a whole number from 1 to 8/);
    }
  });

  it('drops the data on stop only for a prefixed, namespaced stack', () => {
    expect(resolveSettings([], {}, ROOT).dropDataOnStop).toBe(false);
    const throwAway = resolveSettings(['--drop-data-on-stop', '--namespace', 'smoke1', '--schema-prefix', 'smoke1'], {}, ROOT);
    expect(throwAway.dropDataOnStop).toBe(true);
    expect(resolveSettings([], { STACK_DROP_DATA_ON_STOP: 'true', NATS_NAMESPACE: 'a', STACK_SCHEMA_PREFIX: 'b' }, ROOT).dropDataOnStop).toBe(true);
    expect(() => resolveSettings(['--drop-data-on-stop'], {}, ROOT)).toThrow('needs a namespace and a schema prefix');
    expect(() => resolveSettings(['--drop-data-on-stop', '--namespace', 'only'], {}, ROOT)).toThrow('needs a namespace and a schema prefix');
  });
});
