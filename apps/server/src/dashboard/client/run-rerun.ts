import { postJson, runPath } from './api.js';
import type { Rerun, RerunRequest } from './api-types.js';
import { h } from './dom.js';
import { report, type PageContext } from './page.js';

/** A run's page, by its root id. */
export function runPagePath(rootId: string): string {
  return `/runs/${encodeURIComponent(rootId)}`;
}

/**
 * The Rerun button of a run's panel (`from` null), or of a node's (a fork from it), with the
 * replay it asks for (docs/operations.md#rerun-fork-and-replay). Once the API has enqueued the
 * rerun, the page goes to it; a refusal is shown in `banner`.
 */
export function rerunControls(context: PageContext, banner: HTMLElement, rootId: string, from: string | null = null): HTMLElement {
  const replay = h(
    'select',
    { class: 'rerun-replay', title: 'Answer model calls from the recording: loose sends what matches nothing to the model; strict fails it (replay_miss)' },
    h('option', { value: 'off' }, 'no replay'),
    h('option', { value: 'loose' }, 'replay'),
    h('option', { value: 'strict' }, 'strict replay'),
  );
  const button = h(
    'button',
    {
      type: 'button',
      class: 'rerun',
      title: from === null ? 'Run the same objective again, as a new run linked to this one' : 'Run this node and its subtree again, reusing the recorded outcomes of the others',
    },
    from === null ? 'Rerun' : 'Rerun from here',
  );
  button.addEventListener('click', () => {
    button.disabled = true;
    const body: RerunRequest = { replay: replay.value as NonNullable<RerunRequest['replay']>, ...(from === null ? {} : { from }) };
    postJson<Rerun>(runPath(rootId, '/rerun'), body)
      .then((rerun) => location.assign(runPagePath(rerun.root_id)))
      .catch((error: unknown) => {
        button.disabled = false;
        report(context, banner, error);
      });
  });
  return h('span', { class: 'rerun-controls' }, button, replay);
}

/** The links between a run and its reruns: "Rerun of …", "Reruns: …"; null when it has none. */
export function rerunLinks(rerunOf: string | null, reruns: readonly string[]): HTMLElement | null {
  if (rerunOf === null && reruns.length === 0) return null;
  const link = (id: string): HTMLElement => h('a', { href: runPagePath(id), title: id }, h('code', {}, id));
  return h(
    'p',
    { class: 'rerun-links', id: 'rerun-links' },
    ...(rerunOf === null ? [] : ['Rerun of ', link(rerunOf)]),
    ...(rerunOf !== null && reruns.length > 0 ? ['; '] : []),
    ...(reruns.length === 0 ? [] : [reruns.length === 1 ? 'rerun as ' : 'reruns: ', ...reruns.flatMap((id, index) => (index === 0 ? [link(id)] : [', ', link(id)]))]),
  );
}
