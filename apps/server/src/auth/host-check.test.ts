import { describe, expect, it } from 'vitest';
import { hostAllowed, hostnameOf, hostPolicy } from './host-check.js';

describe('hostnameOf', () => {
  it('reads the host of a Host header: no port, no brackets, lower case, no final dot', () => {
    expect(hostnameOf('LocalHost:8080')).toBe('localhost');
    expect(hostnameOf('[::1]:8080')).toBe('::1');
    expect(hostnameOf('tierflow.example.com.')).toBe('tierflow.example.com');
    for (const bad of [undefined, '', 'a b', 'user@host', '::1', 'host:port', '[::1']) expect([bad, hostnameOf(bad)]).toEqual([bad, null]);
  });
});

describe('hostAllowed', () => {
  it('on loopback, lets in loopback names and addresses, and the configured names, and nothing a rebound page sends', () => {
    const policy = hostPolicy({ host: '127.0.0.1', allowedHosts: ['tierflow.internal'] });
    for (const host of ['127.0.0.1:8080', 'localhost:8080', 'localhost', '[::1]:8080', '127.0.0.2:9000', 'tierflow.internal:443']) expect([host, hostAllowed(host, policy)]).toEqual([host, true]);
    for (const host of ['evil.example:8080', '127.evil.example:8080', 'localhost.evil.example', '10.0.0.1:8080', undefined, '']) expect([host, hostAllowed(host, policy)]).toEqual([host, false]);
  });

  it('on every interface, lets in any address and localhost, and names only when configured', () => {
    const policy = hostPolicy({ host: '0.0.0.0', allowedHosts: [] });
    for (const host of ['10.1.2.3:8080', '[fe80::1]:8080', 'localhost:8080']) expect([host, hostAllowed(host, policy)]).toEqual([host, true]);
    expect(hostAllowed('tierflow.example.com', policy)).toBe(false);
    expect(hostAllowed('tierflow.example.com', hostPolicy({ host: '::', allowedHosts: ['tierflow.example.com'] }))).toBe(true);
  });

  it('on one address, lets in that address and the configured names', () => {
    const policy = hostPolicy({ host: '10.0.0.5', allowedHosts: [] });
    expect(hostAllowed('10.0.0.5:8080', policy)).toBe(true);
    expect(hostAllowed('10.0.0.6:8080', policy)).toBe(false);
    expect(hostAllowed('localhost:8080', policy)).toBe(false);
  });
});
