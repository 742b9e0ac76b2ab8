/**
 * Resolves after `ms`, or rejects the moment `signal` aborts (at once if it already has), with
 * the signal's reason when that is an Error, else an `AbortError`. Never resolves after an abort.
 */
export function abortableDelay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal.aborted) {
      reject(abortError(signal));
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(abortError(signal));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** The error an aborted signal stands for: its reason if that is an Error (`abort()` gives a DOMException AbortError). */
export function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason;
  const error = new Error(typeof reason === 'string' ? `aborted: ${reason}` : 'aborted', { cause: reason });
  error.name = 'AbortError';
  return error;
}
