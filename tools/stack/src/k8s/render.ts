/**
 * Renders a Kustomize directory of deploy/k8s with `kubectl kustomize` and parses the YAML into
 * objects; what the manifests test checks and what `kubectl apply -k` would send.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { AppSpec, K8sObject } from './rules';

export const REPOSITORY_ROOT = join(__dirname, '..', '..', '..', '..');
export const K8S_DIR = join(REPOSITORY_ROOT, 'deploy', 'k8s');

/** `kubectl kustomize <dir>` as objects; throws with kubectl's message when it cannot render. */
export function renderKustomization(dir: string): K8sObject[] {
  const result = spawnSync('kubectl', ['kustomize', dir], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.error) {
    throw new Error(`cannot run kubectl (${result.error.message}); install it: apt-get install -y kubectl (.ci/run does)`);
  }
  if (result.status !== 0) throw new Error(`kubectl kustomize ${dir} failed:\n${result.stderr}`);
  return parseManifests(result.stdout);
}

/** A multi-document YAML stream as objects; a YAML error names the document. */
export function parseManifests(text: string): K8sObject[] {
  return parseAllDocuments(text).flatMap((document, index) => {
    if (document.errors.length > 0) throw new Error(`document ${index + 1}: ${document.errors.map((error) => error.message).join('; ')}`);
    const value = document.toJS() as K8sObject | null;
    return value === null ? [] : [value];
  });
}

/** The six services with the port each listens on by default (read from its config.ts). */
export function appsFromConfigs(names: readonly string[]): AppSpec[] {
  return names.map((name) => {
    const source = readFileSync(join(REPOSITORY_ROOT, 'apps', name, 'src', 'config.ts'), 'utf8');
    const port = /serviceConfigSchema\(\s*\{\s*port:\s*(\d+)/.exec(source)?.[1];
    if (!port) throw new Error(`apps/${name}/src/config.ts: no serviceConfigSchema({ port: ... }) to read the port from`);
    return { name, port: Number(port) };
  });
}

/** The uid of the Dockerfile's final USER (a name from the node image, or a number). */
export function dockerfileUid(dockerfile: string): number {
  const users = [...dockerfile.matchAll(/^USER\s+(\S+)\s*$/gm)].map((match) => match[1]);
  const user = users.at(-1);
  if (user === undefined) throw new Error('the Dockerfile sets no USER (the image would run as root)');
  if (/^\d+$/.test(user)) return Number(user);
  const known: Record<string, number> = { node: 1000 };
  if (!(user in known)) throw new Error(`the Dockerfile's USER ${user} has no known uid; add it here`);
  return known[user];
}
