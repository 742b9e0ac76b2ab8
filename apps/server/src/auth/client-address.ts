import { BlockList, isIP } from 'node:net';
import type { Context } from 'hono';

/** The proxies whose X-Forwarded-* headers are believed; null when none is configured. */
export type TrustedProxies = BlockList | null;

/** An IPv4 address as Node reports one on a dual-stack socket (`::ffff:127.0.0.1`) as itself. */
function plain(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped?.[1] ?? address;
}

/** The proxies of the options (addresses and `address/bits` ranges, already checked), as one list. */
export function trustedProxies(entries: readonly string[]): TrustedProxies {
  if (entries.length === 0) return null;
  const list = new BlockList();
  for (const entry of entries) {
    const [address = '', bits] = entry.split('/');
    const type = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (bits === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(bits), type);
  }
  return list;
}

/** Whether `address` is one of the trusted proxies. Pure. */
export function isTrusted(address: string | undefined, proxies: TrustedProxies): boolean {
  if (proxies === null || address === undefined) return false;
  const bare = plain(address);
  const family = isIP(bare);
  return family !== 0 && proxies.check(bare, family === 6 ? 'ipv6' : 'ipv4');
}

/**
 * The client's address. X-Forwarded-For is believed only when the connection comes from a
 * trusted proxy, and then read from the right: each trusted proxy appends whom it heard from, so
 * the first address from the right that is not a trusted proxy is the client (what lies left of
 * it, the client may have written itself). Otherwise the socket's address. Pure.
 */
export function clientAddress(socketAddress: string | undefined, forwardedFor: string | undefined, proxies: TrustedProxies): string {
  const socket = socketAddress === undefined ? 'unknown' : plain(socketAddress);
  if (forwardedFor === undefined || !isTrusted(socketAddress, proxies)) return socket;
  const hops = forwardedFor
    .split(',')
    .map((hop) => plain(hop.trim()))
    .reverse();
  for (const hop of hops) {
    if (isIP(hop) === 0) return socket;
    if (!isTrusted(hop, proxies)) return hop;
  }
  return hops.at(-1) ?? socket;
}

/** The address of the socket a request came on (Node's server), if it has one (a test's `app.request` has none). */
export function socketAddressOf(c: Context): string | undefined {
  const incoming = (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming;
  return incoming?.socket?.remoteAddress;
}

/** The request's client address, by {@link clientAddress}. */
export function clientAddressOf(c: Context, proxies: TrustedProxies): string {
  return clientAddress(socketAddressOf(c), c.req.header('x-forwarded-for'), proxies);
}

/** Whether the request came through a trusted proxy, so its X-Forwarded-Proto and -Host are believed. */
export function viaTrustedProxy(c: Context, proxies: TrustedProxies): boolean {
  return isTrusted(socketAddressOf(c), proxies);
}

/**
 * The origin the client reached: the proxy's, when a trusted proxy in front says it
 * (X-Forwarded-Proto and -Host); from anyone else those headers would let a client choose it.
 */
export function requestOrigin(c: Context, proxies: TrustedProxies): string {
  const url = new URL(c.req.url);
  const trusted = viaTrustedProxy(c, proxies);
  const first = (header: string | undefined): string | undefined => (trusted ? header?.split(',')[0]?.trim() || undefined : undefined);
  const proto = first(c.req.header('x-forwarded-proto')) ?? url.protocol.replace(/:$/, '');
  const host = first(c.req.header('x-forwarded-host')) ?? url.host;
  return `${proto}://${host}`;
}
