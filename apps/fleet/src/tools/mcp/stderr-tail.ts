/**
 * The last few lines a child wrote to stderr. An MCP server's stderr is mostly banners and debug
 * chatter, which would drown the Fleet's own output if passed through; what helps is the last
 * lines before it failed to start or died, so those are kept to go with the error or warning.
 */
export class StderrTail {
  private readonly lines: string[] = [];
  private partial = '';

  constructor(
    private readonly maxLines = 10,
    private readonly maxLineLength = 300,
  ) {}

  write(chunk: unknown): void {
    const text = this.partial + (typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : String(chunk));
    const lines = text.split('\n');
    this.partial = (lines.pop() ?? '').slice(-this.maxLineLength);
    for (const line of lines) this.push(line);
  }

  /** The kept lines, the unfinished last one included; empty when the child wrote nothing. */
  text(): string {
    const lines = this.partial.trim() === '' ? this.lines : [...this.lines, this.partial.trim()];
    return lines.join('\n');
  }

  private push(line: string): void {
    const trimmed = line.trim();
    if (trimmed === '') return;
    this.lines.push(trimmed.length > this.maxLineLength ? `${trimmed.slice(0, this.maxLineLength)}…` : trimmed);
    if (this.lines.length > this.maxLines) this.lines.shift();
  }
}
