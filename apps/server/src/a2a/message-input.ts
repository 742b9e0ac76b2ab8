import type { Message } from '@a2a-js/sdk';
import { ContentTypeNotSupportedError, RequestMalformedError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import { chainIn, chainRefusal, DELEGATION_CHAIN_KEY, isJsonObject, jsonObjectSchema, type DelegationChain } from '@tierflow/protocol';

/** What a client's message says: its text parts, joined, and its one data part. */
export interface MessageInput {
  /** The text parts joined by blank lines, trimmed; null without any. */
  readonly text: string | null;
  /** The data part, a JSON object; null without one. */
  readonly data: Readonly<Record<string, unknown>> | null;
  /** How far the work has come (docs/protocol.md#delegation-across-deployments): its metadata's chain, or none crossed. */
  readonly chain: DelegationChain;
}

/**
 * Reads a client's message: text parts and at most one data part, which must be a JSON object.
 * Files (raw bytes or URLs) are not taken: a run's input is an objective file. Pure.
 *
 * @throws RequestMalformedError without a message or its id, or with a data part that is not an
 *   object, or two, or a delegation chain out of shape; ContentTypeNotSupportedError for a file part.
 */
export function readMessage(message: Message | undefined): MessageInput {
  if (!message) throw new RequestMalformedError('the request has no message');
  if (!message.messageId) throw new RequestMalformedError('the message has no messageId');
  const texts: string[] = [];
  const data: Record<string, unknown>[] = [];
  for (const part of message.parts) {
    const content = part.content;
    switch (content?.$case) {
      case 'text':
        texts.push(content.value);
        break;
      case 'data': {
        const parsed = jsonObjectSchema.safeParse(content.value);
        if (!parsed.success) throw new RequestMalformedError('a data part must be a JSON object: an objective file');
        data.push(parsed.data);
        break;
      }
      case 'raw':
      case 'url':
        throw new ContentTypeNotSupportedError('file parts are not taken: send the objective as text, and an objective file as a data part');
      case undefined:
        throw new RequestMalformedError('a part has no content');
    }
  }
  if (data.length > 1) throw new RequestMalformedError('a message carries at most one data part (an objective file)');
  const chain = chainIn(isJsonObject(message.metadata) ? message.metadata : undefined);
  if (chain === null) throw new RequestMalformedError(`metadata["${DELEGATION_CHAIN_KEY}"] must be { depth: a whole number, visited: deployment ids }`);
  const text = texts.join('\n\n').trim();
  return { text: text === '' ? null : text, data: data[0] ?? null, chain };
}

/**
 * Refuses work this deployment (`self`) handed on before, or that has come over more than
 * `maxDepth` deployments (docs/protocol.md#delegation-across-deployments). The error's metadata
 * names the `error_type` the sender's Fleet ends the subtask with, and so does its message, for
 * a transport that drops metadata. Pure.
 *
 * @throws UnsupportedOperationError saying why.
 */
export function checkChain(input: Pick<MessageInput, 'chain'>, self: string, maxDepth: number): void {
  const refusal = chainRefusal(input.chain, self, maxDepth);
  if (refusal) throw new UnsupportedOperationError({ message: `${refusal.error_type}: ${refusal.reason}`, metadata: { error_type: refusal.error_type } });
}

/**
 * The objective file a message stands for: its data part with the text as `objective` (the text
 * wins over the data part's own), and the message's delegation chain in `task_data` (in place of
 * any the data part says: the metadata is what the guard checked). It is checked where it is
 * enqueued, as the runs API's is. Pure.
 *
 * @throws RequestMalformedError when the message gives no objective at all.
 */
export function objectiveFileOf(input: MessageInput): Record<string, unknown> {
  const objective = input.text ?? input.data?.objective;
  if (objective === undefined) throw new RequestMalformedError('a message needs a text part (the objective), or a data part holding an objective file');
  const file: Record<string, unknown> = { ...input.data, objective };
  const given = file.task_data;
  // Not an object: the objective file's check refuses it, saying so.
  if (given !== undefined && !isJsonObject(given)) return file;
  const { [DELEGATION_CHAIN_KEY]: _replaced, ...taskData } = given ?? {};
  if (input.chain.depth > 0) return { ...file, task_data: { ...taskData, [DELEGATION_CHAIN_KEY]: input.chain } };
  return given === undefined ? file : { ...file, task_data: taskData };
}
