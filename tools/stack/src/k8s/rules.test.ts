/**
 * Each manifest rule refuses what it is there to refuse: the rendered production overlay with
 * one thing broken at a time (manifests.test.ts shows the unbroken overlays pass).
 */
import { join } from 'node:path';
import { K8S_DIR, appsFromConfigs, dockerfileUid, parseManifests, renderKustomization } from './render';
import {
  effectiveEnv,
  exposureProblems,
  imageName,
  isSecretName,
  selects,
  localInfrastructureProblems,
  networkProblems,
  productionProblems,
  scalingProblems,
  schemaProblems,
  secretProblems,
  workloadProblems,
  type K8sObject,
  type WorkloadExpectations,
} from './rules';

const apps = appsFromConfigs(['gateway', 'checkout', 'b2b', 'vendor', 'admin', 'notifier']);
const expectations: WorkloadExpectations = { apps, runAsUser: 1000, shutdownDeadlineSeconds: 20 };
const production = renderKustomization(join(K8S_DIR, 'overlays', 'production'));
const local = renderKustomization(join(K8S_DIR, 'overlays', 'local'));

/* eslint-disable @typescript-eslint/no-explicit-any -- the tests break objects field by field */
type Mutable = any;

/** A deep copy of `objects` with `change` applied to the object of that kind and name. */
function broken(objects: K8sObject[], kind: string, name: string, change: (object: Mutable) => void): K8sObject[] {
  const copy = structuredClone(objects);
  const target = copy.find((object) => object.kind === kind && object.metadata.name === name);
  if (!target) throw new Error(`no ${kind}/${name} to break`);
  change(target);
  return copy;
}

function container(object: Mutable): Mutable {
  return object.spec.template.spec.containers[0];
}

function envOf(object: Mutable, name: string): Mutable {
  return container(object).env.find((variable: Mutable) => variable.name === name);
}

test('the unbroken production overlay passes every rule (the baseline of the cases below)', () => {
  expect([
    ...schemaProblems(production),
    ...workloadProblems(production, expectations),
    ...secretProblems(production),
    ...exposureProblems(production),
    ...scalingProblems(production, apps, ['gateway', 'checkout']),
    ...productionProblems(production, apps),
  ]).toEqual([]);
});

describe('schemaProblems (kubernetes-models)', () => {
  test('refuses a field of the wrong type and a kind it does not know', () => {
    const wrongType = broken(production, 'Deployment', 'vendor', (d) => {
      container(d).ports[0].containerPort = 'four thousand';
    });
    expect(schemaProblems(wrongType)).toEqual([expect.stringMatching(/^Deployment\/vendor: .*containerPort must be integer/)]);
    const unknown = [...production, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } }];
    expect(schemaProblems(unknown)).toEqual([expect.stringContaining('Widget/w: example.com/v1 Widget is not a kind these checks know')]);
  });

  test('refuses a Deployment without its required selector', () => {
    const noSelector = broken(production, 'Deployment', 'b2b', (d) => delete d.spec.selector);
    expect(schemaProblems(noSelector)).toEqual([expect.stringMatching(/^Deployment\/b2b: .*selector/)]);
  });
});

describe('workloadProblems', () => {
  const cases: [string, string, (d: Mutable) => void, RegExp][] = [
    ['no readiness probe', 'checkout', (d) => delete container(d).readinessProbe, /checkout: no readiness probe/],
    ['liveness on another path', 'b2b', (d) => (container(d).livenessProbe.httpGet.path = '/live'), /b2b: liveness probe asks \/live, not \/healthz/],
    ['a probe on a port the container lacks', 'vendor', (d) => (container(d).livenessProbe.httpGet.port = 'metrics'), /vendor: liveness probe port metrics/],
    ['no memory limit', 'admin', (d) => delete container(d).resources.limits.memory, /admin: no memory in resources.limits/],
    ['no memory request', 'notifier', (d) => delete container(d).resources.requests.memory, /notifier: no memory in resources.requests/],
    ['runAsNonRoot off', 'checkout', (d) => (delete container(d).securityContext.runAsNonRoot, (d.spec.template.spec.securityContext.runAsNonRoot = false)), /checkout: runAsNonRoot is not true/],
    ['another uid than the image user', 'checkout', (d) => (container(d).securityContext.runAsUser = 0), /checkout: runs as uid 0/],
    ['a writable root filesystem', 'gateway', (d) => (container(d).securityContext.readOnlyRootFilesystem = false), /gateway: root filesystem is not read-only/],
    ['privilege escalation allowed', 'gateway', (d) => delete container(d).securityContext.allowPrivilegeEscalation, /gateway: allowPrivilegeEscalation/],
    ['capabilities kept', 'b2b', (d) => (container(d).securityContext.capabilities.drop = ['NET_RAW']), /b2b: capabilities do not drop ALL/],
    ['no writable /tmp', 'vendor', (d) => (container(d).volumeMounts = []), /vendor: no writable emptyDir at \/tmp/],
    ['a grace period within the drain', 'checkout', (d) => (d.spec.template.spec.terminationGracePeriodSeconds = 25), /checkout: terminationGracePeriodSeconds 25 is not longer than preStop plus the shutdown deadline \(25 s\)/],
    ['another port', 'b2b', (d) => (container(d).ports[0].containerPort = 4009), /b2b: port http is 4009, b2b listens on 4002/],
    ['PORT not the app port', 'admin', (d) => (envOf(d, 'PORT').value = '8080'), /admin: PORT is not "4004"/],
    ['gateway readiness off the internal listener', 'gateway', (d) => (container(d).env = container(d).env.filter((v: Mutable) => v.name !== 'METRICS_PORT')), /gateway: readiness probes port 9090 but METRICS_PORT/],
    ['a selector that misses the pods', 'notifier', (d) => (d.spec.selector.matchLabels['app.kubernetes.io/name'] = 'other'), /notifier: its selector does not match/],
  ];
  test.each(cases)('refuses %s', (_what, name, change, expected) => {
    const problems = workloadProblems(broken(production, 'Deployment', name, change), expectations);
    expect(problems).toEqual([expect.stringMatching(expected)]);
  });

  test("refuses another app's image (the migration Job then differs too)", () => {
    const image = broken(production, 'Deployment', 'checkout', (d) => (container(d).image = 'registry.example.com/pasar/pasar-vendor:0.1.0'));
    expect(workloadProblems(image, expectations)).toEqual([
      'Deployment/checkout: image registry.example.com/pasar/pasar-vendor:0.1.0 is not pasar-checkout',
      "Job/checkout-migrate: image registry.example.com/pasar/pasar-checkout:0.1.0 is not the service's registry.example.com/pasar/pasar-vendor:0.1.0",
    ]);
  });

  test('refuses a missing and an extra Deployment', () => {
    const missing = production.filter((o) => !(o.kind === 'Deployment' && o.metadata.name === 'notifier'));
    expect(workloadProblems(missing, expectations)).toEqual([expect.stringContaining('expected [admin, b2b, checkout, gateway, notifier, vendor]')]);
    const extra = [...production, { ...structuredClone(production.find((o) => o.kind === 'Deployment')!), metadata: { name: 'worker' } }];
    expect(workloadProblems(extra, expectations)).toEqual([expect.stringContaining('Deployments are [admin, b2b, checkout, gateway, notifier, vendor, worker]')]);
  });

  test("counts every Deployment but the local overlay's infrastructure", () => {
    expect(workloadProblems(local, expectations)).toEqual([]);
    const unlabelled = broken(local, 'Deployment', 'mailpit', (d) => delete d.metadata.labels['app.kubernetes.io/component']);
    expect(workloadProblems(unlabelled, expectations)).toEqual([expect.stringContaining('Deployments are [admin, b2b, checkout, gateway, mailpit, notifier, vendor]')]);
  });

  test("refuses a Service on another port or selecting other pods", () => {
    const port = broken(production, 'Service', 'vendor', (s) => (s.spec.ports[0].port = 80));
    expect(workloadProblems(port, expectations)).toEqual(['Service/vendor: does not serve port 4003 to the container\'s http port']);
    const selector = broken(production, 'Service', 'vendor', (s) => (s.spec.selector['app.kubernetes.io/component'] = 'migration'));
    expect(workloadProblems(selector, expectations)).toEqual(['Service/vendor: does not select the pods of Deployment/vendor']);
  });

  test('refuses a service without its migration Job, or a Job with another image, command or database', () => {
    const noJob = production.filter((o) => !(o.kind === 'Job' && o.metadata.name === 'admin-migrate'));
    expect(workloadProblems(noJob, expectations)).toEqual(['admin: 0 migration Jobs, expected one']);
    const image = broken(production, 'Job', 'admin-migrate', (j) => (container(j).image = 'registry.example.com/pasar/pasar-admin:0.0.9'));
    expect(workloadProblems(image, expectations)).toEqual([expect.stringMatching(/Job\/admin-migrate: image .*0\.0\.9 is not the service's/)]);
    const command = broken(production, 'Job', 'admin-migrate', (j) => (container(j).command = ['node', 'apps/admin/src/main.ts']));
    expect(workloadProblems(command, expectations)).toEqual(['Job/admin-migrate: does not run the migrations entry (dist/migrate.js)']);
    const database = broken(production, 'Job', 'admin-migrate', (j) => (envOf(j, 'DATABASE_URL').valueFrom.secretKeyRef.name = 'pasar-checkout'));
    expect(workloadProblems(database, expectations)).toEqual(["Job/admin-migrate: DATABASE_URL is not the service's"]);
    const root = broken(production, 'Job', 'admin-migrate', (j) => (j.spec.template.spec.securityContext.runAsUser = 0));
    expect(workloadProblems(root, expectations)).toEqual(["Job/admin-migrate: runs as uid 0, not the image's user 1000"]);
  });
});

describe('secretProblems', () => {
  test('refuses a Secret object with values (data or stringData)', () => {
    for (const field of ['data', 'stringData']) {
      const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'pasar-identity' }, [field]: { IDENTITY_SECRET: 'c2VjcmV0' } };
      expect(secretProblems([...production, secret])).toEqual([expect.stringContaining('Secret/pasar-identity holds values')]);
    }
  });

  test('refuses a secret-named variable written in the manifest instead of a secretKeyRef', () => {
    const literal = broken(production, 'Deployment', 'checkout', (d) => (envOf(d, 'PAYMENT_SECRET_KEY').valueFrom = undefined, (envOf(d, 'PAYMENT_SECRET_KEY').value = 'hunter2')));
    expect(secretProblems(literal)).toEqual(['Deployment/checkout checkout PAYMENT_SECRET_KEY: a secret, must come from a secretKeyRef']);
    const fromConfigMap = broken(production, 'Job', 'b2b-migrate', (j) => (envOf(j, 'DATABASE_URL').valueFrom = { configMapKeyRef: { name: 'pasar-common', key: 'DATABASE_URL' } }));
    expect(secretProblems(fromConfigMap)).toEqual(['Job/b2b-migrate migrate DATABASE_URL: a secret, must come from a secretKeyRef']);
  });

  test('refuses a URL with a password in an env value or a ConfigMap, and a secret-named ConfigMap key', () => {
    const inEnv = broken(production, 'Deployment', 'gateway', (d) => container(d).env.push({ name: 'SESSION_STORE', value: 'redis://default:s3cret@redis:6379' }));
    expect(secretProblems(inEnv)).toEqual(['Deployment/gateway gateway SESSION_STORE: has a password in its URL']);
    const inConfig = broken(production, 'ConfigMap', 'pasar-common', (c) => (c.data.NATS_URL = 'nats://pasar:s3cret@nats:4222'));
    expect(secretProblems(inConfig)).toEqual(['ConfigMap/pasar-common: NATS_URL has a password in its URL']);
    const key = broken(production, 'ConfigMap', 'pasar-common', (c) => (c.data.IDENTITY_SECRET = 'x'.repeat(32)));
    expect(secretProblems(key)).toEqual(['ConfigMap/pasar-common: IDENTITY_SECRET is a secret; reference it from a Secret']);
  });

  test('secret names: the compose rule plus URLs that carry credentials', () => {
    for (const name of ['IDENTITY_SECRET', 'ADMIN_PASSWORD', 'LABEL_SIGNING_KEY', 'PAYMENT_MERCHANT_ID', 'API_TOKEN', 'DATABASE_URL', 'REDIS_URL', 'SMTP_URL']) expect({ name, secret: isSecretName(name) }).toEqual({ name, secret: true });
    for (const name of ['NATS_URL', 'APP_URL', 'PORT', 'MIGRATE_ON_START']) expect({ name, secret: isSecretName(name) }).toEqual({ name, secret: false });
  });
});

describe('exposureProblems', () => {
  test('refuses an Ingress to another service than the gateway, and no Ingress at all', () => {
    const toCheckout = broken(production, 'Ingress', 'gateway', (i) => (i.spec.rules[0].http.paths[0].backend.service.name = 'checkout'));
    expect(exposureProblems(toCheckout)).toEqual(['Ingress/gateway: routes to checkout; only the gateway is behind an Ingress']);
    expect(exposureProblems(production.filter((o) => o.kind !== 'Ingress'))).toEqual(['no Ingress for the gateway']);
  });

  test('refuses a Service published outside the cluster', () => {
    const loadBalancer = broken(production, 'Service', 'admin', (s) => (s.spec.type = 'LoadBalancer'));
    expect(exposureProblems(loadBalancer)).toEqual([expect.stringContaining('Service/admin: type LoadBalancer')]);
  });
});

describe('networkProblems', () => {
  test('refuses a namespace without a default deny', () => {
    expect(networkProblems(production.filter((o) => o.metadata.name !== 'default-deny-ingress'), apps)).toEqual(['no NetworkPolicy denies ingress to every pod by default']);
  });

  test('refuses a domain service reachable from anyone, any pod, or another pod than the gateway', () => {
    const anyone = broken(production, 'NetworkPolicy', 'services-from-gateway', (p) => delete p.spec.ingress[0].from);
    expect(networkProblems(anyone, apps)).toEqual(['checkout', 'b2b', 'vendor', 'admin', 'notifier'].map((name) => `NetworkPolicy/services-from-gateway: lets anyone reach ${name}; only the gateway may`));
    const anyPod = broken(production, 'NetworkPolicy', 'services-from-gateway', (p) => (p.spec.ingress[0].from[0].podSelector = {}));
    expect(networkProblems(anyPod, apps)).toHaveLength(5);
    const open = [...production, { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'open-admin' }, spec: { podSelector: { matchLabels: { 'app.kubernetes.io/name': 'admin' } }, ingress: [{}] } }];
    expect(networkProblems(open, apps)).toEqual(['NetworkPolicy/open-admin: lets anyone reach admin; only the gateway may']);
    const vendorPods = broken(production, 'NetworkPolicy', 'services-from-gateway', (p) => (p.spec.ingress[0].from[0].podSelector.matchLabels['app.kubernetes.io/name'] = 'vendor'));
    expect(networkProblems(vendorPods, apps)).toHaveLength(5);
  });

  test('selects: matchLabels and matchExpressions as Kubernetes reads them', () => {
    const labels = { 'app.kubernetes.io/name': 'b2b', 'app.kubernetes.io/component': 'service' };
    expect(selects({}, labels)).toBe(true);
    expect(selects({ matchLabels: { 'app.kubernetes.io/name': 'b2b' } }, labels)).toBe(true);
    expect(selects({ matchExpressions: [{ key: 'app.kubernetes.io/name', operator: 'In', values: ['checkout', 'b2b'] }] }, labels)).toBe(true);
    expect(selects({ matchExpressions: [{ key: 'app.kubernetes.io/name', operator: 'NotIn', values: ['b2b'] }] }, labels)).toBe(false);
    expect(selects({ matchExpressions: [{ key: 'tier', operator: 'Exists' }] }, labels)).toBe(false);
    expect(selects({ matchLabels: { 'app.kubernetes.io/name': 'vendor' } }, labels)).toBe(false);
    expect(selects(undefined, labels)).toBe(false);
  });
});

describe('scalingProblems', () => {
  test('refuses a service without a PodDisruptionBudget and the gateway or checkout without an autoscaler', () => {
    const noBudget = production.filter((o) => !(o.kind === 'PodDisruptionBudget' && o.metadata.name === 'vendor'));
    expect(scalingProblems(noBudget, apps, ['gateway', 'checkout'])).toEqual(['Deployment/vendor: no PodDisruptionBudget selects its pods']);
    const noAutoscaler = production.filter((o) => !(o.kind === 'HorizontalPodAutoscaler' && o.metadata.name === 'checkout'));
    expect(scalingProblems(noAutoscaler, apps, ['gateway', 'checkout'])).toEqual(['Deployment/checkout: no HorizontalPodAutoscaler']);
  });
});

describe('productionProblems', () => {
  test('refuses migrations on start, from the ConfigMap or one Deployment', () => {
    const configMap = broken(production, 'ConfigMap', 'pasar-common', (c) => (c.data.MIGRATE_ON_START = 'true'));
    expect(productionProblems(configMap, apps)).toHaveLength(6);
    const oneDeployment = broken(production, 'Deployment', 'vendor', (d) => container(d).env.push({ name: 'MIGRATE_ON_START', value: 'true' }));
    expect(productionProblems(oneDeployment, apps)).toEqual([expect.stringContaining('Deployment/vendor: MIGRATE_ON_START is "true"')]);
  });

  test('refuses streams with fewer than three replicas', () => {
    const r1 = broken(production, 'ConfigMap', 'pasar-common', (c) => delete c.data.NATS_STREAM_REPLICAS);
    expect(productionProblems(r1, apps)).toEqual(apps.map((app) => `Deployment/${app.name}: NATS_STREAM_REPLICAS is undefined, production streams are R3 ("3")`));
  });

  test('refuses one replica, an autoscaler from one, and an image without registry or release tag', () => {
    expect(productionProblems(broken(production, 'Deployment', 'notifier', (d) => (d.spec.replicas = 1)), apps)).toEqual([expect.stringContaining('Deployment/notifier: 1 replica(s)')]);
    expect(productionProblems(broken(production, 'HorizontalPodAutoscaler', 'gateway', (h) => (h.spec.minReplicas = 1)), apps)).toEqual([expect.stringContaining('Deployment/gateway: 1 replica(s)')]);
    expect(productionProblems(broken(production, 'Deployment', 'b2b', (d) => (container(d).image = 'pasar-b2b:local')), apps)).toEqual([expect.stringContaining('image pasar-b2b:local is not from a registry')]);
    expect(productionProblems(broken(production, 'Deployment', 'b2b', (d) => (container(d).image = 'registry.example.com/pasar/pasar-b2b:latest')), apps)).toHaveLength(1);
  });

  test("refuses the local overlay's infrastructure (Mailpit, PostgreSQL, NATS) in production", () => {
    const mailpit = local.filter((o) => o.metadata.name === 'mailpit');
    expect(mailpit.length).toBeGreaterThan(0);
    expect(productionProblems([...production, ...mailpit], apps)).toEqual(mailpit.map((o) => `${o.kind}/mailpit: local infrastructure has no place in production`));
  });

  test('the local overlay is not production (migrates on start, one replica, local images)', () => {
    expect(productionProblems(local, apps).length).toBeGreaterThanOrEqual(6);
  });
});

describe('localInfrastructureProblems', () => {
  test('refuses NATS without JetStream, a StatefulSet without a Service, and a missing PostgreSQL', () => {
    expect(localInfrastructureProblems(local)).toEqual([]);
    const noJetStream = broken(local, 'StatefulSet', 'nats', (s) => (container(s).args = ['-m', '8222']));
    expect(localInfrastructureProblems(noJetStream)).toEqual(['StatefulSet/nats: JetStream is not on (-js)']);
    const noService = local.filter((o) => !(o.kind === 'Service' && o.metadata.name === 'nats'));
    expect(localInfrastructureProblems(noService)).toEqual(['StatefulSet/nats: no Service selects it']);
    expect(localInfrastructureProblems(production)).toEqual(['no StatefulSet postgres', 'no StatefulSet nats']);
  });
});

describe('helpers', () => {
  test('effectiveEnv: env wins over the ConfigMap of envFrom', () => {
    const vendor = production.find((o) => o.kind === 'Deployment' && o.metadata.name === 'vendor') as Mutable;
    const env = effectiveEnv(container(vendor), production);
    expect(env).toMatchObject({ NODE_ENV: 'production', PORT: '4003', MIGRATE_ON_START: 'false', DATABASE_URL: { from: expect.stringContaining('pasar-vendor') } });
  });

  test('imageName strips registry, tag and digest', () => {
    expect(imageName('registry.example.com:5000/pasar/pasar-b2b:0.1.0@sha256:abc')).toBe('pasar-b2b');
    expect(imageName('pasar-b2b')).toBe('pasar-b2b');
  });

  test('parseManifests names a broken document; dockerfileUid refuses an image without a known non-root USER', () => {
    expect(() => parseManifests('kind: ConfigMap\n---\nkind: [unclosed\n')).toThrow(/document 2/);
    expect(parseManifests('---\nkind: A\n---\n')).toEqual([{ kind: 'A' }]);
    expect(dockerfileUid('FROM x\nUSER root\nUSER node\n')).toBe(1000);
    expect(dockerfileUid('FROM x\nUSER 10001\n')).toBe(10001);
    expect(() => dockerfileUid('FROM x\nRUN true\n')).toThrow(/no USER/);
    expect(() => dockerfileUid('FROM x\nUSER app\n')).toThrow(/no known uid/);
  });
});
