import type { ComponentType } from 'react';
import type { ApiClient } from '../api/api-client';
import type { Session } from '../session/session';

/** A screen. `lazy` keeps the screen's code out of the first load. */
export interface RouteRegistration {
  path: string;
  lazy: () => Promise<{ default: ComponentType }>;
  /** `protected` (default) screens sit behind the sign-in guard inside the shell layout. */
  access?: 'public' | 'protected';
}

export interface NavigationItem {
  label: string;
  to: string;
  /** Position in the sidebar, ascending. */
  order: number;
  icon?: string;
  /** Active only on an exact path match (Dashboard); otherwise active on a path prefix. */
  exact?: boolean;
}

/** The one contract between the console and its modules, local or federated. */
export interface ConsoleRuntime {
  registerRoute(route: RouteRegistration): void;
  registerNavigationItem(item: NavigationItem): void;
  /** The frame around protected screens: the shell's guard and sidebar. Only the shell sets it. */
  registerLayout(layout: ComponentType): void;
  readonly api: ApiClient;
  readonly session: Session;
}

export type RegisterModule = (runtime: ConsoleRuntime) => void;

/** A module the shell fetches at run time; `paths` lets the shell show an error panel there if it fails. */
export interface RemoteModule {
  name: string;
  paths: string[];
  load: () => Promise<RegisterModule>;
}

export interface Registry {
  routes: RouteRegistration[];
  navigation: NavigationItem[];
  layout?: ComponentType;
}

export function createRegistry(): Registry {
  return { routes: [], navigation: [] };
}

/** A runtime writing into `registry`; the bootstrap turns the registry into the route table. */
export function createRuntime(registry: Registry, api: ApiClient, session: Session): ConsoleRuntime {
  return {
    registerRoute: (route) => void registry.routes.push(route),
    registerNavigationItem: (item) => {
      registry.navigation.push(item);
      registry.navigation.sort((a, b) => a.order - b.order);
    },
    registerLayout: (layout) => {
      registry.layout = layout;
    },
    api,
    session,
  };
}
