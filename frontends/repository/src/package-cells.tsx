import { formatBytes } from '@packyard/console-kit';
import { Link } from 'react-router-dom';
import type { RepositoryPackage } from './repository-resources';

/** The columns every package table starts with (Packages tab, browse view), in this order. */
const PACKAGE_COLUMNS = ['Package', 'Version', 'Architecture', 'Distribution', 'Size'] as const;

export function PackageColumnHeaders() {
  return (
    <>
      {PACKAGE_COLUMNS.map((column) => (
        <th key={column} scope="col">
          {column}
        </th>
      ))}
    </>
  );
}

/** `detailPath`: the package's page, which its name then links to */
export function PackageCells({ pkg, detailPath }: { pkg: RepositoryPackage; detailPath?: string }) {
  return (
    <>
      <td data-label="Package">
        <strong>{detailPath ? <Link to={detailPath} aria-label={`${pkg.name} ${pkg.version}`}>{pkg.name}</Link> : pkg.name}</strong>
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
