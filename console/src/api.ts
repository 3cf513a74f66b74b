// Loading what a page shows, and saying why when the service refused: every failure is the API's problem+json
// (title, detail, the fields at fault, the correlation id), never a blank page.
import { useCallback, useEffect, useState } from 'preact/hooks';
import { EcfProblem } from '../../sdk/src/index.js';

const followEveryMs = 1_500;

export type Loaded<T> = { state: 'loading' } | { state: 'ok'; data: T } | { state: 'failed'; problem: EcfProblem };

/** Any failure as an EcfProblem: the service's, or the network's (status 0) when no answer came. */
export function asProblem(error: unknown): EcfProblem {
  if (error instanceof EcfProblem) return error;
  const detail = error instanceof Error ? error.message : String(error);
  return new EcfProblem(0, { status: 0, code: 'unexpected_response', title: 'Sin respuesta del servicio', detail }, '');
}

/** Runs `load` now and whenever `deps` change; `reload` runs it again. A stale answer never overwrites a newer one. */
export function useLoad<T>(load: () => Promise<T>, deps: readonly unknown[]): Loaded<T> & { reload: () => void } {
  const [loaded, setLoaded] = useState<Loaded<T>>({ state: 'loading' });
  const [round, setRound] = useState(0);
  useEffect(() => {
    let current = true;
    setLoaded((before) => (before.state === 'ok' ? before : { state: 'loading' }));
    load().then(
      (data) => {
        if (current) setLoaded({ state: 'ok', data });
      },
      (error: unknown) => {
        if (current) setLoaded({ state: 'failed', problem: asProblem(error) });
      },
    );
    return () => {
      current = false;
    };
    // The caller names what `load` depends on.
  }, [...deps, round]);
  const reload = useCallback(() => {
    setRound((n) => n + 1);
  }, []);
  return { ...loaded, reload };
}

/** While `moving` (something on its way: a send, a delivery, an annulment), runs `reload` every 1.5 s. */
export function useFollow(moving: boolean, reload: () => void): void {
  useEffect(() => {
    if (!moving) return;
    const timer = setInterval(reload, followEveryMs);
    return () => {
      clearInterval(timer);
    };
  }, [moving, reload]);
}

export interface Action {
  /** The name of the action under way, if one is. */
  busy: string | undefined;
  /** What the last action's answer said, once it succeeded. */
  said: string | undefined;
  problem: EcfProblem | undefined;
  /** Runs `call` as `name` (one at a time); what it resolves to, if anything, is said. */
  run: (name: string, call: () => Promise<string | undefined>) => Promise<void>;
}

/** An action a person starts from a page (send a test, retry, rotate…): busy while it runs, then its outcome. */
export function useAction(): Action {
  const [busy, setBusy] = useState<string | undefined>(undefined);
  const [said, setSaid] = useState<string | undefined>(undefined);
  const [problem, setProblem] = useState<EcfProblem | undefined>(undefined);
  const run = useCallback(async (name: string, call: () => Promise<string | undefined>) => {
    setBusy(name);
    setSaid(undefined);
    setProblem(undefined);
    try {
      setSaid(await call());
    } catch (error) {
      setProblem(asProblem(error));
    } finally {
      setBusy(undefined);
    }
  }, []);
  return { busy, said, problem, run };
}

/** An artefact or PDF the API answers as bytes, fetched with the key in its header (never in a URL). */
export async function fetchBlob(call: Promise<{ data?: Blob; error?: unknown; response: Response }>): Promise<Blob> {
  const { data, error, response } = await call;
  if (!response.ok || data === undefined) throw EcfProblem.from(error, response);
  return data;
}

/** Offers `blob` as a download named `name`, through a link that lives for the click. */
export function download(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => {
    URL.revokeObjectURL(url);
  }, 60_000);
}

export type LoadedBlob =
  { state: 'loading' } | { state: 'ok'; blob: Blob; url: string } | { state: 'failed'; problem: EcfProblem };

/**
 * Bytes fetched with the key (a PDF, say) and a blob: URL of them to show in the page: the key never rides in a URL,
 * and the CSP allows frames from blob: only. The URL is revoked when `deps` change or the page leaves.
 */
export function useBlobUrl(load: () => Promise<Blob>, deps: readonly unknown[]): LoadedBlob {
  const [loaded, setLoaded] = useState<LoadedBlob>({ state: 'loading' });
  useEffect(() => {
    let url: string | undefined;
    let current = true;
    setLoaded({ state: 'loading' });
    load().then(
      (blob) => {
        if (!current) return;
        url = URL.createObjectURL(blob);
        setLoaded({ state: 'ok', blob, url });
      },
      (error: unknown) => {
        if (current) setLoaded({ state: 'failed', problem: asProblem(error) });
      },
    );
    return () => {
      current = false;
      if (url !== undefined) URL.revokeObjectURL(url);
    };
    // The caller names what `load` depends on.
  }, deps);
  return loaded;
}
