import { formatBytes } from '@packyard/console-kit';
import type { RepositoryPackage } from './repository-resources';

/** The columns every package table starts with (Packages tab, browse view), in this order. */
export const PACKAGE_COLUMNS = ['Package', 'Version', 'Architecture', 'Distribution', 'Size'] as const;

export function PackageCells({ pkg }: { pkg: RepositoryPackage }) {
  return (
    <>
      <td data-label="Package">
        <strong>{pkg.name}</strong>
        <div className="pk-muted pk-mono pk-filename">{pkg.filename}</div>
      </td>
      <td data-label="Version" className="pk-mono">
        {pkg.version}
      </td>
      <td data-label="Architecture">{pkg.architecture}</td>
      <td data-label="Distribution" className="pk-mono">
        {pkg.distribution}
      </td>
      <td data-label="Size">{formatBytes(pkg.sizeBytes)}</td>
    </>
  );
}
