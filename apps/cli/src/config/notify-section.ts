import { ConfigError, WEBHOOK_EVENT_TYPES, type NotifyOptionsInput } from '@tierflow/runtime';
import { z } from 'zod';

/**
 * The project file's `notify`: the webhooks Tierflow tells of runs (docs/extending.md#webhooks).
 * Each entry's secret is named by its variable (`secretEnv`), as API keys are, so it stays out of the file.
 */
export const notifySectionSchema = z.array(
  z.strictObject({
    url: z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }),
    /** The events to send; every one when left out. */
    events: z.array(z.enum(WEBHOOK_EVENT_TYPES)).min(1).optional(),
    /** The variable that holds the secret deliveries are signed with. */
    secretEnv: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { message: 'must be the name of an environment variable' }),
    /** How many attempts a delivery gets before it is given up (8 when left out). */
    maxAttempts: z.int().min(1).max(100).optional(),
    /** How long one attempt waits for an answer, ms (10 s when left out). */
    timeoutMs: z.int().min(100).max(120_000).optional(),
  }),
);
export type NotifySection = z.output<typeof notifySectionSchema>;

/**
 * The runtime's webhook options from the file's section, each secret read from its variable now;
 * undefined for no section, or an empty one.
 *
 * @throws ConfigError naming the field of a variable that is unset.
 */
export function notifyOptionsOf(section: NotifySection | undefined, env: NodeJS.ProcessEnv, where: (field: string) => string): NotifyOptionsInput | undefined {
  if (section === undefined || section.length === 0) return undefined;
  const unset = section.flatMap((entry, i) => (env[entry.secretEnv] ? [] : [`${where(`notify[${i}].secretEnv`)}: ${entry.secretEnv} is not set`]));
  if (unset.length > 0) throw new ConfigError(unset);
  return {
    subscriptions: section.map(({ secretEnv, ...entry }) => ({ ...entry, secret: env[secretEnv]! })),
  };
}
