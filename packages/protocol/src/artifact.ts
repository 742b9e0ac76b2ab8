import { z } from 'zod';
import { beadsRefSchema } from './identifiers.js';
import { jsonObjectSchema, whenObject } from './json.js';

/** Content of this many UTF-8 bytes or more must travel by reference (docs/protocol.md#artifacts). */
export const INLINE_CONTENT_LIMIT_BYTES = 1024;

/** UTF-8 length of a string without allocating (pure, no Buffer), counting lone surrogates as U+FFFD. */
export function utf8ByteLength(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

/**
 * A concrete output. Exactly one of `content_ref` and `inline_content` is set; inline content stays
 * under {@link INLINE_CONTENT_LIMIT_BYTES}.
 */
export const artifactSchema = z
  .looseObject({
    artifact_type: z.string().min(1).meta({ description: '"code", "analysis", "test_result", …' }),
    content_ref: beadsRefSchema.nullable().default(null).meta({ description: 'Beads key of the content (content of 1 KB or more).' }),
    inline_content: z.string().nullable().default(null).meta({ description: 'The content itself, under 1 KB of UTF-8.' }),
    metadata: jsonObjectSchema.default({}),
  })
  .superRefine(
    (artifact, ctx) => {
      const hasRef = artifact.content_ref !== null && artifact.content_ref !== undefined;
      const hasInline = artifact.inline_content !== null && artifact.inline_content !== undefined;
      if (hasRef === hasInline) {
        ctx.addIssue({
          code: 'custom',
          path: hasRef ? ['inline_content'] : [],
          message: hasRef ? 'content_ref and inline_content are both set; exactly one must be non-null' : 'neither content_ref nor inline_content is set; exactly one must be non-null',
          params: { rule: 'artifact_content' },
        });
      }
      if (typeof artifact.inline_content === 'string') {
        const bytes = utf8ByteLength(artifact.inline_content);
        if (bytes >= INLINE_CONTENT_LIMIT_BYTES) {
          ctx.addIssue({
            code: 'custom',
            path: ['inline_content'],
            message: `inline_content is ${bytes} bytes; content of ${INLINE_CONTENT_LIMIT_BYTES} bytes or more must be stored in Beads and sent as content_ref`,
            params: { rule: 'inline_limit' },
          });
        }
      }
    },
    { when: whenObject },
  )
  .meta({ description: 'A concrete output: exactly one of content_ref and inline_content is non-null.' });
export type Artifact = z.output<typeof artifactSchema>;
export type ArtifactInput = z.input<typeof artifactSchema>;
