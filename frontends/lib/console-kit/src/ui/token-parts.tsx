import { TOKEN_SCOPES, type TokenScope } from '../resources/types';
import { Button, Checkbox, CodeBlock, CopyButton, Dialog } from './components';

const SCOPE_DESCRIPTIONS: Record<TokenScope, string> = {
  read: 'List repositories and download packages',
  publish: 'Upload and delete packages',
  admin: 'Manage repositories and tokens',
};

/** The read / publish / admin checkboxes of a new token or API key, kept in the spec's order. */
export function ScopeCheckboxes({ scopes, onChange }: { scopes: TokenScope[]; onChange: (scopes: TokenScope[]) => void }) {
  const toggle = (scope: TokenScope, checked: boolean) =>
    onChange(checked ? TOKEN_SCOPES.filter((s) => s === scope || scopes.includes(s)) : scopes.filter((s) => s !== scope));
  return (
    <fieldset className="pk-form" style={{ border: 'none', margin: 0, padding: 0, gap: 10 }}>
      <legend className="pk-field__label" style={{ marginBottom: 8 }}>
        Scopes
      </legend>
      {TOKEN_SCOPES.map((scope) => (
        <Checkbox key={scope} label={scope} description={SCOPE_DESCRIPTIONS[scope]} checked={scopes.includes(scope)} onChange={(event) => toggle(scope, event.target.checked)} />
      ))}
    </fieldset>
  );
}

/** A new secret, shown this once with its copy button (access tokens, API keys, webhook secrets). */
export function SecretShownOnceDialog({ title, secret, onDone, noun = 'token' }: { title: string; secret: string | undefined; onDone: () => void; noun?: string }) {
  return (
    <Dialog
      open={secret !== undefined}
      onClose={onDone}
      title={title}
      footer={
        <>
          <CopyButton text={secret ?? ''} withText />
          <Button variant="primary" onClick={onDone}>
            Done
          </Button>
        </>
      }
    >
      <div className="pk-notice" role="note">
        Make sure to copy your {noun} now. You won't be able to see it again!
      </div>
      <CodeBlock code={secret ?? ''} wrap />
    </Dialog>
  );
}
