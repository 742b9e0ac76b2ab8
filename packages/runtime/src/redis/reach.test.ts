import { describe, expect, it } from 'vitest';
import { redisFailureReason } from './reach.js';

const nodeError = (code: string, message: string): Error => Object.assign(new Error(message), { code });

describe('redisFailureReason', () => {
  it.each<[string, unknown, boolean, RegExp]>([
    ['refused', nodeError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:9'), false, /^connection refused/],
    ['unknown host', nodeError('ENOTFOUND', 'getaddrinfo ENOTFOUND x.invalid'), false, /^unknown host$/],
    ['a failed lookup', nodeError('EAI_AGAIN', 'getaddrinfo EAI_AGAIN x'), false, /^unknown host/],
    ['a timeout', nodeError('ETIMEDOUT', 'connect ETIMEDOUT'), false, /timed out/],
    ['a wrong password', new Error('WRONGPASS invalid username-password pair or user is disabled.'), false, /^authentication failed/],
    ['no password', new Error('NOAUTH Authentication required.'), false, /needs a password/],
    ['TLS to a plain port', nodeError('ECONNRESET', 'Client network socket disconnected before secure TLS connection was established'), true, /does the server speak TLS/],
    ['plain to a TLS port', nodeError('ECONNRESET', 'read ECONNRESET'), false, /use rediss:\/\//],
    ['a certificate', nodeError('DEPTH_ZERO_SELF_SIGNED_CERT', 'self-signed certificate'), true, /^TLS failed \(DEPTH_ZERO_SELF_SIGNED_CERT\)$/],
    ['the wrong name', nodeError('ERR_TLS_CERT_ALTNAME_INVALID', "Hostname/IP does not match certificate's altnames"), true, /^TLS failed/],
  ])('%s', (_name, error, tls, reason) => {
    expect(redisFailureReason(error, tls)).toMatch(reason);
  });

  it("a Cluster's: its last node's", () => {
    const failed = Object.assign(new Error('Failed to refresh slots cache.'), { lastNodeError: nodeError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:7000') });
    expect(redisFailureReason(failed, false)).toMatch(/^connection refused/);
  });

  it('never quotes an error it does not know: ioredis may put the AUTH command on it', () => {
    expect(redisFailureReason(new Error('ERR something with s3cret'), false)).toBe('connection failed');
    expect(redisFailureReason('s3cret', false)).toBe('connection failed');
  });
});
