import { postJson, Unauthorized } from './api.js';
import { fill, h } from './dom.js';

/**
 * The sign-in form: the token goes to `POST /api/session`, which keeps it in an HttpOnly cookie
 * (this page never holds it after), and `signedIn` runs once the server took it.
 */
export function showSignIn(main: HTMLElement, signedIn: () => void): void {
  const token = h('input', { type: 'password', name: 'token', id: 'token', autocomplete: 'current-password', required: true });
  const message = h('p', { class: 'message', role: 'alert' });
  const button = h('button', { type: 'submit' }, 'Sign in');
  const form = h(
    'form',
    { class: 'panel sign-in', id: 'sign-in' },
    h('h1', {}, 'Sign in'),
    h('p', {}, 'This server asks for its API token (TIERFLOW_API_TOKEN).'),
    h('label', { for: 'token' }, 'API token'),
    token,
    button,
    message,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    button.disabled = true;
    fill(message);
    postJson('/api/session', { token: token.value })
      .then(() => {
        token.value = '';
        signedIn();
      })
      .catch((error: unknown) => {
        button.disabled = false;
        fill(message, error instanceof Unauthorized ? 'That is not this server’s token.' : `Could not sign in: ${error instanceof Error ? error.message : String(error)}`);
      });
  });
  fill(main, form);
  token.focus();
}
