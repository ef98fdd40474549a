import { pack } from 'tar-stream';

export interface ArchiveMember {
  readonly name: string;
  readonly data: Buffer | string;
}

/** An ar(5) archive as dpkg-deb writes it, from raw members (no validation on purpose). */
export function writeAr(members: readonly ArchiveMember[]): Buffer {
  const parts: Buffer[] = [Buffer.from('!<arch>\n', 'latin1')];
  for (const member of members) {
    const data = Buffer.from(member.data);
    const header =
      member.name.padEnd(16) + '0'.padEnd(12) + '0'.padEnd(6) + '0'.padEnd(6) + '100644'.padEnd(8) +
      String(data.length).padEnd(10) + '`\n';
    parts.push(Buffer.from(header, 'latin1'), data);
    if (data.length % 2 === 1) parts.push(Buffer.from('\n'));
  }
  return Buffer.concat(parts);
}

/** A ustar archive of regular files, as control.tar and data.tar hold them. */
export async function writeTar(entries: readonly ArchiveMember[]): Promise<Buffer> {
  const tar = pack();
  for (const entry of entries) {
    const data = Buffer.from(entry.data);
    tar.entry({ name: entry.name, size: data.length, mode: 0o644, mtime: new Date(0), uname: 'root', gname: 'root' }, data);
  }
  tar.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of tar) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
