// The worked example: three model-written candidates race, and the first one whose code passes
// the tests wins. Run it against any OpenAI-compatible endpoint (docs/extending.md#the-worked-example):
//
//   OPENAI_BASE_URL=http://127.0.0.1:8000/v1 npx tierflow up --config examples/binary-search/tierflow.config.ts
//   npx tierflow enqueue examples/binary-search/objective.json --wait
import type { ProjectConfigInput } from '@tierflow/cli';

const WRITE_PYTHON =
  'You write one Python function and nothing else. Answer with one JSON object: "summary" (one sentence), ' +
  '"confidence" (0 to 1) and "output" (the complete source of the function, no Markdown fence, no example calls).';

export default {
  specialists: [
    // Three writers: two prompts on one adapter, and a second adapter. Change the models to what your server serves.
    { kind: 'llm', name: 'python-writer', model: 'python-lora', systemPrompt: WRITE_PYTHON },
    { kind: 'llm', name: 'careful-writer', model: 'python-lora', systemPrompt: `${WRITE_PYTHON} Think about empty input and duplicates first.` },
    { kind: 'llm', name: 'general-writer', model: 'general-lora', systemPrompt: WRITE_PYTHON },
    // Runs a candidate against the subtask's tests: 2 CPU seconds and 128 MiB a run, no network.
    { kind: 'code-runner', cpuSeconds: 2, memoryMb: 128 },
    // What the plan races: each writer's code counts only once the code runner has passed it.
    { kind: 'checked', name: 'writer-a', writer: 'python-writer', checker: 'code-runner' },
    { kind: 'checked', name: 'writer-b', writer: 'careful-writer', checker: 'code-runner' },
    { kind: 'checked', name: 'writer-c', writer: 'general-writer', checker: 'code-runner' },
  ],
  models: {
    // Per million tokens; the cost of every call lands in each outcome's resources_used.usage.
    prices: { 'python-lora': { input_usd_per_mtok: 0.1, output_usd_per_mtok: 0.4 }, 'general-lora': { input_usd_per_mtok: 0.5, output_usd_per_mtok: 1.5 } },
  },
  // A run that asks nothing of its own stops after 20 model calls.
  budget: { max_llm_calls: 20 },
} satisfies ProjectConfigInput;
