// How a span of time is worded in the terminal (`tierflow runs`, `tierflow workers`) and in the
// dashboard alike. It lives with the dashboard's client because the browser loads the client's
// modules one by one from this folder, unbundled; the CLI imports it as `@tierflow/server/age`.
// No imports, so it runs as it is in either. Pure.

/** `4 s`, `3 min`, `2 h`, `5 d`: a span of time read at a glance. */
export function age(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 120) return `${seconds} s`;
  if (seconds < 7_200) return `${Math.round(seconds / 60)} min`;
  if (seconds < 172_800) return `${Math.round(seconds / 3600)} h`;
  return `${Math.round(seconds / 86_400)} d`;
}
