/** The fields of one stanza of an APT index (Packages, Sources): continuation lines joined with "\n", values trimmed per line. */
export type StanzaFields = Record<string, string>;

/** the stanzas of an index file, keyed by `keyOf` (the package name by default) */
export function readStanzas(text: string, keyOf: (fields: StanzaFields) => string = (fields) => fields.Package): Map<string, StanzaFields> {
  const stanzas = new Map<string, StanzaFields>();
  for (const block of text.split(/\n\n+/).filter((part) => part.trim())) {
    const fields: StanzaFields = {};
    let last = '';
    for (const line of block.split('\n')) {
      if (line.startsWith(' ')) {
        fields[last] += `\n${line}`;
      } else {
        last = line.slice(0, line.indexOf(':'));
        fields[last] = line.slice(line.indexOf(':') + 1).trim();
      }
    }
    stanzas.set(keyOf(fields), fields);
  }
  return stanzas;
}
