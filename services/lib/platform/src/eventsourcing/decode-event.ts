/** a generated proto message's JSON reader (ts-proto's `fromJSON`) */
export interface MessageReader<T> {
  fromJSON(object: unknown): T;
}

/** the union of `{ type, data }` a table of event types to their proto messages describes */
export type DecodedEvent<Table extends Record<string, MessageReader<unknown>>> = {
  [Type in keyof Table & string]: { type: Type; data: Table[Type] extends MessageReader<infer T> ? T : never };
}[keyof Table & string];

/**
 * An event's data read by its proto message, when its type is in `table`: consumers switch
 * on `type` and get the message's type, no `event.data as X`. Fields the message lacks
 * take the message's defaults, so an older event reads as the current contract. The same
 * for an event from the store (a projection, a workflow) and a message from the bus (a
 * reaction): both are `{ type, data }`. A consumer names the events it follows in its table;
 * the union is the table's, so a type it does not name cannot reach its `switch`.
 */
export function decodeEvent<Table extends Record<string, MessageReader<unknown>>>(event: { type: string; data: unknown }, table: Table): DecodedEvent<Table> | undefined {
  const reader = Object.hasOwn(table, event.type) ? table[event.type] : undefined;
  return reader ? ({ type: event.type, data: reader.fromJSON(event.data) } as DecodedEvent<Table>) : undefined;
}
