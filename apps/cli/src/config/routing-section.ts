import type { RoutingMode } from '@tierflow/core';
import { explorationSchema, routingModeOptionSchema, routingObjectiveOptionSchema, type DispatcherOptionsInput, type RoutingObjectiveOption } from '@tierflow/dispatcher';
import { z } from 'zod';

/** The keys of the routing section that are settings, not task types (docs/operations.md#routing-modes). */
export const ROUTING_SETTINGS = ['mode', 'objective', 'exploration'] as const;

/**
 * The project file's `routing`: task type → `[specialist, ...alternates]` (`'*'` for the rest),
 * and the settings of learned routing under the reserved keys `mode`, `objective` and `exploration`.
 */
export type RoutingSection = {
  readonly mode?: RoutingMode;
  readonly objective?: RoutingObjectiveOption;
  readonly exploration?: number;
  readonly [taskType: string]: readonly string[] | RoutingMode | RoutingObjectiveOption | number | undefined;
};

const routeListSchema = z.array(z.string().min(1)).min(1, { message: 'a route needs at least one specialist' });

const SETTING_SCHEMAS: Readonly<Record<(typeof ROUTING_SETTINGS)[number], z.ZodType>> = {
  mode: routingModeOptionSchema,
  objective: routingObjectiveOptionSchema,
  exploration: explorationSchema,
};

/** Each entry checked by what its key is: a setting by its own schema, a task type as a route list; every problem at its path. */
export const routingSectionSchema = z
  .custom<RoutingSection>((value) => typeof value === 'object' && value !== null && !Array.isArray(value), {
    message: 'must be an object: task type → [specialist, ...alternates], and mode, objective, exploration',
  })
  .superRefine((section, context) => {
    for (const [key, value] of Object.entries(section)) {
      if (key === '') context.addIssue({ code: 'custom', path: [key], message: 'a task type needs a name' });
      const schema = isSetting(key) ? SETTING_SCHEMAS[key] : routeListSchema;
      const parsed = schema.safeParse(value);
      if (!parsed.success) for (const issue of parsed.error.issues) context.addIssue({ code: 'custom', path: [key, ...issue.path], message: issue.message });
    }
  });

function isSetting(key: string): key is (typeof ROUTING_SETTINGS)[number] {
  return (ROUTING_SETTINGS as readonly string[]).includes(key);
}

/** The Dispatcher's options a routing section gives: its routes, and the settings it sets. Pure. */
export function routingOptionsOf(section: RoutingSection): Pick<DispatcherOptionsInput, 'routing' | 'routingMode' | 'routingObjective' | 'exploration'> {
  const routes = Object.fromEntries(Object.entries(section).filter((entry): entry is [string, string[]] => !isSetting(entry[0]) && Array.isArray(entry[1])));
  return {
    ...(Object.keys(routes).length > 0 ? { routing: routes } : {}),
    ...(section.mode === undefined ? {} : { routingMode: section.mode }),
    ...(section.objective === undefined ? {} : { routingObjective: section.objective }),
    ...(section.exploration === undefined ? {} : { exploration: section.exploration }),
  };
}
