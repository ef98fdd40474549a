import { FullPageSpinner, Icon, isIconName, useConsole, useProfileTheme, useSessionState } from '@packyard/console-kit';
import { useEffect, useState } from 'react';
import { Link, Navigate, Outlet, useLocation, useNavigate } from 'react-router-dom';
import { isNavigationItemActive } from './navigation-rules';
import './shell.css';

const API_REFERENCE_PATH = '/api/docs';

function Sidebar({ open, onNavigate }: { open: boolean; onNavigate: () => void }) {
  const { navigation, session } = useConsole();
  const { pathname } = useLocation();
  const navigate = useNavigate();
  const signOut = async () => {
    await session.signOut();
    navigate('/login', { replace: true });
  };
  return (
    <aside id="pk-sidebar" className={`pk-sidebar${open ? ' pk-sidebar--open' : ''}`} aria-label="Sidebar">
      <div className="pk-brand">
        <span className="pk-brand__mark" aria-hidden="true">
          <Icon name="package" size={18} />
        </span>
        Packyard
      </div>
      <nav aria-label="Main" className="pk-nav">
        {navigation.map((item) => {
          const active = isNavigationItemActive(item, pathname);
          return (
            <Link
              key={item.to}
              to={item.to}
              onClick={onNavigate}
              className={`pk-nav__link${active ? " pk-nav__link--active" : ""}`}
              aria-current={active ? 'page' : undefined}
            >
              {isIconName(item.icon) && <Icon name={item.icon} />}
              {item.label}
            </Link>
          );
        })}
      </nav>
      <div className="pk-sidebar__footer">
        {/* the API the console itself calls, for scripts and CI (served by the gateway) */}
        <a className="pk-nav__link" href={API_REFERENCE_PATH} target="_blank" rel="noopener noreferrer">
          <Icon name="external" />
          API reference
        </a>
        <div className="pk-user">
          <span className="pk-user__avatar" aria-hidden="true">
            <Icon name="user" size={16} />
          </span>
          <span>Account</span>
        </div>
        <button type="button" className="pk-nav__link pk-signout" onClick={() => void signOut()}>
          <Icon name="logout" />
          Sign out
        </button>
      </div>
    </aside>
  );
}

/** The guard and frame of every protected screen. */
export function ShellLayout() {
  const { status } = useSessionState();
  const location = useLocation();
  const [menuOpen, setMenuOpen] = useState(false);
  useProfileTheme();
  useEffect(() => setMenuOpen(false), [location.pathname]);
  useEffect(() => {
    if (!menuOpen) return;
    const closeOnEscape = (event: KeyboardEvent) => event.key === 'Escape' && setMenuOpen(false);
    window.addEventListener('keydown', closeOnEscape);
    return () => window.removeEventListener('keydown', closeOnEscape);
  }, [menuOpen]);

  if (status === 'checking') return <FullPageSpinner />;
  if (status === 'signed-out') {
    return <Navigate to="/login" replace state={{ from: location.pathname + location.search }} />;
  }
  return (
    <div className="pk-shell">
      <header className="pk-topbar">
        <button
          type="button"
          className="pk-icon-button"
          aria-label={menuOpen ? 'Close menu' : 'Open menu'}
          aria-expanded={menuOpen}
          aria-controls="pk-sidebar"
          onClick={() => setMenuOpen((open) => !open)}
        >
          <Icon name={menuOpen ? 'close' : 'menu'} />
        </button>
        <span className="pk-brand pk-brand--compact">
          <span className="pk-brand__mark" aria-hidden="true">
            <Icon name="package" size={16} />
          </span>
          Packyard
        </span>
      </header>
      <Sidebar open={menuOpen} onNavigate={() => setMenuOpen(false)} />
      {menuOpen && <div className="pk-scrim" aria-hidden="true" onClick={() => setMenuOpen(false)} />}
      <main className="pk-main" id="main">
        <Outlet />
      </main>
    </div>
  );
}
