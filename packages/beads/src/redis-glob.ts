/** `text` with Redis glob characters (`*`, `?`, `[`, `]`, `\`) escaped, to match itself literally in SCAN MATCH. */
export function escapeRedisGlob(text: string): string {
  return text.replace(/[*?[\]\\]/g, '\\$&');
}
