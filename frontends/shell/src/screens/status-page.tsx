import { Card, Icon, useConsole } from '@packyard/console-kit';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router-dom';

export const HEALTH_POLL_INTERVAL_MS = 30_000;

export default function StatusPage() {
  const { api } = useConsole();
  const health = useQuery({
    queryKey: ['health'],
    queryFn: () => api.get<{ status: string }>('/actuator/health'),
    refetchInterval: HEALTH_POLL_INTERVAL_MS,
    staleTime: 0,
  });
  const state = health.isPending ? 'checking' : health.isError ? 'down' : 'up';
  const text = {
    checking: 'Checking system status...',
    down: 'System appears to be offline',
    up: 'All systems operational',
  }[state];
  return (
    <main className="pk-auth">
      <Card className="pk-auth__card">
        <div className="pk-auth__header">
          <span className="pk-brand__mark">
            <Icon name="activity" size={22} />
          </span>
          <h1 className="pk-auth__title">System status</h1>
        </div>
        <div className={`pk-status pk-status--${state}`} role="status" aria-live="polite">
          <span className="pk-status__dot" aria-hidden="true" />
          {text}
        </div>
        <p className="pk-auth__footer">
          <Link to="/login">Back to sign in</Link>
        </p>
      </Card>
    </main>
  );
}
