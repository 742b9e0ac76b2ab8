// The runs list's filters live in the page's own address (`/?status=failed&text=sort`), so a
// filtered list, or an older page of it, is a link one can keep or share. Pure.

/** The filters the runs list offers, by their names in the address and in GET /api/runs. */
export const RUN_FILTERS = ['status', 'text', 'task_type', 'specialist', 'model', 'error_type', 'since', 'until', 'min_cost_usd', 'max_cost_usd'] as const;
export type RunFilterName = (typeof RUN_FILTERS)[number];

/** How many runs a page of the list shows. */
export const RUNS_PAGE = 50;

/**
 * The filters the page's address gives (blank fields left out), and its cursor. A time from the
 * page's form has no zone (`datetime-local`): it is the browser's, made absolute here.
 */
export function filtersOf(search: string): { readonly filters: ReadonlyMap<RunFilterName, string>; readonly cursor: string | null } {
  const params = new URLSearchParams(search);
  const filters = new Map<RunFilterName, string>();
  for (const name of RUN_FILTERS) {
    const value = params.get(name)?.trim() ?? '';
    if (value !== '') filters.set(name, value);
  }
  return { filters, cursor: params.get('cursor') || null };
}

/** A time as the API takes it: an ISO time with its zone; one without is read in the browser's. */
export function absoluteTime(value: string): string {
  if (/(Z|[+-]\d\d:?\d\d)$/i.test(value)) return value;
  const time = new Date(value);
  return Number.isNaN(time.getTime()) ? value : time.toISOString();
}

/** The API path of a page of the list. */
export function runsApiPath(filters: ReadonlyMap<RunFilterName, string>, cursor: string | null): string {
  const params = new URLSearchParams({ limit: String(RUNS_PAGE) });
  for (const [name, value] of filters) params.set(name, name === 'since' || name === 'until' ? absoluteTime(value) : value);
  if (cursor !== null) params.set('cursor', cursor);
  return `/api/runs?${params.toString()}`;
}

/** The page's address for these filters, at `cursor` (the latest runs without one). */
export function runsPagePath(filters: ReadonlyMap<RunFilterName, string>, cursor: string | null): string {
  const params = new URLSearchParams([...filters]);
  if (cursor !== null) params.set('cursor', cursor);
  const query = params.toString();
  return query === '' ? '/' : `/?${query}`;
}
