import { isIP } from 'node:net';
import type { MiddlewareHandler } from 'hono';
import { isLoopback, type ServerOptions } from '../config/server-options.js';

/** Which Host headers name this server. */
export interface HostPolicy {
  /** Bound to loopback: every loopback name and address (`localhost`, 127.0.0.0/8, ::1). */
  readonly loopback: boolean;
  /** Bound to every interface (0.0.0.0, ::): any IP address, and `localhost`. */
  readonly anyAddress: boolean;
  /** Names always let in: the address bound, and the configured ones. Lower case, no brackets. */
  readonly names: ReadonlySet<string>;
}

const WILDCARDS = new Set(['0.0.0.0', '::', '0:0:0:0:0:0:0:0']);

/** The host a Host header (or an origin's host) names, without its port or an IPv6 address's brackets, lower case, a final dot dropped; null when it is not one. Pure. */
export function hostnameOf(header: string | undefined): string | null {
  const match = /^(?:\[([0-9a-f:.]+)\]|([^:[\]\s/@]+))(?::\d{1,5})?$/i.exec(header?.trim() ?? '');
  if (!match) return null;
  const name = (match[1] ?? match[2] ?? '').toLowerCase().replace(/\.$/, '');
  return name === '' ? null : name;
}

/** The Host headers a server of these options answers. Pure. */
export function hostPolicy(options: Pick<ServerOptions, 'host' | 'allowedHosts'>): HostPolicy {
  const bound = hostnameOf(options.host) ?? options.host.toLowerCase();
  return { loopback: isLoopback(bound), anyAddress: WILDCARDS.has(bound), names: new Set([bound, ...options.allowedHosts]) };
}

/**
 * Whether a Host header names this server. A page that DNS rebinding pointed here sends its own
 * name (`rebind.evil.example`), never an address, so a server bound to loopback lets in loopback
 * only, one bound to all interfaces any address (and `localhost`), and any other the address it
 * is bound to; the configured names come on top. The port is not compared: DNS rebinding is told
 * apart by the name, and a tunnel or a published container port changes the port alone. Pure.
 */
export function hostAllowed(header: string | undefined, policy: HostPolicy): boolean {
  const name = hostnameOf(header);
  if (name === null) return false;
  if (policy.names.has(name)) return true;
  if (policy.loopback) return isLoopback(name);
  if (policy.anyAddress) return name === 'localhost' || isIP(name) !== 0;
  return false;
}

/**
 * Refuses, with 421 Misdirected Request, a request whose Host does not name this server: the
 * defence against DNS rebinding, which would otherwise hand a web page the whole API of a server
 * that needs no token.
 */
export function hostCheck(policy: HostPolicy): MiddlewareHandler {
  return async (c, next) => {
    if (hostAllowed(c.req.header('host'), policy)) return next();
    return c.json(
      {
        error: {
          code: 'misdirected_request',
          message: 'this server does not answer to that host name; an operator can add it to TIERFLOW_SERVE_ALLOWED_HOSTS (the name a proxy in front is reached by, say)',
        },
      },
      421,
    );
  };
}
