import { fill, h } from './dom.js';
import { showMetrics } from './metrics-page.js';
import type { PageContext, StopPage } from './page.js';
import { showRun } from './run-page.js';
import { showRuns } from './runs-page.js';
import { showSignIn } from './sign-in.js';
import { showSpecialists } from './specialists-page.js';
import { showWebhooks } from './webhooks-page.js';

// The dashboard's module: the server's page says which page this is (`data-page`, `data-run-id`)
// and whether to sign in first (`data-signed-in`).

const main = document.getElementById('main');
const { page, runId, signedIn } = document.body.dataset;

function start(): void {
  if (!main) return;
  let stopPage: StopPage = () => undefined;
  const context: PageContext = {
    main,
    signIn: () => {
      stopPage();
      showSignIn(main, start);
    },
  };
  if (page === 'run' && runId !== undefined) stopPage = showRun(context, runId);
  else if (page === 'runs') stopPage = showRuns(context);
  else if (page === 'metrics') stopPage = showMetrics(context);
  else if (page === 'specialists') stopPage = showSpecialists(context);
  else if (page === 'webhooks') stopPage = showWebhooks(context);
  else fill(main, h('p', {}, 'No such page.'));
}

if (main && signedIn === 'false') showSignIn(main, start);
else start();
