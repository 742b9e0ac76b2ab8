import { postJson, runPath } from './api.js';
import type { RunNode } from './api-types.js';
import { fill, h } from './dom.js';
import { deadline, tierSlug } from './format.js';
import { report, type PageContext } from './page.js';

type Blocker = NonNullable<RunNode['blockers']>[number];

/**
 * What a run waiting on blocked work waits for (status `blocked`, no outcome yet): each blocker,
 * lifted or not, and one form to unblock them all with a note (`POST /api/runs/:id/unblock`).
 * Null when the run is not blocked.
 */
export function blockersPanel(context: PageContext, root: RunNode): HTMLElement | null {
  const blockers = root.blockers ?? [];
  if (blockers.length === 0 || root.status !== 'blocked') return null;
  return h(
    'section',
    { class: 'panel blockers', id: 'blockers' },
    h('h2', {}, 'Blocked'),
    h('p', {}, `This run waits for its blocked work to be unblocked${root.waiting_until ? ` until ${deadline(root.waiting_until)}` : ''}; it goes on once every blocker is lifted.`),
    ...blockers.map(blockerItem),
    blockers.some((blocker) => blocker.unblocked === null) ? unblockForm(context, root.id) : null,
  );
}

function blockerItem(blocker: Blocker): HTMLElement {
  const state = blocker.unblocked === null ? 'Still blocked.' : `Unblocked${blocker.unblocked ? `: ${blocker.unblocked}` : '.'}`;
  return h(
    'div',
    { class: 'question-item', 'data-blocker-id': blocker.id },
    h('span', { class: 'question' }, blocker.blocker, h('span', { class: 'muted' }, ` reported by ${tierSlug(blocker.tier)}`)),
    h('p', { class: 'answer' }, state),
  );
}

function unblockForm(context: PageContext, rootId: string): HTMLFormElement {
  const note = h('input', { type: 'text', id: 'unblock-note', name: 'note', autocomplete: 'off', placeholder: 'what changed (optional)' });
  const button = h('button', { type: 'submit' }, 'Unblock');
  const message = h('p', { class: 'message', role: 'alert' });
  const done = h('p', { class: 'notice', role: 'status' });
  const form = h('form', { class: 'question-item' }, h('label', { for: 'unblock-note' }, 'Note'), h('div', { class: 'inline' }, note, button), message, done);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    button.disabled = true;
    fill(message);
    postJson<{ open: number; resumed: boolean }>(runPath(rootId, '/unblock'), note.value.trim() ? { note: note.value } : {})
      .then((unblocked) => fill(done, unblocked.resumed ? 'Unblocked: the run goes on.' : `Unblocked: ${unblocked.open} still blocked.`))
      .catch((error: unknown) => {
        button.disabled = false;
        report(context, message, error);
      });
  });
  return form;
}
