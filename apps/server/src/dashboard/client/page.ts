import { Unauthorized } from './api.js';
import { h } from './dom.js';

/** What a page is given: where to draw, and what to do when the server asks for the token. */
export interface PageContext {
  readonly main: HTMLElement;
  /** Stops the page and shows the sign-in form; the page starts again once signed in. */
  readonly signIn: () => void;
}

/** A page that runs: stop it before another takes its place. */
export type StopPage = () => void;

/** How long the runs list waits between reads, and a run page between reads of its audit trail. */
export const REFRESH_MS = 2_000;

/** Shows a failure in `banner`, or signs in when that is what the server asked for. */
export function report(context: PageContext, banner: HTMLElement, error: unknown): void {
  if (error instanceof Unauthorized) return context.signIn();
  banner.hidden = false;
  banner.replaceChildren(error instanceof Error ? error.message : String(error));
}

/** An empty banner for failures, hidden until there is one. */
export function errorBanner(): HTMLParagraphElement {
  const banner = h('p', { class: 'banner', role: 'alert' });
  banner.hidden = true;
  return banner;
}
