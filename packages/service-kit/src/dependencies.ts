/**
 * The start of a service against its dependencies (PostgreSQL at DATABASE_URL, NATS at NATS_URL):
 * a dependency that refuses, is unreachable or does not answer within the step's deadline stops
 * the start with one line naming the variable, so the process exits non-zero (runMain) and its
 * supervisor (compose `restart`, Kubernetes) starts it again until the dependency answers.
 * Nothing of the URL is printed (it may hold a password).
 */

/** How long one start step may wait for its dependency; two steps stay well under a minute. */
export const DEPENDENCY_DEADLINE_MS = 25_000;

/** A dependency of the start failed: the message names the variable; runMain prints it as one line. */
export class DependencyError extends Error {
  override readonly name = 'DependencyError';
  constructor(
    readonly variable: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Runs `step` (which uses the dependency configured by `variable`) within `deadlineMs`. */
export async function withDependency<T>(variable: string, doing: string, step: () => Promise<T>, deadlineMs = DEPENDENCY_DEADLINE_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${Math.round(deadlineMs / 1000)} s`)), deadlineMs);
    timer.unref();
  });
  try {
    return await Promise.race([step(), deadline]);
  } catch (err) {
    const reason = (err instanceof Error ? err.message : String(err)).split('\n')[0];
    throw new DependencyError(variable, `${variable}: ${doing} failed: ${reason} (check ${variable} and that it is reachable)`, { cause: err });
  } finally {
    clearTimeout(timer);
  }
}
