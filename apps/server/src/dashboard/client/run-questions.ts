import { postJson, runPath } from './api.js';
import type { Question, RunNode } from './api-types.js';
import { fill, h } from './dom.js';
import { deadline, tierSlug } from './format.js';
import { report, type PageContext } from './page.js';

/**
 * The questions a run put to a person, each with its answer or, while the run waits
 * (`input_required`), a form to answer it alone (`POST /api/runs/:id/answer` with `to`). Null
 * when the run asked nothing. `forms` keeps each open question's form from one drawing to the next.
 */
export function questionsPanel(context: PageContext, root: RunNode, forms: Map<string, HTMLFormElement>): HTMLElement | null {
  const questions = root.questions ?? [];
  if (questions.length === 0) return null;
  const waiting = root.status === 'input_required';
  return h(
    'section',
    { class: 'panel questions', id: 'questions' },
    h('h2', {}, waiting ? 'Waiting for a person' : 'Questions'),
    waiting ? h('p', {}, `This run waits for answers${root.waiting_until ? ` until ${deadline(root.waiting_until)}` : ''}; it goes on once every question is answered.`) : null,
    ...questions.map((question) => {
      if (question.answer !== null || !waiting) return answeredItem(question);
      const form = forms.get(question.id) ?? answerForm(context, root.id, question);
      forms.set(question.id, form);
      return form;
    }),
  );
}

const asked = (question: Question): HTMLElement => h('span', { class: 'question' }, question.question, h('span', { class: 'muted' }, ` asked by ${tierSlug(question.tier)}`));

function answeredItem(question: Question): HTMLElement {
  const answer = question.answer === null ? 'Not answered.' : `Answered: ${question.answer}`;
  return h('div', { class: 'question-item', 'data-question-id': question.id }, asked(question), h('p', { class: 'answer' }, answer));
}

function answerForm(context: PageContext, rootId: string, question: Question): HTMLFormElement {
  const inputId = `answer-${question.id}`;
  const text = h('input', { type: 'text', id: inputId, name: 'text', required: true, autocomplete: 'off' });
  const button = h('button', { type: 'submit' }, 'Answer');
  const message = h('p', { class: 'message', role: 'alert' });
  const note = h('p', { class: 'notice', role: 'status' });
  const form = h('form', { class: 'question-item', 'data-question-id': question.id }, h('label', { for: inputId }, asked(question)), h('div', { class: 'inline' }, text, button), message, note);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    button.disabled = true;
    text.readOnly = true;
    fill(message);
    postJson<{ open: number; resumed: boolean }>(runPath(rootId, '/answer'), { text: text.value, to: question.id })
      .then((answered) => fill(note, answered.resumed ? 'Answered: the run goes on.' : `Answered: ${answered.open} more to go.`))
      .catch((error: unknown) => {
        button.disabled = false;
        text.readOnly = false;
        report(context, message, error);
      });
  });
  return form;
}
