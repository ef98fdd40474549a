/**
 * Every way an uploaded package can be refused. Codes follow `PACKYARD_<CONTEXT>_<REASON>`
 * (STYLE.md); the HTTP layer maps all of them to 400 and the gRPC layer to INVALID_ARGUMENT.
 */
export const ArtifactFormatErrorCode = {
  invalidDeb: 'PACKYARD_ARTIFACT_INVALID_DEB',
  invalidRpm: 'PACKYARD_ARTIFACT_INVALID_RPM',
  sourceRpm: 'PACKYARD_ARTIFACT_SOURCE_RPM',
  invalidControl: 'PACKYARD_ARTIFACT_INVALID_CONTROL',
  invalidSourcePackage: 'PACKYARD_ARTIFACT_INVALID_SOURCE_PACKAGE',
  decompressionLimit: 'PACKYARD_ARTIFACT_DECOMPRESSION_LIMIT',
  tooLarge: 'PACKYARD_ARTIFACT_TOO_LARGE',
  truncated: 'PACKYARD_ARTIFACT_TRUNCATED',
  invalidDistribution: 'PACKYARD_ARTIFACT_INVALID_DISTRIBUTION',
} as const;

export type ArtifactFormatErrorCode = (typeof ArtifactFormatErrorCode)[keyof typeof ArtifactFormatErrorCode];

export class ArtifactFormatError extends Error {
  override readonly name = 'ArtifactFormatError';

  constructor(
    readonly code: ArtifactFormatErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export const isArtifactFormatError = (error: unknown): error is ArtifactFormatError =>
  error instanceof ArtifactFormatError;
