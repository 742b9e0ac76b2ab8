import { describe, expect, it } from 'vitest';
import { clientAddress, trustedProxies } from './client-address.js';

describe('clientAddress', () => {
  it('is the socket’s address unless the socket is a trusted proxy', () => {
    expect(clientAddress('127.0.0.1', '203.0.113.9', null)).toBe('127.0.0.1');
    expect(clientAddress('::ffff:127.0.0.1', '203.0.113.9', trustedProxies(['10.0.0.0/8']))).toBe('127.0.0.1');
    expect(clientAddress(undefined, '203.0.113.9', null)).toBe('unknown');
  });

  it('behind trusted proxies, is the first address from the right that is not one of them', () => {
    const proxies = trustedProxies(['10.0.0.0/8', '127.0.0.1']);
    expect(clientAddress('127.0.0.1', '203.0.113.9', proxies)).toBe('203.0.113.9');
    // What the client wrote itself (left) is not believed.
    expect(clientAddress('127.0.0.1', '1.2.3.4, 203.0.113.9, 10.1.1.1', proxies)).toBe('203.0.113.9');
    expect(clientAddress('127.0.0.1', '10.2.2.2, 10.1.1.1', proxies)).toBe('10.2.2.2');
    expect(clientAddress('127.0.0.1', 'not-an-address', proxies)).toBe('127.0.0.1');
    expect(clientAddress('127.0.0.1', undefined, proxies)).toBe('127.0.0.1');
  });
});
