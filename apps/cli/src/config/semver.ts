/**
 * A semantic version as semver.org 2.0.0 writes it: `MAJOR.MINOR.PATCH`, with an optional
 * pre-release and build (`1.4.0-rc.1+build.5`); no leading zeros, no `v`. The regex is the one
 * semver.org suggests.
 */
const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

/** Whether `version` is a valid semantic version. Pure. */
export function isSemver(version: string): boolean {
  return SEMVER.test(version);
}

/** What a version that is not semver is told. */
export const SEMVER_MESSAGE = 'must be a semantic version such as 1.0.0 (MAJOR.MINOR.PATCH)';
