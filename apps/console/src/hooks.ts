import { useCallback, useEffect, useState } from 'react';
import { ApiError } from './api/client';

export interface Loaded<T> {
  data?: T;
  error?: string;
  loading: boolean;
  reload: () => void;
}

/** Loads with `load` on mount and whenever `deps` change; `reload()` loads again. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: string; loading: boolean }>({ loading: true });
  const [round, setRound] = useState(0);
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true, error: undefined }));
    load().then(
      (data) => live && setState({ data, loading: false }),
      (err: unknown) => live && setState({ error: messageOf(err), loading: false }),
    );
    return () => {
      live = false;
    };
  }, [...deps, round]);
  const reload = useCallback(() => setRound((r) => r + 1), []);
  return { ...state, reload };
}

/** What the screen says about a failure: the problem's detail where there is one. */
export function messageOf(err: unknown): string {
  if (err instanceof ApiError) return `${err.message}${err.problem?.code ? ` (${err.problem.code})` : ''}`;
  return err instanceof Error ? err.message : String(err);
}

/** Runs an action, tracking busy and error; `onDone` after success. */
export function useAction(): { busy: boolean; error: string | undefined; run: (action: () => Promise<unknown>, onDone?: () => void) => Promise<void> } {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const run = useCallback(async (action: () => Promise<unknown>, onDone?: () => void) => {
    setBusy(true);
    setError(undefined);
    try {
      await action();
      onDone?.();
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, run };
}
