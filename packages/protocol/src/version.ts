import { z } from 'zod';

/** The protocol version this implementation writes. */
export const PROTOCOL_VERSION = '1.0.0';

/** Major versions this implementation reads. A receiver MUST reject any other (docs/protocol.md#protocol-versions). */
export const SUPPORTED_MAJOR_VERSIONS: readonly number[] = [1];

const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;

export interface ProtocolVersion {
  readonly major: number;
  readonly minor: number;
  readonly patch: number;
}

/** Parses `MAJOR.MINOR.PATCH` (with optional pre-release and build parts), or returns null. */
export function parseVersion(version: string): ProtocolVersion | null {
  const match = SEMVER.exec(version);
  if (!match) return null;
  return { major: Number(match[1]), minor: Number(match[2]), patch: Number(match[3]) };
}

export function isSupportedVersion(version: string): boolean {
  const parsed = parseVersion(version);
  return parsed !== null && SUPPORTED_MAJOR_VERSIONS.includes(parsed.major);
}

/**
 * The envelope's `version`. An unknown minor version is accepted (its unknown fields are kept);
 * an unknown major version is refused with an error naming it.
 */
export const versionSchema = z
  .string()
  .regex(SEMVER, { message: 'must be a semantic version such as "1.0.0"' })
  .superRefine((version, ctx) => {
    const parsed = parseVersion(version);
    if (parsed && !SUPPORTED_MAJOR_VERSIONS.includes(parsed.major)) {
      ctx.addIssue({
        code: 'custom',
        message: unsupportedVersionMessage(version, parsed.major),
        params: { rule: 'unsupported_version' },
      });
    }
  })
  .meta({ description: 'Protocol version, MAJOR.MINOR.PATCH. Receivers reject unknown majors and accept unknown minors.' });

export function unsupportedVersionMessage(version: string, major: number): string {
  const known = SUPPORTED_MAJOR_VERSIONS.map((m) => `${m}.x`).join(', ');
  return `unsupported protocol version "${version}": major version ${major} is unknown to this receiver, which reads ${known}`;
}
