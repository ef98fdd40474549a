import { gzipSync } from 'node:zlib';
import { ArchiveMember, writeAr, writeTar } from './archive-bytes.writer';

export interface CraftDebOptions {
  /** Raw text (UTF-8) or bytes of the control file; written as given, however malformed. */
  readonly control: string | Buffer;
  /** `null` leaves the debian-binary member out. */
  readonly debianBinary?: string | null;
  /** Replaces the gzipped control.tar built from `control` (e.g. a decompression bomb). */
  readonly controlMember?: ArchiveMember;
  readonly dataFiles?: readonly ArchiveMember[];
}

/**
 * Writes a .deb byte for byte without dpkg-deb, so tests can produce archives dpkg-deb
 * would refuse to build: that is the point of the malicious inputs below.
 */
export async function craftDeb(options: CraftDebOptions): Promise<Buffer> {
  const controlTar = await writeTar([{ name: './control', data: options.control }]);
  const dataTar = await writeTar(options.dataFiles ?? [{ name: './usr/share/doc/crafted/README', data: 'crafted\n' }]);
  const members: ArchiveMember[] = [];
  if (options.debianBinary !== null) members.push({ name: 'debian-binary', data: options.debianBinary ?? '2.0\n' });
  members.push(options.controlMember ?? { name: 'control.tar.gz', data: gzipSync(controlTar) });
  members.push({ name: 'data.tar.gz', data: gzipSync(dataTar) });
  return writeAr(members);
}

export const validControlText = (name = 'crafted', version = '1.0-1', architecture = 'amd64') =>
  `Package: ${name}\nVersion: ${version}\nArchitecture: ${architecture}\nMaintainer: Test <test@example.com>\n` +
  `Description: crafted package\n a long description\n`;

/** Inputs a hostile uploader could send; each must be refused by the .deb parser. */
export const maliciousDebs = {
  /** A second stanza that would add a second Filename: line to the Packages index. */
  secondStanzaSmugglingFilename: () =>
    craftDeb({ control: `${validControlText()}\nPackage: evil\nFilename: pool/main/e/evil/evil.deb\n` }),
  /** A field whose value breaks the line to declare an index field of its own. */
  newlineInjectedField: () =>
    craftDeb({ control: `${validControlText()}Homepage: https://example.com\nSHA256: ${'0'.repeat(64)}\n` }),
  /** A carriage return hiding a field from line-based readers. */
  carriageReturnInjectedField: () =>
    craftDeb({ control: `${validControlText()}Homepage: https://example.com\rFilename: ../../etc/passwd\n` }),
  /** 16 MiB of zeros gzipped to ~16 KiB (four times the control.tar limit) and stored as control.tar.gz. */
  gzipBombControlTar: () =>
    craftDeb({ control: validControlText(), controlMember: { name: 'control.tar.gz', data: gzipSync(Buffer.alloc(16 * 1024 * 1024), { level: 9 }) } }),
  /** A control file in ISO-8859-1: Debian requires UTF-8, and a guess could misread it. */
  latin1Control: () => craftDeb({ control: Buffer.from(validControlText().replace('a long description', 'caf\u00e9 cr\u00e8me'), 'latin1') }),
  missingDebianBinary: () => craftDeb({ control: validControlText(), debianBinary: null }),
  unsupportedFormatVersion: () => craftDeb({ control: validControlText(), debianBinary: '3.0\n' }),
};
