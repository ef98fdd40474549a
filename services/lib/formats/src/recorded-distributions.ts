import {
  PackageCopied as PackageCopiedMessage,
  PackageDeleted as PackageDeletedMessage,
  PackageUploaded as PackageUploadedMessage,
} from '@packyard/proto/packyard/artifact/v1/events';
import { Distribution } from '@packyard/proto/packyard/common/v1/common';
import {
  Advisory as AdvisoryMessage,
  AdvisoryCreated as AdvisoryCreatedMessage,
  type AdvisoryPackage as AdvisoryPackageMessage,
} from '@packyard/proto/packyard/repository/v1/advisories';
import { IndexPublished as IndexPublishedMessage } from '@packyard/proto/packyard/repository/v1/events';
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
 * The one upcast for issue 17: messages recorded before they carried a Distribution hold
 * `distro/version` in the deprecated string field (JSON name "distribution"). Such a message
 * gets the Distribution parsed from it, so no consumer sees the string; the string is dropped
 * from what is read. One with neither reads with the message's defaults (empty distro and
 * version), like any field decodeEvent finds missing.
 */
function upcast<T extends WithLegacyDistribution<Field>, Field extends string>(read: T, field: Field): Upcast<T, Field> {
  const { legacyDistribution, ...message } = read;
  const distribution: Distribution = read[field] ?? (legacyDistribution ? parseDistribution(legacyDistribution) : Distribution.fromPartial({}));
  return { ...message, [field]: distribution } as Upcast<T, Field>;
}

/** `reader` with the upcast: what decodeEvent tables and aggregates read such an event with */
export const withLegacyDistribution = <T extends WithLegacyDistribution<Field>, Field extends string>(reader: JsonReader<T>, field: Field): JsonReader<Upcast<T, Field>> => ({
  fromJSON: (object) => upcast(reader.fromJSON(object), field),
});

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

// an advisory names its packages' upload distributions: in AdvisoryCreated and in the
// advisories read model, where one kept before the message holds the strings
export type AdvisoryPackage = Upcast<AdvisoryPackageMessage, 'uploadDistribution'>;
export type Advisory = Omit<AdvisoryMessage, 'packages'> & { packages: AdvisoryPackage[] };
const upcastAdvisory = (advisory: AdvisoryMessage): Advisory => ({ ...advisory, packages: advisory.packages.map((pkg) => upcast(pkg, 'uploadDistribution')) });
export const Advisory: JsonReader<Advisory> = { fromJSON: (object) => upcastAdvisory(AdvisoryMessage.fromJSON(object)) };
export const AdvisoryCreated: JsonReader<{ advisory?: Advisory }> = {
  fromJSON: (object) => {
    const { advisory } = AdvisoryCreatedMessage.fromJSON(object);
    return { advisory: advisory && upcastAdvisory(advisory) };
  },
};
