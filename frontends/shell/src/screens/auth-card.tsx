import { Card, Icon, type IconName } from '@packyard/console-kit';
import type { ReactNode } from 'react';

/** The centred card of the signed-out screens: sign-in and its steps, password reset. */
export function AuthCard({ icon, title, subtitle, children }: { icon: IconName; title: string; subtitle?: ReactNode; children: ReactNode }) {
  return (
    <main className="pk-auth">
      <Card className="pk-auth__card">
        <div className="pk-auth__header">
          <span className="pk-brand__mark">
            <Icon name={icon} size={22} />
          </span>
          <h1 className="pk-auth__title">{title}</h1>
          {subtitle && (
            <p className="pk-muted" style={{ margin: 0 }}>
              {subtitle}
            </p>
          )}
        </div>
        {children}
      </Card>
    </main>
  );
}
