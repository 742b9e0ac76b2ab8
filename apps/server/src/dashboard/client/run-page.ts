import { ApiError, getJson, postJson, runPath } from './api.js';
import type { AuditTrail, NodeEvent, NodeView, Outcome, Run, RunNode, RunTimeline } from './api-types.js';
import { auditControls, auditQuery, type AuditView } from './audit-pager.js';
import { fill, h, statusBadge } from './dom.js';
import { nodePanel } from './node-panel.js';
import { auditTable } from './run-audit.js';
import { timelineView } from './run-timeline.js';
import { questionsPanel } from './run-questions.js';
import { blockersPanel } from './run-blockers.js';
import { rerunControls, rerunLinks } from './run-rerun.js';
import { patchNode, treeTable } from './run-tree.js';
import { errorBanner, REFRESH_MS, report, type PageContext, type StopPage } from './page.js';

/**
 * `/runs/:id`: a run as it goes. Its event stream drives the page: each `node` event updates its
 * row at once and has the full tree read again (for new nodes, times and confidence); `outcome`
 * ends it. The audit trail (a page of it), the timeline and an open node are read every two
 * seconds while the run lasts, and once at its end. A row of the tree or the timeline opens its node.
 */
export function showRun(context: PageContext, rootId: string): StopPage {
  const banner = errorBanner();
  const notice = h('p', { class: 'notice', role: 'status' });
  // A run no worker serves says so: its queue would look like a slow run.
  const unserved = h('p', { class: 'notice', id: 'unserved', role: 'status' });
  const status = h('span', { id: 'run-status' });
  const cancel = h('button', { type: 'button', id: 'cancel', class: 'danger', hidden: true }, 'Cancel run');
  const links = h('span', { class: 'links' }, h('a', { href: runPath(rootId) }, 'JSON'));
  const rerun = rerunControls(context, banner, rootId);
  const rerunLinksSlot = h('div');
  const outcomeSlot = h('div', { id: 'outcome' });
  const questionsSlot = h('div');
  const treeSlot = h('div', { id: 'tree', class: 'scroll' });
  const auditSlot = h('div', { id: 'audit', class: 'scroll' });
  const auditControlsSlot = h('div');
  const nodeSlot = h('div', { id: 'node' });
  const timelineSlot = h('div', { id: 'timeline', class: 'scroll' });
  fill(
    context.main,
    h(
      'section',
      { class: 'panel' },
      h('div', { class: 'heading' }, h('h1', {}, 'Run ', h('code', {}, rootId)), status),
      h('div', { class: 'actions' }, cancel, rerun, links),
      rerunLinksSlot,
      notice,
      unserved,
      banner,
      outcomeSlot,
    ),
    questionsSlot,
    h('section', { class: 'panel' }, h('h2', {}, 'Delegation tree'), h('p', { class: 'muted' }, 'Click a node to open it.'), treeSlot),
    nodeSlot,
    h('section', { class: 'panel' }, h('h2', {}, 'Timeline'), timelineSlot),
    h('section', { class: 'panel' }, h('h2', {}, 'Audit trail'), auditControlsSlot, auditSlot),
  );

  let stopped = false;
  let done = false;
  let tree: RunNode | null = null;
  let questionsKey = '';
  const answerForms = new Map<string, HTMLFormElement>();
  let source: EventSource | null = null;
  let auditTimer: ReturnType<typeof setTimeout> | undefined;
  let auditView: AuditView = { cursor: null, kind: '' };
  /** The open node, and what its panel shows: redrawn only when that changes, so what was unfolded stays so. */
  let openNode: string | null = null;
  let nodeKey = '';

  const draw = (): void => {
    if (!tree) return;
    fill(status, statusBadge(tree.status));
    fill(treeSlot, treeTable(tree, Date.now()));
    if (openNode !== null) treeSlot.querySelector(`tr[data-node-id="${CSS.escape(openNode)}"]`)?.setAttribute('aria-selected', 'true');
    // Redrawn only when they change, and an open question keeps its form, so an answer being typed stays.
    const key = `${tree.status} ${JSON.stringify(tree.questions ?? [])} ${JSON.stringify(tree.blockers ?? [])}`;
    if (key !== questionsKey) {
      questionsKey = key;
      fill(questionsSlot, questionsPanel(context, tree, answerForms), blockersPanel(context, tree));
    }
  };

  // Elapsed times go on between events.
  const ticker = setInterval(draw, 1_000);

  const stop = (): void => {
    stopped = true;
    source?.close();
    clearInterval(ticker);
    clearTimeout(auditTimer);
  };

  const finish = (): void => {
    done = true;
    source?.close();
    clearInterval(ticker);
    cancel.hidden = true;
    // The outcome tells how the cancellation ended.
    if (notice.dataset.cancelling) fill(notice);
  };

  const show = (run: Run): void => {
    tree = run.run;
    cancel.hidden = done || run.outcome !== null;
    const trace = traceLink(run.trace_url);
    fill(links, trace, h('a', { href: runPath(rootId) }, 'JSON'));
    fill(rerunLinksSlot, rerunLinks(run.rerun_of, run.reruns));
    fill(unserved, ...run.unserved.flatMap((note, index) => (index === 0 ? [note] : [h('br', {}), note])));
    unserved.hidden = run.unserved.length === 0;
    if (run.outcome) fill(outcomeSlot, outcomePanel(run.outcome));
    // The root answered: nothing more will change. A tree read after the outcome went on record can
    // come with an outcome read just before it: the stream's `outcome` event then finishes the page.
    if (run.run.source === 'outcome' && run.outcome) finish();
    draw();
  };

  // One read at a time; events that come meanwhile ask for one more after it.
  let reading = false;
  let again = false;
  const readTree = async (): Promise<void> => {
    if (reading) {
      again = true;
      return;
    }
    reading = true;
    try {
      do {
        again = false;
        const run = await getJson<Run>(runPath(rootId));
        if (stopped) return;
        show(run);
      } while (again);
      banner.hidden = true;
    } catch (error) {
      if (stopped) return;
      if (error instanceof ApiError && error.status === 404) {
        stop();
        fill(context.main, h('section', { class: 'panel' }, h('h1', {}, 'No such run'), h('p', {}, `No run ${rootId}: unknown, or past retention.`)));
        return;
      }
      report(context, banner, error);
    } finally {
      reading = false;
    }
  };

  const readNode = async (): Promise<void> => {
    const id = openNode;
    if (id === null) return;
    try {
      const view = await getJson<NodeView>(runPath(rootId, `/nodes/${encodeURIComponent(id)}`));
      const key = JSON.stringify(view);
      if (stopped || openNode !== id || key === nodeKey) return;
      nodeKey = key;
      // The header's actions (`node-actions`): what can be done to the node. The root's rerun is the run's own button.
      const { panel, actions } = nodePanel(view, closeNode);
      if (id !== rootId) fill(actions, rerunControls(context, banner, rootId, id));
      fill(nodeSlot, panel);
    } catch (error) {
      if (stopped || openNode !== id) return;
      if (error instanceof ApiError && error.status === 404) fill(nodeSlot, h('section', { class: 'panel', id: 'node-panel' }, h('p', {}, `No node ${id} on record yet.`)));
      else report(context, banner, error);
    }
  };

  const showNode = (id: string): void => {
    openNode = id;
    nodeKey = '';
    draw();
    void readNode().then(() => nodeSlot.scrollIntoView({ block: 'nearest' }));
  };

  const closeNode = (): void => {
    openNode = null;
    nodeKey = '';
    fill(nodeSlot);
    draw();
  };

  const opener = (event: Event): void => {
    const row = event.target instanceof Element ? event.target.closest<HTMLElement>('[data-node-id]') : null;
    const id = row?.dataset.nodeId;
    if (id) showNode(id);
  };
  treeSlot.addEventListener('click', opener);
  timelineSlot.addEventListener('click', opener);

  const readTimeline = async (): Promise<void> => {
    try {
      const timeline = await getJson<RunTimeline>(runPath(rootId, '/timeline'));
      if (!stopped) fill(timelineSlot, timelineView(timeline, Date.now()));
    } catch (error) {
      // No tree yet: nothing to draw; the tree's own read says why when it matters.
      if (!stopped && !(error instanceof ApiError && error.status === 404)) report(context, banner, error);
    }
  };

  const readTrail = async (): Promise<void> => {
    const page = await getJson<AuditTrail>(runPath(rootId, auditQuery(auditView)));
    if (stopped) return;
    fill(auditControlsSlot, auditControls(auditView, page, goAudit));
    fill(auditSlot, auditTable(page.entries, rootId));
  };

  const goAudit = (view: AuditView): void => {
    auditView = view;
    readTrail().catch((error: unknown) => {
      if (!stopped) report(context, banner, error);
    });
  };

  const readAudit = async (): Promise<void> => {
    try {
      await Promise.all([readTrail(), readTimeline(), readNode()]);
    } catch (error) {
      if (!stopped) report(context, banner, error);
    }
    if (!stopped && !done) auditTimer = setTimeout(() => void readAudit(), REFRESH_MS);
  };

  const follow = (): void => {
    source = new EventSource(runPath(rootId, '/events'));
    source.addEventListener('node', (event: MessageEvent<string>) => {
      const node = JSON.parse(event.data) as NodeEvent;
      const patched = tree && patchNode(tree, node);
      if (patched) {
        tree = patched;
        draw();
      }
      void readTree();
    });
    source.addEventListener('outcome', () => {
      finish();
      void readTree();
      void readAudit();
    });
    source.addEventListener('error', (event) => {
      // The server's own `error` event (the run is gone) has data; a failed connection has none.
      if (event instanceof MessageEvent) {
        finish();
        void readTree();
      } else if (source?.readyState === EventSource.CLOSED && !done) {
        // Refused outright (the token, say): a plain read says why.
        void readTree();
      }
    });
  };

  cancel.addEventListener('click', () => {
    if (!confirm(`Cancel run ${rootId}? Its unfinished work will answer cancelled.`)) return;
    cancel.disabled = true;
    postJson<{ outcome: string }>(runPath(rootId, '/cancel'), { reason: 'cancelled from the dashboard' })
      .then((answer) => {
        if (answer.outcome === 'finished') return fill(notice, 'The run had already finished.');
        notice.dataset.cancelling = 'yes';
        if (!done) fill(notice, 'Cancelling: its unfinished work answers cancelled.');
        void readTree();
      })
      .catch((error: unknown) => {
        cancel.disabled = false;
        report(context, banner, error);
      });
  });

  void readTree().then(() => {
    if (stopped) return;
    if (!done) follow();
    void readAudit();
  });
  return stop;
}

/** The run's trace in Jaeger, when tracing recorded one; only an http(s) address becomes a link. */
function traceLink(url: string | null): HTMLAnchorElement | null {
  if (url === null || !/^https?:\/\//i.test(url)) return null;
  return h('a', { href: url, id: 'trace', target: '_blank', rel: 'noopener noreferrer' }, 'Trace in Jaeger');
}

function outcomePanel(outcome: Outcome): HTMLElement {
  const { payload } = outcome;
  const artifacts = payload.artifacts ?? [];
  return h(
    'div',
    { class: 'outcome' },
    h(
      'dl',
      {},
      h('dt', {}, 'Outcome'),
      h('dd', {}, statusBadge(payload.status), ` confidence ${payload.confidence.toFixed(2)}`),
      h('dt', {}, 'Summary'),
      h('dd', {}, payload.summary),
      payload.error_type ? h('dt', {}, 'Error') : null,
      payload.error_type ? h('dd', {}, payload.error_type, payload.error_detail ? `: ${payload.error_detail}` : '') : null,
    ),
    artifacts.length > 0
      ? h(
          'details',
          {},
          h('summary', {}, `${artifacts.length} artifact${artifacts.length === 1 ? '' : 's'}`),
          ...artifacts.map((artifact) =>
            h(
              'div',
              { class: 'artifact' },
              h('strong', {}, artifact.artifact_type),
              artifact.inline_content !== null ? h('pre', {}, artifact.inline_content) : h('p', {}, `in Beads at ${artifact.content_ref ?? '?'}`),
            ),
          ),
        )
      : null,
  );
}
