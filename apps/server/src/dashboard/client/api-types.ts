// The API's answers as the dashboard reads them (the server's OpenAPI description has them all):
// only the fields it shows.

export interface RunSummary {
  readonly root_id: string;
  readonly status: string;
  readonly queue_state: string;
  readonly objective: string;
  readonly submitted_at: string;
  readonly finished_at: string | null;
  readonly duration_ms: number | null;
}

export interface Usage {
  readonly tokens_in: number;
  readonly tokens_out: number;
  readonly cost_usd: number;
  readonly llm_calls: number;
}

export interface Progress {
  readonly percent: number | null;
  readonly note: string | null;
  readonly at: string;
}

export interface Question {
  readonly id: string;
  readonly question: string;
  readonly tier: string;
  readonly answer: string | null;
}

export interface RunNode {
  readonly id: string;
  readonly tier: string;
  readonly task_type: string;
  readonly specialist: string | null;
  /** A word of the status vocabulary (docs/statuses.md), shown as it is with spaces for underscores. */
  readonly status: string;
  readonly source: string;
  /** For debugging: BullMQ's state of the node's job; kept on the row as `data-queue-state`, not shown. */
  readonly queue_state: string | null;
  readonly confidence: number | null;
  readonly usage: Usage | null;
  readonly progress: Progress | null;
  readonly attempts: number;
  readonly started_at: string | null;
  readonly finished_at: string | null;
  readonly children: readonly RunNode[];
  readonly questions?: readonly Question[];
  readonly waiting_until?: string;
}

export interface Artifact {
  readonly artifact_type: string;
  readonly content_ref: string | null;
  readonly inline_content: string | null;
}

export interface Outcome {
  readonly payload: {
    readonly status: string;
    readonly summary: string;
    readonly confidence: number;
    readonly error_type?: string | null;
    readonly error_detail?: string | null;
    readonly artifacts?: readonly Artifact[];
  };
}

export interface Run {
  readonly run: RunNode;
  readonly outcome: Outcome | null;
  readonly trace_url: string | null;
  /** A line for each tier the run waits on that no worker serves ("no monitor worker is running: …"). */
  readonly unserved: readonly string[];
}

/** A `node` event of a run's stream: the fields of a node that appeared or changed. */
export type NodeEvent = Pick<RunNode, 'id' | 'tier' | 'status' | 'queue_state' | 'specialist' | 'attempts' | 'progress' | 'usage' | 'questions'>;

export interface AuditEntry {
  readonly time: string;
  readonly from: string;
  readonly to: string;
  readonly kind: string;
  readonly direction: string;
  readonly id: string;
  readonly status: string;
  readonly confidence: number | null;
  readonly attempt: number | null;
  readonly detail: string;
}
