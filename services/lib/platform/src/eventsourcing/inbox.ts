import type { BusMessage } from '../bus/event-bus.port';
import { ConcurrencyError, type EventStore, type StreamAppend } from './event-store.port';

/** the stream an inbox message is kept in: one per message, so a redelivery finds it taken */
export const inboxStream = (context: string, messageId: string) => `inbox_${context}-${messageId}`;

/**
 * Records another module's integration event in this module's own log (the inbox), so
 * read models built from it are projections like any other: rebuildable from the log.
 * At-least-once delivery is made exactly-once here: the stream is the message id and
 * a second append of it fails, which is a duplicate and ignored. Returns the position
 * written, or undefined for a duplicate.
 */
export async function recordInbox(store: EventStore, context: string, message: BusMessage): Promise<number | undefined> {
  try {
    const { stream, expected, events } = inboxAppend(context, message);
    return (await store.append(stream, expected, events)).lastPosition;
  } catch (error) {
    if (error instanceof ConcurrencyError) return undefined;
    throw error;
  }
}

/** recordInbox for a page of messages, in one append (one sync to disk for all of them); duplicates are left out */
export async function recordInboxEach(store: EventStore, context: string, messages: readonly BusMessage[]): Promise<void> {
  if (messages.length > 0) await store.appendEach(messages.map((message) => inboxAppend(context, message)));
}

const inboxAppend = (context: string, message: BusMessage): StreamAppend => ({
  stream: inboxStream(context, message.id),
  expected: 'NO_STREAM',
  events: [{ id: message.id, type: message.type, data: message.data, metadata: { ...message.metadata, inbox: context, key: message.key } }],
});

/** whether a recorded event came through the inbox (from `context`, when given) */
export const isInboxEvent = (stream: string, context?: string) => stream.startsWith(context ? `inbox_${context}-` : 'inbox_');
