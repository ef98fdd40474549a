// Reads the host's apt configuration to find the Debian mirror it already uses, so the
// test root is built from whatever archive this machine can reach (never a hard-coded host).

interface AptSource {
  uri: string;
  suites: string[];
}

/** One-line `deb URI SUITE COMPONENT...` entries (sources.list, *.list). */
function parseOneLineSources(text: string): AptSource[] {
  return text
    .split('\n')
    .map((line) => line.replace(/#.*/, '').trim())
    .filter((line) => line.startsWith('deb '))
    .map((line) => line.replace(/\[[^\]]*\]/, '').trim().split(/\s+/))
    .filter((fields) => fields.length >= 3)
    .map(([, uri, suite]) => ({ uri, suites: [suite] }));
}

/** deb822 stanzas (*.sources): `Types:`, `URIs:`, `Suites:` fields separated by blank lines. */
function parseDeb822Sources(text: string): AptSource[] {
  return text
    .split(/\n\s*\n/)
    .map((stanza) => {
      const fields = new Map<string, string>();
      for (const line of stanza.split('\n')) {
        const match = /^([A-Za-z-]+):\s*(.*)$/.exec(line.trim());
        if (match && !line.startsWith('#')) fields.set(match[1].toLowerCase(), match[2]);
      }
      return fields;
    })
    .filter((fields) => (fields.get('types') ?? '').split(/\s+/).includes('deb') && fields.get('enabled') !== 'no')
    .flatMap((fields) =>
      (fields.get('uris') ?? '').split(/\s+/).filter(Boolean).map((uri) => ({ uri, suites: (fields.get('suites') ?? '').split(/\s+/) })),
    );
}

/**
 * The first source offering `suite` itself (not `suite-security` or `suite-updates`).
 * `files` maps file names to contents; only `.list` and `.sources` files count, as for apt.
 */
export function findDebianMirror(files: Record<string, string>, suite: string): string | undefined {
  for (const [name, text] of Object.entries(files)) {
    const sources = name.endsWith('.sources') ? parseDeb822Sources(text) : name.endsWith('.list') ? parseOneLineSources(text) : [];
    const match = sources.find((source) => source.suites.includes(suite));
    if (match) return match.uri;
  }
  return undefined;
}
