import {
  PackageCopied as PackageCopiedMessage,
  PackageDeleted as PackageDeletedMessage,
  PackageUploaded as PackageUploadedMessage,
} from '@packyard/proto/packyard/artifact/v1/events';
import { IndexPublished as IndexPublishedMessage } from '@packyard/proto/packyard/repository/v1/events';
import { Distribution } from '@packyard/proto/packyard/common/v1/common';
import { parseDistribution } from './distributions';

/** a proto message's JSON reader, as ts-proto generates it */
interface JsonReader<T> {
  fromJSON(object: unknown): T;
}

/** a message whose `distro/version` string field gave way to a Distribution under a new field number */
type WithLegacyDistribution<Field extends string> = { legacyDistribution?: string } & { [F in Field]?: Distribution };

/** the message as read: always the Distribution, never the deprecated string */
export type Upcast<T, Field extends string> = Omit<T, 'legacyDistribution' | Field> & { [F in Field]: Distribution };

/**
 * The one upcast for issue 17: events recorded before a message carried a Distribution hold
 * `distro/version` in the deprecated string field (JSON name "distribution"). Reading such an
 * event gives the Distribution parsed from it, so no consumer sees the string; the string is
 * dropped from what is read. An event with neither reads with the message's defaults (empty
 * distro and version), like any field decodeEvent finds missing.
 */
export function withLegacyDistribution<T extends WithLegacyDistribution<Field>, Field extends string>(reader: JsonReader<T>, field: Field): JsonReader<Upcast<T, Field>> {
  return {
    fromJSON(object) {
      const read = reader.fromJSON(object);
      const { legacyDistribution, ...message } = read;
      const distribution: Distribution = read[field] ?? (legacyDistribution ? parseDistribution(legacyDistribution) : Distribution.fromPartial({}));
      return { ...message, [field]: distribution } as Upcast<T, Field>;
    },
  };
}

// artifact's events as every module decodes them (decodeEvent tables), old ones upcast
export const PackageUploaded = withLegacyDistribution(PackageUploadedMessage, 'uploadDistribution');
export const PackageDeleted = withLegacyDistribution(PackageDeletedMessage, 'uploadDistribution');
export const PackageCopied = withLegacyDistribution(PackageCopiedMessage, 'uploadDistribution');
export type PackageUploaded = Upcast<PackageUploadedMessage, 'uploadDistribution'>;
export type PackageDeleted = Upcast<PackageDeletedMessage, 'uploadDistribution'>;
export type PackageCopied = Upcast<PackageCopiedMessage, 'uploadDistribution'>;

// repository's IndexPublished as delivery and the repository's own publications read it; a
// publication kept in a read model before the message is read the same way
export const IndexPublished = withLegacyDistribution(IndexPublishedMessage, 'targetDistribution');
export type IndexPublished = Upcast<IndexPublishedMessage, 'targetDistribution'>;
