import { artifactSchema, INLINE_CONTENT_LIMIT_BYTES, isTierflowError, utf8ByteLength } from '@tierflow/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { artifactFor, placeContent, type ContentPlacement } from './artifact-placement.js';

const REF = 'beads:execution/outputs/msg-002';

describe('placeContent', () => {
  it.each<[string, string, number, ContentPlacement]>([
    ['empty', '', 0, 'inline'],
    ['1023 ASCII bytes', 'a'.repeat(1023), 1023, 'inline'],
    ['1024 ASCII bytes', 'a'.repeat(1024), 1024, 'reference'],
    ['1025 ASCII bytes', 'a'.repeat(1025), 1025, 'reference'],
    ['511 × é (1022 bytes)', 'é'.repeat(511), 1022, 'inline'],
    ['512 × é (1024 bytes, 512 characters)', 'é'.repeat(512), 1024, 'reference'],
    ['1 + 511 × é (1023 bytes)', `a${'é'.repeat(511)}`, 1023, 'inline'],
    ['255 × 😀 + 3 ASCII (1023 bytes)', `${'😀'.repeat(255)}abc`, 1023, 'inline'],
    ['256 × 😀 (1024 bytes, 512 UTF-16 units)', '😀'.repeat(256), 1024, 'reference'],
    ['341 × € (1023 bytes)', '€'.repeat(341), 1023, 'inline'],
    ['341 × € + 1 (1024 bytes)', `${'€'.repeat(341)}a`, 1024, 'reference'],
  ])('%s → %s', (_label, content, bytes, placement) => {
    expect(utf8ByteLength(content)).toBe(bytes);
    expect(Buffer.byteLength(content, 'utf8')).toBe(bytes);
    expect(placeContent(content)).toBe(placement);
  });
});

describe('artifactFor', () => {
  it.each<[string, string, boolean]>([
    ['small content goes inline', '5/5 tests passed', true],
    ['1023 bytes go inline', 'x'.repeat(1023), true],
    ['1024 bytes go by reference', 'x'.repeat(1024), false],
    ['1025 bytes go by reference', 'x'.repeat(1025), false],
    ['multi-byte content at the limit goes by reference', 'é'.repeat(512), false],
  ])('%s', (_label, content, inline) => {
    const placed = artifactFor({ artifact_type: 'test_result', content, metadata: { passed: 5 }, ref: REF });
    expect(placed.artifact).toEqual({
      artifact_type: 'test_result',
      content_ref: inline ? null : REF,
      inline_content: inline ? content : null,
      metadata: { passed: 5 },
    });
    expect(placed.store).toEqual(inline ? null : { ref: REF, content });
    expect(artifactSchema.parse(placed.artifact)).toEqual(placed.artifact);
  });

  it('defaults metadata to an empty object, and copies the one given', () => {
    expect(artifactFor({ artifact_type: 'code', content: 'x', ref: REF }).artifact.metadata).toEqual({});
    const metadata = { language: 'python' };
    expect(artifactFor({ artifact_type: 'code', content: 'x', metadata, ref: REF }).artifact.metadata).not.toBe(metadata);
  });

  it.each<[string, string, string, RegExp]>([
    ['an empty type', ' ', REF, /artifact_type must not be empty/],
    ['a ref that is not a Beads key', 'code', 'execution/outputs/msg-002', /ref must be a Beads key/],
    ['an empty ref', 'code', '', /ref must be a Beads key/],
  ])('refuses %s, even for inline content', (_label, artifactType, ref, message) => {
    let thrown: unknown;
    try {
      artifactFor({ artifact_type: artifactType, content: 'small', ref });
    } catch (error) {
      thrown = error;
    }
    expect(isTierflowError(thrown)).toBe(true);
    expect(thrown).toMatchObject({ code: 'invalid_artifact', retryable: false });
    expect((thrown as Error).message).toMatch(message);
  });

  it('always yields an artifact that passes artifactSchema, inline exactly under the limit', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 700 }), (content) => {
        const placed = artifactFor({ artifact_type: 'analysis', content, ref: REF });
        expect(artifactSchema.safeParse(placed.artifact).success).toBe(true);
        const inline = utf8ByteLength(content) < INLINE_CONTENT_LIMIT_BYTES;
        expect(placed.artifact.inline_content !== null).toBe(inline);
        expect(placed.store === null).toBe(inline);
      }),
    );
  });
});
