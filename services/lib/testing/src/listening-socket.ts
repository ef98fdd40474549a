import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** the inode of the socket listening on TCP `port` (IPv4 or IPv6), from the kernel's tables; undefined when nothing listens */
export function listeningInode(port: number): string | undefined {
  const portHex = port.toString(16).toUpperCase().padStart(4, '0');
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields[1]?.endsWith(`:${portHex}`) && fields[3] === '0A') return fields[9];
    }
  }
  return undefined;
}

/** how many of a process's descriptors are the socket with that inode (`self` for this process) */
export const descriptorsOf = (pid: number | 'self', inode: string): number =>
  readdirSync(`/proc/${pid}/fd`).filter((fd) => {
    try {
      return readlinkSync(`/proc/${pid}/fd/${fd}`) === `socket:[${inode}]`;
    } catch {
      return false;
    }
  }).length;
