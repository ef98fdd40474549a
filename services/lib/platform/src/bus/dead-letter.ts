import type { BusMessage } from './event-bus.port';

export interface DeliveryOutcome {
  failed: boolean;
  error?: unknown;
  attempts: number;
}

const describeError = (error: unknown) => (error instanceof Error ? `${error.name}: ${error.message}` : String(error));

/** the message as it lands in `<topic>.dlq`: unchanged, with why and where it failed */
export const deadLetter = (message: BusMessage, topic: string, group: string, outcome: DeliveryOutcome): BusMessage => ({
  ...message,
  metadata: { ...message.metadata, deadLetter: { topic, group, attempts: outcome.attempts, error: describeError(outcome.error) } },
});
