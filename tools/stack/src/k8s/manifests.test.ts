/**
 * deploy/k8s as a cluster would get it: both overlays rendered with `kubectl kustomize`, every
 * object validated against the Kubernetes schemas (kubernetes-models), then our rules (rules.ts;
 * rules.test.ts shows each one refusing a broken object).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SHUTDOWN_DEADLINE_MS } from '@pasar/service-kit';
import { K8S_DIR, REPOSITORY_ROOT, appsFromConfigs, dockerfileUid, renderKustomization } from './render';
import {
  exposureProblems,
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

const APP_NAMES = ['gateway', 'checkout', 'b2b', 'vendor', 'admin', 'notifier'] as const;
const AUTOSCALED = ['gateway', 'checkout'];
const apps = appsFromConfigs(APP_NAMES);
const expectations: WorkloadExpectations = {
  apps,
  runAsUser: dockerfileUid(readFileSync(join(REPOSITORY_ROOT, 'Dockerfile'), 'utf8')),
  shutdownDeadlineSeconds: SHUTDOWN_DEADLINE_MS / 1000,
};

const rendered: Record<'base' | 'local' | 'production', K8sObject[]> = {
  base: renderKustomization(join(K8S_DIR, 'base')),
  local: renderKustomization(join(K8S_DIR, 'overlays', 'local')),
  production: renderKustomization(join(K8S_DIR, 'overlays', 'production')),
};

function kinds(objects: K8sObject[]): Record<string, number> {
  const count: Record<string, number> = {};
  for (const object of objects) count[object.kind] = (count[object.kind] ?? 0) + 1;
  return count;
}

test('the services and ports the manifests are checked against come from each config.ts and the Dockerfile', () => {
  expect(apps).toEqual([
    { name: 'gateway', port: 8080 },
    { name: 'checkout', port: 4001 },
    { name: 'b2b', port: 4002 },
    { name: 'vendor', port: 4003 },
    { name: 'admin', port: 4004 },
    { name: 'notifier', port: 4005 },
  ]);
  expect(expectations.runAsUser).toBe(1000);
  expect(expectations.shutdownDeadlineSeconds).toBeGreaterThan(0);
});

describe.each(['local', 'production'] as const)('overlay %s', (overlay) => {
  const objects = rendered[overlay];

  test('renders every kind a deployment needs, all in namespace pasar', () => {
    expect(kinds(objects)).toMatchObject({
      Namespace: 1,
      ConfigMap: 1,
      // local: Mailpit beside the six services
      Deployment: overlay === 'local' ? 7 : 6,
      Service: expect.any(Number),
      PodDisruptionBudget: 6,
      HorizontalPodAutoscaler: 2,
      Job: 6,
      Ingress: 1,
      NetworkPolicy: overlay === 'local' ? 4 : 3,
    });
    for (const object of objects.filter((o) => o.kind !== 'Namespace')) expect({ object: `${object.kind}/${object.metadata.name}`, namespace: object.metadata.namespace }).toEqual({ object: `${object.kind}/${object.metadata.name}`, namespace: 'pasar' });
  });

  test('every object is valid against the Kubernetes schema', () => {
    expect(schemaProblems(objects)).toEqual([]);
  });

  test('six Deployments with their image and port, both probes, resources, non-root read-only pods, grace past the drain, and a migration Job each', () => {
    expect(workloadProblems(objects, expectations)).toEqual([]);
  });

  test('no secret value anywhere: Secret objects are referenced, never written', () => {
    expect(secretProblems(objects)).toEqual([]);
    expect(kinds(objects).Secret).toBeUndefined();
  });

  test('only the gateway is behind the Ingress; every Service stays inside the cluster', () => {
    expect(exposureProblems(objects)).toEqual([]);
  });

  test('network policies: ingress denied by default, the domain services reachable from the gateway only', () => {
    expect(networkProblems(objects, apps)).toEqual([]);
  });

  test('a PodDisruptionBudget per service, autoscalers for the gateway and checkout', () => {
    expect(scalingProblems(objects, apps, AUTOSCALED)).toEqual([]);
  });
});

test('production: MIGRATE_ON_START=false (the Jobs migrate), two replicas at least, registry images, the NATS cluster with R3 streams', () => {
  expect(productionProblems(rendered.production, apps)).toEqual([]);
  const config = rendered.production.find((o) => o.kind === 'ConfigMap') as K8sObject & { data: Record<string, string> };
  expect(config.data.NATS_URL).toBe('nats://nats.nats.svc.cluster.local:4222');
  expect(config.data.NATS_STREAM_REPLICAS).toBe('3');
  expect(rendered.production.some((o) => o.kind === 'StatefulSet')).toBe(false);
});

test('local: PostgreSQL and NATS with JetStream run in the cluster, images tagged local', () => {
  expect(localInfrastructureProblems(rendered.local)).toEqual([]);
  const images = rendered.local
    .filter((o) => o.kind === 'Deployment' && o.metadata.name !== 'mailpit')
    .map((o) => (o as unknown as { spec: { template: { spec: { containers: { image: string }[] } } } }).spec.template.spec.containers[0].image);
  expect(images.sort()).toEqual(APP_NAMES.map((name) => `pasar-${name}:local`).sort());
});

test('the base holds no secret value either', () => {
  expect(secretProblems(rendered.base)).toEqual([]);
});

test('docs/deploy.md creates every Secret and required key the overlays reference', () => {
  const docs = readFileSync(join(REPOSITORY_ROOT, 'docs', 'deploy.md'), 'utf8');
  const references = new Set<string>();
  for (const objects of [rendered.local, rendered.production]) {
    const text = JSON.stringify(objects);
    for (const match of text.matchAll(/"secretKeyRef":\{"key":"([A-Z0-9_]+)","name":"([a-z0-9-]+)"(,"optional":true)?/g)) {
      if (!match[3]) references.add(`${match[2]} ${match[1]}`);
    }
  }
  expect(references.size).toBeGreaterThan(6);
  // each `kubectl [-n ns] create secret generic NAME` command with its continuation lines
  const created = new Set<string>();
  for (const command of docs.matchAll(/kubectl (?:-n \S+ )?create secret generic ([a-z0-9-]+)((?:[^\n]*\\\n)*[^\n]*)/g)) {
    for (const literal of command[2].matchAll(/--from-literal=([A-Z0-9_]+)=/g)) created.add(`${command[1]} ${literal[1]}`);
  }
  const missing = [...references].filter((reference) => !created.has(reference));
  expect(missing).toEqual([]);
});
