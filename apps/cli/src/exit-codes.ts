import type { ErrorKind } from '@tierflow/protocol';
import { EXIT } from './io.js';

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/**
 * The exit status of a command stopped by an error of each kind (docs/protocol.md#thrown-errors):
 * 3 for a service it needs that is away (Redis above all), 1 for something named that does not
 * exist (as a command answers an unknown run), 2 for everything else, a usage or configuration
 * error above all.
 */
export const EXIT_OF_KIND = {
  invalid_input: EXIT.unusable,
  not_found: EXIT.invalid,
  conflict: EXIT.unusable,
  unavailable: EXIT.unreachable,
  forbidden: EXIT.unusable,
  internal: EXIT.unusable,
} as const satisfies Readonly<Record<ErrorKind, ExitCode>>;

/** The exit status for an error of `kind`. Pure. */
export function exitCodeOf(kind: ErrorKind): ExitCode {
  return EXIT_OF_KIND[kind];
}
