import { beadsRefSchema, fastSafeParse, INLINE_CONTENT_LIMIT_BYTES, TierflowError, utf8ByteLength, type Artifact } from '@tierflow/protocol';

/** Where an artifact's content travels: in the message, or in Beads behind a key. */
export const CONTENT_PLACEMENTS = { inline: 'inline', reference: 'reference' } as const;
export type ContentPlacement = (typeof CONTENT_PLACEMENTS)[keyof typeof CONTENT_PLACEMENTS];

/**
 * The inline-versus-reference rule (docs/protocol.md#artifacts): content under
 * {@link INLINE_CONTENT_LIMIT_BYTES} bytes of UTF-8 goes inline, anything larger by reference.
 * Bytes, not characters: `é` counts 2, `😀` 4.
 */
export function placeContent(content: string): ContentPlacement {
  return utf8ByteLength(content) < INLINE_CONTENT_LIMIT_BYTES ? CONTENT_PLACEMENTS.inline : CONTENT_PLACEMENTS.reference;
}

export interface ArtifactForInput {
  /** `code`, `analysis`, `test_result`, … */
  readonly artifact_type: string;
  readonly content: string;
  readonly metadata?: Readonly<Record<string, unknown>> | undefined;
  /** The Beads key the content is stored under if it is too large to go inline, e.g. `beads:execution/outputs/msg-002`. */
  readonly ref: string;
}

/** An artifact, and the Beads write it needs first: null when the content went inline. */
export interface PlacedArtifact {
  readonly artifact: Artifact;
  readonly store: { readonly ref: string; readonly content: string } | null;
}

/**
 * Builds an artifact that follows the inline-versus-reference rule: exactly one of
 * `inline_content` and `content_ref` is set. When the content goes by reference, `store` says
 * what the caller must write to Beads before sending the artifact.
 *
 * The ref is checked even when the content goes inline, so a bad key fails on small content too
 * rather than only once content grows.
 *
 * @throws TierflowError (permanent, code `invalid_artifact`) for an empty type or a ref that is not a Beads key.
 */
export function artifactFor(input: ArtifactForInput): PlacedArtifact {
  if (input.artifact_type.trim() === '') {
    throw TierflowError.permanent('artifact_type must not be empty', { code: 'invalid_artifact' });
  }
  if (!fastSafeParse(beadsRefSchema, input.ref).success) {
    throw TierflowError.permanent(`ref must be a Beads key such as "beads:execution/outputs/msg-002", got ${JSON.stringify(input.ref)}`, {
      code: 'invalid_artifact',
    });
  }
  const metadata = { ...input.metadata };
  if (placeContent(input.content) === CONTENT_PLACEMENTS.inline) {
    return {
      artifact: { artifact_type: input.artifact_type, content_ref: null, inline_content: input.content, metadata },
      store: null,
    };
  }
  return {
    artifact: { artifact_type: input.artifact_type, content_ref: input.ref, inline_content: null, metadata },
    store: { ref: input.ref, content: input.content },
  };
}
