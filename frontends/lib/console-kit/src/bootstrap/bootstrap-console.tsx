import { QueryClientProvider } from '@tanstack/react-query';
import { type ComponentType, lazy, StrictMode, Suspense, useCallback, useMemo, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { createBrowserRouter, Outlet, RouterProvider, useRouteError } from 'react-router-dom';
import { createApiClient } from '../api/api-client';
import { createConsoleQueryClient } from '../query/query-client';
import { createRegistry, createRuntime, type RegisterModule, type Registry, type RemoteModule, type RouteRegistration } from '../runtime/runtime';
import { createSession } from '../session/session';
import { EmptyState, ErrorPanel, FullPageSpinner, Spinner } from '../ui/components';
import { applyStoredTheme } from '../ui/theme';
import { ConsoleContext } from './console-context';
import '../styles/console.css';

export interface BootstrapOptions {
  /** Modules bundled with the page (the shell itself, or a remote in its isolated dev mode). */
  modules?: RegisterModule[];
  /** Modules fetched at run time; one that fails shows an error panel on its paths. */
  remotes?: RemoteModule[];
  container?: HTMLElement;
}

type RemoteFailures = ReadonlyMap<string, RemoteModule>;

function ScreenLoading() {
  return (
    <div className="pk-screen-loading">
      <Spinner label="Loading screen" />
    </div>
  );
}

/** A lazily loaded screen whose code could not be fetched (a new deploy, a dropped connection). */
function ScreenFailed() {
  const error = useRouteError();
  console.error('Screen failed', error);
  return (
    <div className="pk-page">
      <ErrorPanel
        title="This screen failed to load"
        message={error instanceof Error ? error.message : 'Something went wrong while loading this page.'}
        onRetry={() => window.location.reload()}
      />
    </div>
  );
}

function RemoteFailed({ remote, onRetry }: { remote: RemoteModule; onRetry: () => Promise<void> }) {
  const [retrying, setRetrying] = useState(false);
  if (retrying) return <ScreenLoading />;
  return (
    <div className="pk-page">
      <ErrorPanel
        title="This part of the console failed to load"
        message={`The ${remote.name} module could not be loaded. Check your connection and try again.`}
        onRetry={() => {
          setRetrying(true);
          void onRetry().finally(() => setRetrying(false));
        }}
      />
    </div>
  );
}

function NotFound() {
  return (
    <div className="pk-page">
      <EmptyState icon="alert" title="Page not found">
        There is nothing at this address.
      </EmptyState>
    </div>
  );
}

function screenRoute(route: RouteRegistration) {
  const Screen = lazy(route.lazy);
  return {
    path: route.path,
    errorElement: <ScreenFailed />,
    element: (
      <Suspense fallback={<ScreenLoading />}>
        <Screen />
      </Suspense>
    ),
  };
}

/** The route table: public screens, then protected ones inside the registered layout. */
function createConsoleRouter(registry: Registry, failures: RemoteFailures, retry: (remote: RemoteModule) => Promise<void>) {
  const Layout: ComponentType = registry.layout ?? Outlet;
  const isPublic = (route: RouteRegistration) => route.access === 'public';
  const failedRemoteRoutes = [...failures.values()].flatMap((remote) =>
    remote.paths.map((path) => ({ path, element: <RemoteFailed remote={remote} onRetry={() => retry(remote)} /> })),
  );
  return createBrowserRouter([
    {
      errorElement: <ScreenFailed />,
      children: [
        ...registry.routes.filter(isPublic).map(screenRoute),
        {
          element: <Layout />,
          children: [...registry.routes.filter((route) => !isPublic(route)).map(screenRoute), ...failedRemoteRoutes, { path: '*', element: <NotFound /> }],
        },
      ],
    },
  ]);
}

/**
 * Starts the console: one session, one API client, one QueryClient, the modules' routes.
 * The shell calls it with its remotes; a remote's isolated dev mode calls it with the
 * shell's module and its own, so both run the same code path.
 */
export async function bootstrapConsole(options: BootstrapOptions = {}): Promise<void> {
  const container = options.container ?? document.getElementById('root');
  if (!container) throw new Error('bootstrapConsole() needs a #root element');
  applyStoredTheme();
  const root = createRoot(container);
  // Spec §2: a spinner until the initial authentication check (and the remotes) are in.
  root.render(<FullPageSpinner />);

  const session = createSession();
  let router: ReturnType<typeof createConsoleRouter> | undefined;
  const api = createApiClient({
    getIdToken: session.getIdToken,
    onUnauthorized: () => {
      session.clear();
      const from = window.location.pathname + window.location.search;
      void router?.navigate('/login', { replace: true, state: from.startsWith('/login') ? undefined : { from } });
    },
  });
  const registry = createRegistry();
  const runtime = createRuntime(registry, api, session);
  for (const register of options.modules ?? []) register(runtime);

  async function loadRemote(remote: RemoteModule): Promise<boolean> {
    try {
      (await remote.load())(runtime);
      return true;
    } catch (error) {
      console.error(`Remote ${remote.name} failed to load`, error);
      return false;
    }
  }

  const remotes = options.remotes ?? [];
  const [, ...loaded] = await Promise.all([session.start(), ...remotes.map(loadRemote)]);
  const initialFailures = new Map(remotes.filter((_, index) => !loaded[index]).map((remote) => [remote.name, remote]));
  const queryClient = createConsoleQueryClient();
  // what one account saw (its profile and theme, its workspaces) is never shown to the next
  session.subscribe(() => {
    if (session.getState().status === 'signed-out') queryClient.clear();
  });

  function ConsoleApp() {
    const [failures, setFailures] = useState<RemoteFailures>(initialFailures);
    const retry = useCallback(async (remote: RemoteModule) => {
      if (!(await loadRemote(remote))) return;
      setFailures((current) => new Map([...current].filter(([name]) => name !== remote.name)));
    }, []);
    const consoleRouter = useMemo(() => (router = createConsoleRouter(registry, failures, retry)), [failures, retry]);
    const context = useMemo(() => ({ api, session, navigation: [...registry.navigation] }), [failures]);
    return (
      <ConsoleContext.Provider value={context}>
        <QueryClientProvider client={queryClient}>
          <RouterProvider router={consoleRouter} />
        </QueryClientProvider>
      </ConsoleContext.Provider>
    );
  }

  root.render(
    <StrictMode>
      <ConsoleApp />
    </StrictMode>,
  );
}
