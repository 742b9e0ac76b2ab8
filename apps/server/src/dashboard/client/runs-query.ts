// The runs list's filters live in the page's own address (`/?status=failed&text=sort`), so a
// filtered list, or an older page of it, is a link one can keep or share. Pure.

/** The filters the runs list offers, by their names in the address and in GET /api/runs. */
export const RUN_FILTERS = ['status', 'text', 'task_type', 'specialist', 'model', 'error_type', 'since', 'until', 'min_cost_usd', 'max_cost_usd'] as const;
export type RunFilterName = (typeof RUN_FILTERS)[number];

/** How many runs a page of the list shows, unless its address says (`limit`, 1 to 1,000). */
export const RUNS_PAGE = 50;

/** What the page's address asks for. */
export interface RunsAddress {
  readonly filters: ReadonlyMap<RunFilterName, string>;
  readonly cursor: string | null;
  readonly limit: number;
}

/**
 * The filters the page's address gives (blank fields left out), and its cursor. A time from the
 * page's form has no zone (`datetime-local`): it is the browser's, made absolute here.
 */
export function filtersOf(search: string): RunsAddress {
  const params = new URLSearchParams(search);
  const filters = new Map<RunFilterName, string>();
  for (const name of RUN_FILTERS) {
    const value = params.get(name)?.trim() ?? '';
    if (value !== '') filters.set(name, value);
  }
  const limit = Number(params.get('limit'));
  return { filters, cursor: params.get('cursor') || null, limit: Number.isInteger(limit) && limit >= 1 && limit <= 1_000 ? limit : RUNS_PAGE };
}

/** A time as the API takes it: an ISO time with its zone; one without is read in the browser's. */
export function absoluteTime(value: string): string {
  if (/(Z|[+-]\d\d:?\d\d)$/i.test(value)) return value;
  const time = new Date(value);
  return Number.isNaN(time.getTime()) ? value : time.toISOString();
}

/** The API path of a page of the list. */
export function runsApiPath({ filters, cursor, limit }: RunsAddress): string {
  const params = new URLSearchParams({ limit: String(limit) });
  for (const [name, value] of filters) params.set(name, name === 'since' || name === 'until' ? absoluteTime(value) : value);
  if (cursor !== null) params.set('cursor', cursor);
  return `/api/runs?${params.toString()}`;
}

/** The page's address for these filters, at `cursor` (the latest runs without one). */
export function runsPagePath({ filters, limit }: Omit<RunsAddress, 'cursor'>, cursor: string | null): string {
  const params = new URLSearchParams([...filters]);
  if (limit !== RUNS_PAGE) params.set('limit', String(limit));
  if (cursor !== null) params.set('cursor', cursor);
  const query = params.toString();
  return query === '' ? '/' : `/?${query}`;
}
