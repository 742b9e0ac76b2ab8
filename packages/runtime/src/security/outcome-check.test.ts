import { describe, expect, it } from 'vitest';
import { buildOutcome } from '../messages/messages.js';
import { verifiedOutcome } from './outcome-check.js';
import { signRecord } from './signing.js';
import type { Signer, SigningConfig } from './signing-keys.js';
import { memoryKeySet } from '../testing/keys.js';

const keys = memoryKeySet();
const signing = keys.signing;
const fleet = keys.signer('fleet');
const NOW = Date.parse('2025-01-15T10:30:05Z');
const CHILD = 'r.0-0.0-0.0-0';

function outcome(answering = CHILD, signer: Signer | null = fleet, at = NOW) {
  return signRecord(buildOutcome('SPECIALIZED_FLEET', answering, { status: 'success', summary: 'done', confidence: 0.9 }, 5, at), signer);
}

const read = (value: ReturnType<typeof outcome>, config: SigningConfig | null = signing) => verifiedOutcome(JSON.parse(JSON.stringify(value)), value, 'SPECIALIZED_FLEET', CHILD, NOW, config);

describe("a parent reading a child's outcome", () => {
  it('takes a signed answer to this child as it is', () => {
    const signed = outcome();
    expect(read(signed)).toBe(signed);
  });

  it('takes anything when the deployment does not sign', () => {
    const unsigned = outcome(CHILD, null);
    expect(read(unsigned, null)).toBe(unsigned);
  });

  it.each<[string, ReturnType<typeof outcome>, RegExp]>([
    ['unsigned', outcome(CHILD, null), /unsigned/],
    ['forged', { ...outcome(), payload: { ...outcome().payload, confidence: 1 } }, /does not match/],
    ["another child's genuine answer", outcome('r.0-0.0-0.0-1'), /it answers r\.0-0\.0-0\.0-1, not r\.0-0\.0-0\.0-0/],
    ['dated far ahead', outcome(CHILD, fleet, NOW + 3600_000), /more than 300000 ms ahead/],
    ["another tier's (the Dispatcher's key on a Fleet answer)", outcome(CHILD, keys.signer('dispatcher')), /signed by dispatcher .* only fleet may sign this/],
    ["the client's", outcome(CHILD, keys.signer('client')), /signed by client/],
  ])('turns an %s outcome into an unrecoverable signature_invalid failure', (_name, value, detail) => {
    const refused = read(value);
    expect(refused).toMatchObject({ correlation_id: CHILD, payload: { status: 'failed', error_type: 'signature_invalid', recoverable: false, confidence: 0 } });
    expect(refused.payload.error_detail).toMatch(detail);
  });
});
