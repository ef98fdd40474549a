import { PublicationManifest, type IndexFile, type PublicationManifestRef } from '@packyard/proto/packyard/repository/v1/events';

/**
 * A published generation's files as its manifest lists them, its parts' pool files
 * included (read whole, for tests; the edge reads and caches parts in delivery's
 * PublicationManifests). `read` gives a blob's bytes by key.
 */
export async function manifestFiles(read: (blobKey: string) => Promise<Buffer>, ref: PublicationManifestRef): Promise<{ files: IndexFile[]; repositoryFiles: IndexFile[]; parts: number }> {
  const manifest = PublicationManifest.decode(await read(ref.blobKey));
  const parts = await Promise.all(manifest.parts.map(async (part) => PublicationManifest.decode(await read(part.blobKey)).files));
  return { files: manifest.files.concat(...parts), repositoryFiles: manifest.repositoryFiles, parts: manifest.parts.length };
}
