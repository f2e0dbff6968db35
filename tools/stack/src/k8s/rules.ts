/**
 * The checks of the rendered Kubernetes manifests (deploy/k8s): every object against the
 * Kubernetes schemas (kubernetes-models), then our own rules. Each rule is a pure function from
 * the rendered objects to a list of problems (empty: the rule holds), so a test can feed it a
 * broken object and see it refused.
 */
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IEnvVar } from 'kubernetes-models/v1/EnvVar';
import type { IPodSpec } from 'kubernetes-models/v1/PodSpec';
import type { IProbe } from 'kubernetes-models/v1/Probe';
import { Deployment, StatefulSet } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { Job } from 'kubernetes-models/batch/v1';
import { Ingress, NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ConfigMap, Namespace, PersistentVolumeClaim, Secret, Service } from 'kubernetes-models/v1';

/** One rendered object: what every Kubernetes object has, the rest read per kind. */
export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [field: string]: unknown;
}

/** A service as the manifests must run it: its folder name, image, and the port of its config. */
export interface AppSpec {
  name: string;
  port: number;
}

/** What the workload rules compare with: the image's user and the services' shutdown deadline. */
export interface WorkloadExpectations {
  apps: AppSpec[];
  /** The uid of the Dockerfile's USER (node: 1000). */
  runAsUser: number;
  /** service-kit's SHUTDOWN_DEADLINE_MS in seconds: the grace period must outlast preStop plus this. */
  shutdownDeadlineSeconds: number;
}

type Problem = string;

const COMPONENT = 'app.kubernetes.io/component';
/** The component label of what only the local overlay runs beside the services (PostgreSQL, NATS, Mailpit). */
export const LOCAL_INFRASTRUCTURE = 'local-infrastructure';

/** Variable names that hold a secret (the compose test's rule), plus URLs that carry credentials. */
export const SECRET_NAME = /SECRET|PASSWORD|_KEY$|TOKEN|MERCHANT_ID/;
const CREDENTIAL_URL_NAMES = new Set(['DATABASE_URL', 'REDIS_URL', 'SMTP_URL']);
/** `scheme://user:password@host`: a URL with a password written into it. */
const URL_WITH_PASSWORD = /[a-z][a-z0-9+.-]*:\/\/[^/\s:@]*:[^/\s@]+@/i;

export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name) || CREDENTIAL_URL_NAMES.has(name);
}

// ─── Kubernetes schemas ────────────────────────────────────────────────────────────────────────

interface Validatable {
  validate(): void;
}
const MODELS: Record<string, new (data: never) => Validatable> = {
  'v1/Namespace': Namespace,
  'v1/ConfigMap': ConfigMap,
  'v1/Secret': Secret,
  'v1/Service': Service,
  'v1/PersistentVolumeClaim': PersistentVolumeClaim,
  'apps/v1/Deployment': Deployment,
  'apps/v1/StatefulSet': StatefulSet,
  'batch/v1/Job': Job,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'networking.k8s.io/v1/Ingress': Ingress,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
};

function objectName(object: K8sObject): string {
  return `${object.kind}/${object.metadata?.name ?? '(no name)'}`;
}

/** Each object built as its kubernetes-models class and validated against the Kubernetes schema. */
export function schemaProblems(objects: K8sObject[]): Problem[] {
  const problems: Problem[] = [];
  for (const object of objects) {
    const Model = MODELS[`${object.apiVersion}/${object.kind}`];
    if (!Model) {
      problems.push(`${objectName(object)}: ${object.apiVersion} ${object.kind} is not a kind these checks know (add it to MODELS)`);
      continue;
    }
    try {
      new Model(object as never).validate();
    } catch (error) {
      problems.push(`${objectName(object)}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return problems;
}

// ─── Reading objects ───────────────────────────────────────────────────────────────────────────

interface Workload extends K8sObject {
  spec: { replicas?: number; selector?: { matchLabels?: Record<string, string> }; template: { metadata?: { labels?: Record<string, string> }; spec: IPodSpec } };
}

function ofKind<T extends K8sObject = K8sObject>(objects: K8sObject[], kind: string): T[] {
  return objects.filter((object) => object.kind === kind) as T[];
}

function named<T extends K8sObject>(objects: T[], name: string): T | undefined {
  return objects.find((object) => object.metadata.name === name);
}

/** Every object that runs pods, with its pod spec. */
function podSpecs(objects: K8sObject[]): { owner: string; pod: IPodSpec }[] {
  return objects
    .filter((object) => ['Deployment', 'StatefulSet', 'Job', 'DaemonSet', 'ReplicaSet'].includes(object.kind))
    .map((object) => ({ owner: objectName(object), pod: (object as Workload).spec?.template?.spec }))
    .filter((entry) => entry.pod !== undefined);
}

function containersOf(pod: IPodSpec): IContainer[] {
  return [...(pod.initContainers ?? []), ...(pod.containers ?? [])];
}

/** The container's plain environment as the pod sees it: ConfigMaps of envFrom first, then env (a reference stays a reference). */
export function effectiveEnv(container: IContainer, objects: K8sObject[]): Record<string, string | { from: string }> {
  const env: Record<string, string | { from: string }> = {};
  for (const source of container.envFrom ?? []) {
    const configMap = source.configMapRef && named(ofKind<K8sObject & { data?: Record<string, string> }>(objects, 'ConfigMap'), source.configMapRef.name ?? '');
    for (const [key, value] of Object.entries(configMap?.data ?? {})) env[`${source.prefix ?? ''}${key}`] = value;
  }
  for (const variable of container.env ?? []) {
    env[variable.name] = variable.valueFrom ? { from: JSON.stringify(variable.valueFrom) } : (variable.value ?? '');
  }
  return env;
}

function envVar(container: IContainer, name: string): IEnvVar | undefined {
  return container.env?.find((variable) => variable.name === name);
}

/** The repository's last path segment, without registry, tag or digest: `reg/x/pasar-b2b:1` → `pasar-b2b`. */
export function imageName(image: string): string {
  const withoutDigest = image.split('@')[0];
  const lastSegment = withoutDigest.slice(withoutDigest.lastIndexOf('/') + 1);
  return lastSegment.split(':')[0];
}

function imageTag(image: string): string | undefined {
  const withoutDigest = image.split('@')[0];
  const lastSegment = withoutDigest.slice(withoutDigest.lastIndexOf('/') + 1);
  return lastSegment.includes(':') ? lastSegment.slice(lastSegment.indexOf(':') + 1) : undefined;
}

function matches(selector: Record<string, string> | undefined, labels: Record<string, string> | undefined): boolean {
  if (!selector || Object.keys(selector).length === 0) return false;
  return Object.entries(selector).every(([key, value]) => labels?.[key] === value);
}

// ─── Secrets ───────────────────────────────────────────────────────────────────────────────────

/**
 * No secret value in the manifests: no Secret object with data, secret-named variables only from
 * a secretKeyRef, no URL with a password in any env value or ConfigMap, no secret-named key in a
 * ConfigMap.
 */
export function secretProblems(objects: K8sObject[]): Problem[] {
  const problems: Problem[] = [];
  for (const secret of ofKind<K8sObject & { data?: object; stringData?: object }>(objects, 'Secret')) {
    if (secret.data || secret.stringData) problems.push(`${objectName(secret)} holds values: create it with kubectl (docs/deploy.md), never in a manifest`);
  }
  for (const configMap of ofKind<K8sObject & { data?: Record<string, string> }>(objects, 'ConfigMap')) {
    for (const [key, value] of Object.entries(configMap.data ?? {})) {
      if (isSecretName(key)) problems.push(`${objectName(configMap)}: ${key} is a secret; reference it from a Secret`);
      if (URL_WITH_PASSWORD.test(String(value))) problems.push(`${objectName(configMap)}: ${key} has a password in its URL`);
    }
  }
  for (const { owner, pod } of podSpecs(objects)) {
    for (const container of containersOf(pod)) {
      for (const variable of container.env ?? []) {
        const where = `${owner} ${container.name} ${variable.name}`;
        if (isSecretName(variable.name) && !variable.valueFrom?.secretKeyRef) problems.push(`${where}: a secret, must come from a secretKeyRef`);
        if (variable.value !== undefined && URL_WITH_PASSWORD.test(variable.value)) problems.push(`${where}: has a password in its URL`);
      }
    }
  }
  return problems;
}

// ─── The six services ──────────────────────────────────────────────────────────────────────────

function probeProblems(where: string, container: IContainer, probe: IProbe | undefined, kind: string, path: string): Problem[] {
  const get = probe?.httpGet;
  if (!get) return [`${where}: no ${kind} probe (an httpGet of ${path})`];
  const problems: Problem[] = [];
  if (get.path !== path) problems.push(`${where}: ${kind} probe asks ${get.path ?? '(no path)'}, not ${path}`);
  const port = container.ports?.find((p) => p.name === get.port || p.containerPort === get.port);
  if (!port) problems.push(`${where}: ${kind} probe port ${String(get.port)} is not a port of the container`);
  return problems;
}

/** Requests and limits of cpu and memory. */
function resourceProblems(where: string, container: IContainer): Problem[] {
  const problems: Problem[] = [];
  for (const bound of ['requests', 'limits'] as const) {
    for (const resource of ['cpu', 'memory']) {
      if (container.resources?.[bound]?.[resource] === undefined) problems.push(`${where}: no ${resource} in resources.${bound}`);
    }
  }
  return problems;
}

/** Non-root as the image's user, read-only root filesystem (with a writable /tmp), no escalation, no capabilities. */
function securityProblems(where: string, pod: IPodSpec, container: IContainer, runAsUser: number): Problem[] {
  const problems: Problem[] = [];
  const podContext = pod.securityContext ?? {};
  const context = container.securityContext ?? {};
  if ((context.runAsNonRoot ?? podContext.runAsNonRoot) !== true) problems.push(`${where}: runAsNonRoot is not true`);
  const user = context.runAsUser ?? podContext.runAsUser;
  if (user !== runAsUser) problems.push(`${where}: runs as uid ${String(user)}, not the image's user ${runAsUser}`);
  if (context.readOnlyRootFilesystem !== true) problems.push(`${where}: root filesystem is not read-only`);
  if (context.allowPrivilegeEscalation !== false) problems.push(`${where}: allowPrivilegeEscalation is not false`);
  if (!context.capabilities?.drop?.includes('ALL')) problems.push(`${where}: capabilities do not drop ALL`);
  if (context.privileged) problems.push(`${where}: privileged`);
  const tmp = container.volumeMounts?.find((mount) => mount.mountPath === '/tmp');
  const tmpVolume = tmp && pod.volumes?.find((volume) => volume.name === tmp.name);
  if (!tmpVolume?.emptyDir || tmp?.readOnly) problems.push(`${where}: no writable emptyDir at /tmp (the read-only root needs one)`);
  return problems;
}

function preStopSeconds(container: IContainer): number {
  const command = container.lifecycle?.preStop?.exec?.command ?? [];
  return command[0] === 'sleep' && /^\d+$/.test(command[1] ?? '') ? Number(command[1]) : 0;
}

/**
 * Exactly the six services as Deployments, each with its own image and port (the Service too),
 * /healthz liveness and /readyz readiness, resources, a non-root read-only security context and a
 * grace period past preStop plus the shutdown deadline; a migration Job per service in the same
 * image with the same database.
 */
export function workloadProblems(objects: K8sObject[], expected: WorkloadExpectations): Problem[] {
  const problems: Problem[] = [];
  // the local overlay's helpers (Mailpit) are not Pasar services
  const deployments = ofKind<Workload>(objects, 'Deployment').filter((d) => d.metadata.labels?.[COMPONENT] !== LOCAL_INFRASTRUCTURE);
  const names = deployments.map((d) => d.metadata.name).sort();
  const wanted = expected.apps.map((app) => app.name).sort();
  if (names.join() !== wanted.join()) problems.push(`Deployments are [${names.join(', ')}], expected [${wanted.join(', ')}]`);

  for (const app of expected.apps) {
    const deployment = named(deployments, app.name);
    if (!deployment) continue;
    const pod = deployment.spec.template.spec;
    const container = pod.containers?.find((c) => c.name === app.name);
    const where = `Deployment/${app.name}`;
    if (!container) {
      problems.push(`${where}: no container named ${app.name}`);
      continue;
    }
    if (imageName(container.image ?? '') !== `pasar-${app.name}`) problems.push(`${where}: image ${container.image} is not pasar-${app.name}`);
    const http = container.ports?.find((port) => port.name === 'http');
    if (http?.containerPort !== app.port) problems.push(`${where}: port http is ${String(http?.containerPort)}, ${app.name} listens on ${app.port}`);
    if (envVar(container, 'PORT')?.value !== String(app.port)) problems.push(`${where}: PORT is not "${app.port}"`);

    problems.push(...probeProblems(where, container, container.livenessProbe, 'liveness', '/healthz'));
    problems.push(...probeProblems(where, container, container.readinessProbe, 'readiness', '/readyz'));
    // /readyz on another port than http: the service's internal listener (METRICS_PORT) must be that port
    const readinessPort = container.ports?.find((p) => p.name === container.readinessProbe?.httpGet?.port || p.containerPort === container.readinessProbe?.httpGet?.port);
    if (readinessPort && readinessPort.name !== 'http' && envVar(container, 'METRICS_PORT')?.value !== String(readinessPort.containerPort)) {
      problems.push(`${where}: readiness probes port ${readinessPort.containerPort} but METRICS_PORT (the internal listener of /readyz) is not it`);
    }
    problems.push(...resourceProblems(where, container));
    problems.push(...securityProblems(where, pod, container, expected.runAsUser));
    const grace = pod.terminationGracePeriodSeconds ?? 30;
    const needed = preStopSeconds(container) + expected.shutdownDeadlineSeconds;
    if (grace <= needed) problems.push(`${where}: terminationGracePeriodSeconds ${grace} is not longer than preStop plus the shutdown deadline (${needed} s)`);

    const podLabels = deployment.spec.template.metadata?.labels;
    if (!matches(deployment.spec.selector?.matchLabels, podLabels)) problems.push(`${where}: its selector does not match its pod labels`);
    const service = ofKind<K8sObject & { spec?: { selector?: Record<string, string>; ports?: { port: number; targetPort?: string | number }[] } }>(objects, 'Service').find(
      (s) => s.metadata.name === app.name,
    );
    if (!service) problems.push(`${where}: no Service ${app.name}`);
    else {
      if (!matches(service.spec?.selector, podLabels)) problems.push(`Service/${app.name}: does not select the pods of Deployment/${app.name}`);
      if (!service.spec?.ports?.some((port) => port.port === app.port && (port.targetPort === 'http' || port.targetPort === app.port))) {
        problems.push(`Service/${app.name}: does not serve port ${app.port} to the container's http port`);
      }
    }
    problems.push(...migrationJobProblems(objects, app, container, expected));
  }
  return problems;
}

function migrationJobProblems(objects: K8sObject[], app: AppSpec, serviceContainer: IContainer, expected: WorkloadExpectations): Problem[] {
  const jobs = ofKind<Workload>(objects, 'Job').filter((job) => job.spec.template.metadata?.labels?.['app.kubernetes.io/name'] === app.name);
  if (jobs.length !== 1) return [`${app.name}: ${jobs.length} migration Jobs, expected one`];
  const [job] = jobs;
  const where = objectName(job);
  const pod = job.spec.template.spec;
  const container = pod.containers?.[0];
  if (!container) return [`${where}: no container`];
  const problems: Problem[] = [];
  if (container.image !== serviceContainer.image) problems.push(`${where}: image ${container.image} is not the service's ${serviceContainer.image}`);
  // the image's bundle of packages/service-kit/src/migrate-main.ts (scripts/bundle-service.mjs)
  if (!container.command?.some((part) => part === 'dist/migrate.js')) problems.push(`${where}: does not run the migrations entry (dist/migrate.js)`);
  const jobDatabase = JSON.stringify(envVar(container, 'DATABASE_URL')?.valueFrom);
  if (jobDatabase === undefined || jobDatabase !== JSON.stringify(envVar(serviceContainer, 'DATABASE_URL')?.valueFrom)) {
    problems.push(`${where}: DATABASE_URL is not the service's`);
  }
  problems.push(...resourceProblems(where, container));
  problems.push(...securityProblems(where, pod, container, expected.runAsUser));
  return problems;
}

// ─── Exposure, scaling, disruption ─────────────────────────────────────────────────────────────

interface IngressBackend {
  service?: { name?: string };
}

/** Only the gateway behind an Ingress; every Service stays inside the cluster (ClusterIP). */
export function exposureProblems(objects: K8sObject[]): Problem[] {
  const problems: Problem[] = [];
  const ingresses = ofKind<K8sObject & { spec?: { defaultBackend?: IngressBackend; rules?: { http?: { paths?: { backend?: IngressBackend }[] } }[] } }>(objects, 'Ingress');
  if (ingresses.length === 0) problems.push('no Ingress for the gateway');
  for (const ingress of ingresses) {
    const backends = [ingress.spec?.defaultBackend, ...(ingress.spec?.rules ?? []).flatMap((rule) => (rule.http?.paths ?? []).map((path) => path.backend))].filter(
      (backend): backend is IngressBackend => backend !== undefined,
    );
    if (backends.length === 0) problems.push(`${objectName(ingress)}: routes nowhere`);
    for (const backend of backends) {
      if (backend.service?.name !== 'gateway') problems.push(`${objectName(ingress)}: routes to ${backend.service?.name ?? '(no service)'}; only the gateway is behind an Ingress`);
    }
  }
  for (const service of ofKind<K8sObject & { spec?: { type?: string } }>(objects, 'Service')) {
    const type = service.spec?.type ?? 'ClusterIP';
    if (type !== 'ClusterIP') problems.push(`${objectName(service)}: type ${type} publishes it outside the cluster; only the gateway's Ingress does`);
  }
  return problems;
}

/** A PodDisruptionBudget per service; a HorizontalPodAutoscaler for each of `autoscaled`. */
export function scalingProblems(objects: K8sObject[], apps: AppSpec[], autoscaled: string[]): Problem[] {
  const problems: Problem[] = [];
  const deployments = ofKind<Workload>(objects, 'Deployment');
  const budgets = ofKind<K8sObject & { spec?: { selector?: { matchLabels?: Record<string, string> } } }>(objects, 'PodDisruptionBudget');
  const autoscalers = ofKind<K8sObject & { spec?: { scaleTargetRef?: { kind?: string; name?: string } } }>(objects, 'HorizontalPodAutoscaler');
  for (const app of apps) {
    const deployment = named(deployments, app.name);
    if (!deployment) continue;
    const labels = deployment.spec.template.metadata?.labels;
    if (!budgets.some((budget) => matches(budget.spec?.selector?.matchLabels, labels))) problems.push(`Deployment/${app.name}: no PodDisruptionBudget selects its pods`);
    const scaled = autoscalers.some((hpa) => hpa.spec?.scaleTargetRef?.kind === 'Deployment' && hpa.spec.scaleTargetRef.name === app.name);
    if (autoscaled.includes(app.name) && !scaled) problems.push(`Deployment/${app.name}: no HorizontalPodAutoscaler`);
  }
  return problems;
}

// ─── Network policies ──────────────────────────────────────────────────────────────────────────

interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}
interface PolicyPeer {
  podSelector?: LabelSelector;
  namespaceSelector?: LabelSelector;
  ipBlock?: unknown;
}
type Policy = K8sObject & { spec?: { podSelector?: LabelSelector; policyTypes?: string[]; ingress?: { from?: PolicyPeer[] }[] } };

/** Kubernetes label selector semantics: every matchLabels pair and every expression hold (empty: all). */
export function selects(selector: LabelSelector | undefined, labels: Record<string, string> | undefined): boolean {
  if (!selector) return false;
  const own = labels ?? {};
  const byLabels = Object.entries(selector.matchLabels ?? {}).every(([key, value]) => own[key] === value);
  const byExpressions = (selector.matchExpressions ?? []).every((expression) => {
    const value = own[expression.key];
    switch (expression.operator) {
      case 'In':
        return value !== undefined && (expression.values ?? []).includes(value);
      case 'NotIn':
        return value === undefined || !(expression.values ?? []).includes(value);
      case 'Exists':
        return value !== undefined;
      case 'DoesNotExist':
        return value === undefined;
      default:
        return false;
    }
  });
  return byLabels && byExpressions;
}

/**
 * Ingress traffic denied by default in the namespace, and the domain services (all but the
 * gateway) reachable only from the gateway's pods or another namespace named by a selector
 * (monitoring): never from any address, any pod, or an IP block.
 */
export function networkProblems(objects: K8sObject[], apps: AppSpec[]): Problem[] {
  const problems: Problem[] = [];
  const policies = ofKind<Policy>(objects, 'NetworkPolicy');
  const denyAll = policies.some(
    (policy) =>
      Object.keys(policy.spec?.podSelector?.matchLabels ?? {}).length === 0 &&
      (policy.spec?.podSelector?.matchExpressions ?? []).length === 0 &&
      (policy.spec?.policyTypes ?? []).includes('Ingress') &&
      (policy.spec?.ingress ?? []).length === 0,
  );
  if (!denyAll) problems.push('no NetworkPolicy denies ingress to every pod by default');
  const gateway = named(ofKind<Workload>(objects, 'Deployment'), 'gateway')?.spec.template.metadata?.labels;
  // the pod labels of every other workload: a peer selecting any of them is not "the gateway only"
  const otherPods = objects
    .filter((object) => ['Deployment', 'StatefulSet', 'Job'].includes(object.kind) && !(object.kind === 'Deployment' && object.metadata.name === 'gateway'))
    .map((object) => (object as Workload).spec?.template?.metadata?.labels);
  const onlyGateway = (selector: LabelSelector) => selects(selector, gateway) && !otherPods.some((labels) => selects(selector, labels));
  for (const app of apps.filter((a) => a.name !== 'gateway')) {
    const labels = named(ofKind<Workload>(objects, 'Deployment'), app.name)?.spec.template.metadata?.labels;
    if (!labels) continue;
    for (const policy of policies.filter((p) => selects(p.spec?.podSelector, labels))) {
      for (const rule of policy.spec?.ingress ?? []) {
        const peers = rule.from ?? [];
        if (peers.length === 0) problems.push(`${objectName(policy)}: lets anyone reach ${app.name}; only the gateway may`);
        for (const peer of peers) {
          const fromGateway = peer.podSelector !== undefined && peer.namespaceSelector === undefined && onlyGateway(peer.podSelector);
          const fromNamedNamespace = peer.namespaceSelector !== undefined && peer.podSelector === undefined && Object.keys(peer.namespaceSelector.matchLabels ?? {}).length > 0;
          if (!fromGateway && !fromNamedNamespace) problems.push(`${objectName(policy)}: lets ${JSON.stringify(peer)} reach ${app.name}; only the gateway may`);
        }
      }
    }
  }
  return problems;
}

// ─── Overlay-specific ──────────────────────────────────────────────────────────────────────────

/**
 * Production: migrations only by the Jobs (MIGRATE_ON_START=false as each service sees it), R3
 * JetStream streams (NATS_STREAM_REPLICAS=3), at least two replicas of each service (or an autoscaler from two), images from a registry with a
 * release tag.
 */
export function productionProblems(objects: K8sObject[], apps: AppSpec[]): Problem[] {
  const problems: Problem[] = [];
  const autoscalers = ofKind<K8sObject & { spec?: { minReplicas?: number; scaleTargetRef?: { name?: string } } }>(objects, 'HorizontalPodAutoscaler');
  for (const app of apps) {
    const deployment = named(ofKind<Workload>(objects, 'Deployment'), app.name);
    const container = deployment?.spec.template.spec.containers?.find((c) => c.name === app.name);
    if (!deployment || !container) {
      problems.push(`no Deployment/${app.name}`);
      continue;
    }
    const where = `Deployment/${app.name}`;
    const env = effectiveEnv(container, objects);
    if (env.MIGRATE_ON_START !== 'false') problems.push(`${where}: MIGRATE_ON_START is ${JSON.stringify(env.MIGRATE_ON_START)}, production migrates with the Jobs only ("false")`);
    if (env.NATS_STREAM_REPLICAS !== '3') problems.push(`${where}: NATS_STREAM_REPLICAS is ${JSON.stringify(env.NATS_STREAM_REPLICAS)}, production streams are R3 ("3")`);
    const autoscaler = autoscalers.find((hpa) => hpa.spec?.scaleTargetRef?.name === app.name);
    const replicas = autoscaler ? (autoscaler.spec?.minReplicas ?? 1) : (deployment.spec.replicas ?? 1);
    if (replicas < 2) problems.push(`${where}: ${replicas} replica(s) at least; production runs two or more`);
    const image = container.image ?? '';
    const tag = imageTag(image);
    if (!image.includes('/') || !tag || ['latest', 'local'].includes(tag)) problems.push(`${where}: image ${image} is not from a registry with a release tag`);
  }
  for (const object of objects.filter((o) => o.metadata.labels?.[COMPONENT] === LOCAL_INFRASTRUCTURE)) {
    problems.push(`${objectName(object)}: local infrastructure has no place in production`);
  }
  return problems;
}

/** Local: PostgreSQL and NATS with JetStream run in the cluster, each behind a Service. */
export function localInfrastructureProblems(objects: K8sObject[]): Problem[] {
  const problems: Problem[] = [];
  const statefulSets = ofKind<Workload>(objects, 'StatefulSet');
  const services = ofKind<K8sObject & { spec?: { selector?: Record<string, string> } }>(objects, 'Service');
  for (const name of ['postgres', 'nats']) {
    const statefulSet = named(statefulSets, name);
    if (!statefulSet) {
      problems.push(`no StatefulSet ${name}`);
      continue;
    }
    if (!services.some((service) => matches(service.spec?.selector, statefulSet.spec.template.metadata?.labels))) problems.push(`StatefulSet/${name}: no Service selects it`);
  }
  const nats = named(statefulSets, 'nats')?.spec.template.spec.containers?.[0];
  if (nats && ![...(nats.command ?? []), ...(nats.args ?? [])].some((arg) => arg === '-js' || arg === '--jetstream')) problems.push('StatefulSet/nats: JetStream is not on (-js)');
  return problems;
}
