import { assertNever, invalid, type Decider } from '@packyard/platform';
import type { RetentionEvent } from './retention.events';

export const MAX_KEEP_VERSIONS = 1000;
export const MAX_KEEP_DOWNLOADED_DAYS = 3650;

export interface RetentionPolicyValues {
  keepVersions: number;
  keepDownloadedDays: number;
}

export type RetentionState = { status: 'unset' } | { status: 'set'; policy: RetentionPolicyValues };

export type RetentionCommand = { type: 'SetRetentionPolicy'; repositoryId: string; workspaceId: string; policy: RetentionPolicyValues; now: string };

const checkWhole = (value: number, max: number, what: string) => {
  if (!Number.isInteger(value) || value < 0 || value > max) throw invalid('PACKYARD_ARTIFACT_RETENTION_INVALID', `${what} must be a whole number from 0 to ${max}`);
};

/** A repository's retention policy: any whole numbers in range; setting the same policy again records nothing. */
export const retentionDecider: Decider<RetentionState, RetentionCommand, RetentionEvent> = {
  initialState: () => ({ status: 'unset' }),
  decide(command, state) {
    switch (command.type) {
      case 'SetRetentionPolicy': {
        const { keepVersions, keepDownloadedDays } = command.policy;
        checkWhole(keepVersions, MAX_KEEP_VERSIONS, 'Versions to keep');
        checkWhole(keepDownloadedDays, MAX_KEEP_DOWNLOADED_DAYS, 'Days a download protects a version');
        const current = state.status === 'set' ? state.policy : { keepVersions: 0, keepDownloadedDays: 0 };
        if (current.keepVersions === keepVersions && current.keepDownloadedDays === keepDownloadedDays) return [];
        return [{ type: 'RetentionPolicySet', data: { repositoryId: command.repositoryId, workspaceId: command.workspaceId, keepVersions, keepDownloadedDays, setAt: command.now } }];
      }
      default:
        return assertNever(command.type);
    }
  },
  evolve(_state, event) {
    switch (event.type) {
      case 'RetentionPolicySet':
        return { status: 'set', policy: { keepVersions: event.data.keepVersions, keepDownloadedDays: event.data.keepDownloadedDays } };
      default:
        return assertNever(event.type);
    }
  },
};
