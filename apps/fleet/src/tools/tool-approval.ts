import { canonicalJson } from '@tierflow/protocol';

/** What a person decided about a tool call: run it, run it with other arguments, or not. */
export type ToolApproval =
  { readonly kind: 'approve'; readonly args: Readonly<Record<string, unknown>> } | { readonly kind: 'deny'; readonly reason: string | null } | { readonly kind: 'pending'; readonly question: string };

const PREFIX = 'Approve the tool call ';

/**
 * The question a call waits on: its tool and arguments, written the same way each time, so that
 * the run's second pass (which carries the answers in `task_data.clarifications`, matched by the
 * question's text) finds the answer to the same call. Pure.
 */
export function approvalQuestion(tool: string, args: Readonly<Record<string, unknown>>): string {
  return `${PREFIX}${tool} with arguments ${canonicalJson(args)}? Answer "approve", "deny" (or "deny: <why>"), or a JSON object of the arguments to use instead.`;
}

/** Whether a clarification is an approval of a tool call (and so not part of the task the model is shown). Pure. */
export function isApprovalQuestion(question: string): boolean {
  return question.startsWith(PREFIX);
}

/**
 * What the answers so far decide about a call: approved (perhaps with edited arguments), denied,
 * or still to ask. An answer that is none of "approve", "deny" or a JSON object denies the call,
 * the person's words handed to the model as the reason. Pure.
 */
export function approvalOf(tool: string, args: Readonly<Record<string, unknown>>, clarifications: unknown): ToolApproval {
  const question = approvalQuestion(tool, args);
  const answer = answerTo(question, clarifications);
  if (answer === null) return { kind: 'pending', question };
  const text = answer.trim();
  if (/^(approve|approved|yes|y|ok)\.?$/i.test(text)) return { kind: 'approve', args };
  const denied = /^(deny|denied|no|n)\.?(?:\s*:\s*(.*))?$/is.exec(text);
  if (denied) return { kind: 'deny', reason: denied[2]?.trim() || null };
  if (text.startsWith('{')) {
    try {
      const edited: unknown = JSON.parse(text);
      if (typeof edited === 'object' && edited !== null && !Array.isArray(edited)) return { kind: 'approve', args: edited as Record<string, unknown> };
    } catch {
      // Not JSON after all: taken as the person's words.
    }
  }
  return { kind: 'deny', reason: text };
}

/** The answer `task_data.clarifications` holds for `question`, the last one given; null when none. */
function answerTo(question: string, clarifications: unknown): string | null {
  if (!Array.isArray(clarifications)) return null;
  let found: string | null = null;
  for (const item of clarifications) {
    if (typeof item !== 'object' || item === null) continue;
    const { question: asked, answer } = item as { question?: unknown; answer?: unknown };
    if (asked === question && typeof answer === 'string') found = answer;
  }
  return found;
}
