import { isTierflowError } from '@tierflow/protocol';
import { runtimeOptionsFromEnv, TierflowClient } from '@tierflow/runtime';
import { EXIT, type CliIo } from '../io.js';

/**
 * `tierflow answer <root-id> <text> [--to <question-id>]`: answers a run that waits for a person
 * (status `input_required`): one question, or every open one with the same text. The run goes on
 * once none is left open. A run that asks nothing, an unknown question or a blank answer: exit 2.
 */
export async function answerCommand(rootId: string, text: string, options: { to?: string }, io: CliIo): Promise<number> {
  const client = await TierflowClient.connect(runtimeOptionsFromEnv());
  try {
    const report = await client.answer(rootId, text, options.to === undefined ? {} : { to: options.to });
    const answered = `answered ${report.answered.length} question${report.answered.length === 1 ? '' : 's'} (${report.answered.join(', ')})`;
    io.stdout(report.resumed ? `${answered}; run ${rootId} goes on\n` : `${answered}; ${report.open} still open: the run goes on once they are answered\n`);
    return EXIT.ok;
  } catch (error) {
    if (!isTierflowError(error)) throw error;
    io.stderr(`${error.message} [${error.code}]\n`);
    return EXIT.unusable;
  } finally {
    await client.close();
  }
}
