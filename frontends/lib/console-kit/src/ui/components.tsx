import {
  type ButtonHTMLAttributes,
  type InputHTMLAttributes,
  type KeyboardEvent,
  type ReactNode,
  type SelectHTMLAttributes,
  useEffect,
  useId,
  useRef,
  useState,
} from 'react';
import { Icon, type IconName } from './icons';

type ButtonVariant = 'primary' | 'secondary' | 'danger' | 'ghost';

export interface ButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  variant?: ButtonVariant;
  icon?: IconName;
  size?: 'sm' | 'md';
}

export function Button({ variant = 'secondary', icon, size = 'md', className, children, type = 'button', ...props }: ButtonProps) {
  return (
    <button type={type} className={['pk-button', `pk-button--${variant}`, `pk-button--${size}`, className].filter(Boolean).join(' ')} {...props}>
      {icon && <Icon name={icon} size={size === 'sm' ? 15 : 17} />}
      {children}
    </button>
  );
}

/** An icon-only button: the label is its accessible name and tooltip. */
export function IconButton({ label, icon, variant = 'ghost', className, ...props }: Omit<ButtonProps, 'children' | 'icon'> & { label: string; icon: IconName }) {
  return (
    <button
      type="button"
      aria-label={label}
      title={label}
      className={['pk-icon-button', `pk-icon-button--${variant}`, className].filter(Boolean).join(' ')}
      {...props}
    >
      <Icon name={icon} size={17} />
    </button>
  );
}

interface FieldFrameProps {
  label: string;
  hint?: ReactNode;
  error?: string;
}

function FieldFrame({ id, label, hint, error, children }: FieldFrameProps & { id: string; children: ReactNode }) {
  return (
    <div className="pk-field">
      <label className="pk-field__label" htmlFor={id}>
        {label}
      </label>
      {children}
      {hint && !error && (
        <p className="pk-field__hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      {error && (
        <p className="pk-field__error" id={`${id}-hint`} role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

/** A labelled text input with an optional hint or error below it. */
export function Field({ label, hint, error, id, ...input }: FieldFrameProps & InputHTMLAttributes<HTMLInputElement>) {
  const generated = useId();
  const inputId = id ?? generated;
  return (
    <FieldFrame id={inputId} label={label} hint={hint} error={error}>
      <input
        id={inputId}
        className="pk-input"
        aria-invalid={error ? true : undefined}
        aria-describedby={hint || error ? `${inputId}-hint` : undefined}
        {...input}
      />
    </FieldFrame>
  );
}

export interface SelectOption {
  value: string;
  label: string;
}

export function Select({ label, hint, options, id, ...select }: FieldFrameProps & SelectHTMLAttributes<HTMLSelectElement> & { options: SelectOption[] }) {
  const generated = useId();
  const selectId = id ?? generated;
  return (
    <FieldFrame id={selectId} label={label} hint={hint}>
      <select id={selectId} className="pk-input pk-select" {...select}>
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
    </FieldFrame>
  );
}

export function Checkbox({ label, description, ...input }: { label: string; description?: string } & Omit<InputHTMLAttributes<HTMLInputElement>, 'type'>) {
  return (
    <label className="pk-checkbox">
      <input type="checkbox" {...input} />
      <span>
        <span className="pk-checkbox__label">{label}</span>
        {description && <span className="pk-checkbox__description">{description}</span>}
      </span>
    </label>
  );
}

export type BadgeTone = 'neutral' | 'blue' | 'green' | 'red' | 'purple' | 'amber';

export function Badge({ tone = 'neutral', children }: { tone?: BadgeTone; children: ReactNode }) {
  return <span className={`pk-badge pk-badge--${tone}`}>{children}</span>;
}

export function Card({ children, className, as: Tag = 'section' }: { children: ReactNode; className?: string; as?: 'section' | 'article' | 'div' | 'li' }) {
  return <Tag className={['pk-card', className].filter(Boolean).join(' ')}>{children}</Tag>;
}

export function Spinner({ label = 'Loading', inline = false }: { label?: string; inline?: boolean }) {
  return (
    <span className={inline ? 'pk-spinner pk-spinner--inline' : 'pk-spinner'} role="status">
      <span className="pk-spinner__circle" aria-hidden="true" />
      <span className="pk-visually-hidden">{label}</span>
    </span>
  );
}

export function FullPageSpinner() {
  return (
    <div className="pk-full-page">
      <Spinner label="Checking your session" />
    </div>
  );
}

export function Skeleton({ width = '100%', height = 16 }: { width?: number | string; height?: number | string }) {
  return <span className="pk-skeleton" style={{ width, height }} aria-hidden="true" />;
}

export function ProgressBar({ percent, label }: { percent: number; label: string }) {
  const width = Math.min(Math.max(percent, 0), 100);
  return (
    <div className="pk-progress" role="progressbar" aria-label={label} aria-valuemin={0} aria-valuemax={100} aria-valuenow={width}>
      <div className={`pk-progress__bar${width >= 90 ? ' pk-progress__bar--high' : ''}`} style={{ width: `${width}%` }} />
    </div>
  );
}

export function EmptyState({ icon = 'folder', title, children, action }: { icon?: IconName; title: string; children?: ReactNode; action?: ReactNode }) {
  return (
    <div className="pk-empty">
      <span className="pk-empty__icon">
        <Icon name={icon} size={28} />
      </span>
      <h3 className="pk-empty__title">{title}</h3>
      {children && <p className="pk-empty__text">{children}</p>}
      {action && <div className="pk-empty__action">{action}</div>}
    </div>
  );
}

export function ErrorPanel({ title, message, onRetry }: { title: string; message?: string; onRetry?: () => void }) {
  return (
    <div className="pk-error-panel" role="alert">
      <span className="pk-error-panel__icon">
        <Icon name="alert" size={24} />
      </span>
      <div>
        <h2 className="pk-error-panel__title">{title}</h2>
        {message && <p className="pk-error-panel__message">{message}</p>}
        {onRetry && (
          <Button icon="refresh" onClick={onRetry}>
            Retry
          </Button>
        )}
      </div>
    </div>
  );
}

/** An error or warning said inline, beside what it is about (a failed save, a refused action): read out by screen readers when it appears. */
export function Alert({ children }: { children: ReactNode }) {
  return (
    <div className="pk-alert" role="alert">
      {children}
    </div>
  );
}

export function PageHeader({ title, description, actions, children }: { title: ReactNode; description?: ReactNode; actions?: ReactNode; children?: ReactNode }) {
  return (
    <header className="pk-page-header">
      <div className="pk-page-header__text">
        {children}
        <h1 className="pk-page-header__title">{title}</h1>
        {description && <p className="pk-page-header__description">{description}</p>}
      </div>
      {actions && <div className="pk-page-header__actions">{actions}</div>}
    </header>
  );
}

/** "Page x of y" with Previous and Next, under a paged list. */
export function Pager({ page, pages, summary, onChange }: { page: number; pages: number; summary: ReactNode; onChange: (page: number) => void }) {
  return (
    <nav className="pk-spread pk-wrap" aria-label="Pages">
      <span className="pk-muted">
        Page {page + 1} of {pages} · {summary}
      </span>
      <div className="pk-row">
        <Button size="sm" disabled={page === 0} onClick={() => onChange(page - 1)}>
          Previous
        </Button>
        <Button size="sm" disabled={page + 1 >= pages} onClick={() => onChange(page + 1)}>
          Next
        </Button>
      </div>
    </nav>
  );
}

/**
 * A short-lived notice at the bottom of the screen, with an optional action (such as Undo);
 * it closes itself after `timeoutMs` unless the pointer or focus is on it.
 */
export function Toast({ message, action, onDismiss, timeoutMs = 10_000 }: { message: ReactNode; action?: ReactNode; onDismiss: () => void; timeoutMs?: number }) {
  const [held, setHeld] = useState(false);
  useEffect(() => {
    if (held) return;
    const timer = setTimeout(onDismiss, timeoutMs);
    return () => clearTimeout(timer);
  }, [held, onDismiss, timeoutMs]);
  return (
    <div
      className="pk-toast"
      role="status"
      aria-live="polite"
      onMouseEnter={() => setHeld(true)}
      onMouseLeave={() => setHeld(false)}
      onFocus={() => setHeld(true)}
      onBlur={() => setHeld(false)}
    >
      <span className="pk-toast__message">{message}</span>
      {action}
      <IconButton label="Dismiss" icon="close" onClick={onDismiss} />
    </div>
  );
}

/** A modal on the native <dialog>: focus trapping, Escape and the top layer come for free. */
export function Dialog({ open, title, onClose, children, footer, description }: { open: boolean; title: string; onClose: () => void; children: ReactNode; footer?: ReactNode; description?: ReactNode }) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog
      ref={ref}
      className="pk-dialog"
      aria-labelledby={titleId}
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
    >
      {open && (
        <div className="pk-dialog__body">
          <header className="pk-dialog__header">
            <h2 id={titleId} className="pk-dialog__title">
              {title}
            </h2>
            <IconButton label="Close" icon="close" onClick={onClose} />
          </header>
          {description && <div className="pk-dialog__description">{description}</div>}
          {children}
          {footer && <footer className="pk-dialog__footer">{footer}</footer>}
        </div>
      )}
    </dialog>
  );
}

/** Writes text to the clipboard, falling back to a hidden textarea on non-secure origins. */
export async function copyText(text: string): Promise<void> {
  if (navigator.clipboard && window.isSecureContext) return navigator.clipboard.writeText(text);
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.style.position = 'fixed';
  area.style.opacity = '0';
  document.body.append(area);
  area.select();
  document.execCommand('copy');
  area.remove();
}

export function CopyButton({ text, label = 'Copy', withText = false }: { text: string; label?: string; withText?: boolean }) {
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    if (!copied) return;
    const timer = setTimeout(() => setCopied(false), 1500);
    return () => clearTimeout(timer);
  }, [copied]);
  const copy = () =>
    copyText(text)
      .then(() => setCopied(true))
      .catch((error) => console.error('Copy failed', error));
  if (withText)
    return (
      <Button icon={copied ? 'check' : 'copy'} onClick={copy} aria-live="polite">
        {copied ? 'Copied' : label}
      </Button>
    );
  return <IconButton label={label} icon={copied ? 'check' : 'copy'} onClick={copy} />;
}

/** A command or text block with its copy button; `wrap` breaks long values (tokens) instead of scrolling. */
export function CodeBlock({ code, copyLabel = 'Copy', wrap = false }: { code: string; copyLabel?: string; wrap?: boolean }) {
  return (
    <div className={wrap ? 'pk-code pk-code--wrap' : 'pk-code'}>
      <pre>
        <code>{code}</code>
      </pre>
      <div className="pk-code__copy">
        <CopyButton text={code} label={copyLabel} />
      </div>
    </div>
  );
}

export interface TabItem {
  id: string;
  label: string;
  icon?: IconName;
}

/** WAI-ARIA tabs: arrow keys, Home and End move between tabs. */
export function Tabs({ tabs, active, onChange, label }: { tabs: TabItem[]; active: string; onChange: (id: string) => void; label: string }) {
  const refs = useRef<Array<HTMLButtonElement | null>>([]);
  const onKeyDown = (event: KeyboardEvent, index: number) => {
    const moves: Record<string, number> = { ArrowRight: index + 1, ArrowLeft: index - 1, Home: 0, End: tabs.length - 1 };
    if (!(event.key in moves)) return;
    event.preventDefault();
    const next = (moves[event.key] + tabs.length) % tabs.length;
    onChange(tabs[next].id);
    refs.current[next]?.focus();
  };
  return (
    <div className="pk-tabs" role="tablist" aria-label={label}>
      {tabs.map((tab, index) => (
        <button
          key={tab.id}
          ref={(element) => {
            refs.current[index] = element;
          }}
          type="button"
          role="tab"
          id={`tab-${tab.id}`}
          aria-selected={tab.id === active}
          aria-controls={`panel-${tab.id}`}
          tabIndex={tab.id === active ? 0 : -1}
          className="pk-tabs__tab"
          onClick={() => onChange(tab.id)}
          onKeyDown={(event) => onKeyDown(event, index)}
        >
          {tab.icon && <Icon name={tab.icon} size={16} />}
          {tab.label}
        </button>
      ))}
    </div>
  );
}

export function TabPanel({ id, children }: { id: string; children: ReactNode }) {
  return (
    <div role="tabpanel" id={`panel-${id}`} aria-labelledby={`tab-${id}`} className="pk-tab-panel" tabIndex={0}>
      {children}
    </div>
  );
}
