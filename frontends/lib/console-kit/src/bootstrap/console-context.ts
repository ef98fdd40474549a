import { createContext, useContext, useSyncExternalStore } from 'react';
import type { ApiClient } from '../api/api-client';
import type { NavigationItem } from '../runtime/runtime';
import type { Session, SessionState } from '../session/session';

export interface ConsoleContextValue {
  api: ApiClient;
  session: Session;
  navigation: NavigationItem[];
}

export const ConsoleContext = createContext<ConsoleContextValue | null>(null);

export function useConsole(): ConsoleContextValue {
  const value = useContext(ConsoleContext);
  if (!value) throw new Error('useConsole() needs bootstrapConsole() around the app');
  return value;
}

export function useSessionState(): SessionState {
  const { session } = useConsole();
  return useSyncExternalStore(session.subscribe, session.getState);
}
