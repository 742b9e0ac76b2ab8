import type { components } from './api.generated.js';

// The API's answers as the dashboard reads them: names for the types generated from the server's
// OpenAPI description (api.generated.ts), so they change with the server's schemas.

type Schemas = components['schemas'];

export type RunSummary = Schemas['RunSummary'];
export type RunPage = Schemas['RunPage'];
export type RunNode = Schemas['RunNode'];
export type Question = Schemas['Question'];
export type Usage = NonNullable<RunNode['usage']>;
export type Progress = NonNullable<RunNode['progress']>;
export type Run = Schemas['Run'];
export type Outcome = NonNullable<Run['outcome']>;
export type AuditEntry = Schemas['AuditEntry'];
export type Rerun = Schemas['Rerun'];
export type RerunRequest = Schemas['RerunRequest'];

/** A `node` event of a run's stream (not in the description, which has the stream as text): the fields of a node that appeared or changed. */
export type NodeEvent = Pick<RunNode, 'id' | 'tier' | 'status' | 'queue_state' | 'specialist' | 'attempts' | 'progress' | 'usage' | 'questions'>;
export type NodeView = Schemas['NodeView'];
export type NodeCall = NodeView['calls'][number];
export type NodeToolCall = NodeView['tools'][number];
export type Artifact = NonNullable<NodeView['outcome']>['artifacts'][number];
export type RunTimeline = Schemas['RunTimeline'];
export type AuditTrail = Schemas['AuditTrail'];
export type Metrics = Schemas['Metrics'];
export type HistoryReport = Schemas['HistoryReport'];
export type WebhookDeliveries = Schemas['WebhookDeliveries'];
