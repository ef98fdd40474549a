import type { BusMessage } from '../bus/event-bus.port';
import { ConcurrencyError, type EventStore } from './event-store.port';

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
    const result = await store.append(inboxStream(context, message.id), 'NO_STREAM', [
      { id: message.id, type: message.type, data: message.data, metadata: { ...message.metadata, inbox: context, key: message.key } },
    ]);
    return result.lastPosition;
  } catch (error) {
    if (error instanceof ConcurrencyError) return undefined;
    throw error;
  }
}

/** whether a recorded event came through the inbox (from `context`, when given) */
export const isInboxEvent = (stream: string, context?: string) => stream.startsWith(context ? `inbox_${context}-` : 'inbox_');
