/**
 * A signal that aborts when either of two does, with that one's reason; `release` removes the
 * listeners once the work is done. Per job this is cheaper than `AbortSignal.any`, which tracks
 * its sources through weak references.
 */
export function eitherSignal(first: AbortSignal, second: AbortSignal | undefined): { readonly signal: AbortSignal; release(): void } {
  if (!second) return { signal: first, release: () => undefined };
  const controller = new AbortController();
  const onFirst = (): void => controller.abort(first.reason);
  const onSecond = (): void => controller.abort(second.reason);
  if (first.aborted) onFirst();
  else if (second.aborted) onSecond();
  else {
    first.addEventListener('abort', onFirst, { once: true });
    second.addEventListener('abort', onSecond, { once: true });
  }
  return {
    signal: controller.signal,
    release: () => {
      first.removeEventListener('abort', onFirst);
      second.removeEventListener('abort', onSecond);
    },
  };
}
